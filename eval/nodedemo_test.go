package eval_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/eval"
	"github.com/licorice-dev/licorice/internal/nodetest"
)

// TestNodeDemo runs the Node.js pipeline end to end on the recorder's
// example, at a smaller size than `licorice demo --node`: the bug's
// handler pair is reported with its condition, and the fixed program gets
// no report.
func TestNodeDemo(t *testing.T) {
	rec := nodetest.Recorder(t)
	var out bytes.Buffer
	err := eval.NodeDemo(context.Background(), &out, eval.NodeDemoConfig{
		Recorder: rec, TrainRuns: 16, Dir: t.TempDir(), Window: asyncclock.DefaultWindow,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"request: Cache#1.config != null",
		"GEN-REQ  Cache.onConfig × request",
		"licorice reports Cache.onConfig × request on this.config",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, out.String())
		}
	}
	fixed := out.String()[strings.Index(out.String(), "5. Record a run of the fixed program"):]
	if !strings.Contains(fixed, "licorice: 0 reports.") {
		t.Errorf("the fixed program has reports:\n%s", fixed)
	}
}
