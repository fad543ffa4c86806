package shuffle_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/traces"
)

// counter is an app's heap object: its Int field is recorded.
type counter struct {
	shuffle.Object
	clicks shuffle.Int
}

func (c *counter) onClick() { c.clicks.Add(1) }

// A program: the main function makes a heap object and declares one
// monkey action, a tap posted to the main looper. Record runs it and
// writes the trace.
func ExampleRecord() {
	app := func(rt *shuffle.Runtime) {
		c := shuffle.New(rt, &counter{})
		rt.AddActions(shuffle.Action{Name: "tap", Do: func(w *shuffle.World) {
			w.Post(rt.Main(), c.onClick)
		}})
	}
	var out strings.Builder
	res, err := shuffle.Record(context.Background(), app,
		shuffle.Options{Seed: 1, Actions: 2, ActionGap: time.Second, NoSource: true},
		traces.Header{App: "counter"}, &out, traces.JSONL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for _, line := range strings.Split(out.String(), "\n")[:18] {
		if strings.Contains(line, `"binder`) {
			continue // the binder threads every process has
		}
		fmt.Println(line)
	}
	fmt.Println(res.Actions, "actions,", res.Ops, "ops")
	// Output:
	// {"licorice_trace":2,"platform":"android","app":"counter","seed":1}
	// {"op":"thread_begin","t":"main","kind":"looper","name":"main","ts":0}
	// {"op":"attach","t":"main","q":"main","ts":0}
	// {"op":"call","t":"main","h":"Application.onCreate","ts":0}
	// {"op":"alloc","t":"main","obj":"o1","site":"Application.onCreate:27","type":"Counter","ts":0.001}
	// {"op":"ret","t":"main","h":"Application.onCreate","ts":0.002}
	// {"op":"send","q":"main","e":"E1","external":true,"ts":202.23187}
	// {"op":"begin","t":"E1","thread":"main","ts":202.23187}
	// {"op":"call","t":"E1","h":"Counter.onClick","ts":202.23287}
	// {"op":"read","t":"E1","obj":"o1","field":"clicks","val":0,"ts":202.23387}
	// {"op":"write","t":"E1","obj":"o1","field":"clicks","val":1,"update":true,"ts":202.23487}
	// {"op":"ret","t":"E1","h":"Counter.onClick","ts":202.23587}
	// {"op":"end","t":"E1","ts":202.23687}
	// {"op":"send","q":"main","e":"E2","external":true,"ts":276.40181}
	// 2 actions, 23 ops
}
