package detect

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/licorice-dev/licorice/learn"
)

// script builds a small trace for a test: one looper thread "main" with
// queue "main", whose own code (outside events) sets the scene, plus the
// worker threads and events the test adds, in the order it adds them.
type script struct {
	lines []string
	// rich adds a "ts" to every op and a "src" to every heap access;
	// timed only the "ts", 10 ms an op.
	rich, timed bool
}

// newScript starts a trace with the main looper and an activity object
// o1 of class Act ("this" in Act's handlers).
func newScript() *script { return startScript(&script{}) }

// startScript adds to s what newScript starts with.
func startScript(s *script) *script {
	s.raw(`{"licorice_trace":1,"app":"test"}`)
	s.op("main", "thread_begin", `"kind":"looper"`)
	s.op("main", "attach", `"q":"main"`)
	s.op("main", "alloc", `"obj":"o1","site":"App.main:1","type":"Act"`)
	return s
}

func (s *script) raw(line string) { s.lines = append(s.lines, line) }

// op appends an op of task t; fields are extra JSON members.
func (s *script) op(t, kind, fields string) *script {
	line := fmt.Sprintf(`{"op":%q,"t":%q`, kind, t)
	if fields != "" {
		line += "," + fields
	}
	if s.rich || s.timed {
		line += fmt.Sprintf(`,"ts":%d.5`, 10*len(s.lines))
	}
	if s.rich {
		if kind == "read" || kind == "write" {
			line += fmt.Sprintf(`,"src":"Act.java:%d"`, 100+len(s.lines))
		}
	}
	s.raw(line + "}")
	return s
}

// write and read are heap accesses of task t to o1's field; val is a JSON
// value ("null", `{"ref":"o2"}`, "3").
func (s *script) write(t, field, val string) *script {
	return s.op(t, "write", fmt.Sprintf(`"obj":"o1","field":%q,"val":%s`, field, val))
}

func (s *script) read(t, field, val string) *script {
	return s.op(t, "read", fmt.Sprintf(`"obj":"o1","field":%q,"val":%s`, field, val))
}

// worker starts a worker thread forked by the main thread.
func (s *script) worker(name string) *script {
	s.op("main", "fork", fmt.Sprintf(`"child":%q`, name))
	return s.op(name, "thread_begin", "")
}

// post makes task t post event e to the main looper.
func (s *script) post(t, e string) *script {
	return s.op(t, "send", fmt.Sprintf(`"q":"main","e":%q`, e))
}

// run runs event e on main: it calls handler, which does body (ops of the
// event, each a function of the event's id).
func (s *script) run(e, handler string, body ...func(s *script, e string)) *script {
	s.op(e, "begin", `"thread":"main"`)
	s.op(e, "call", fmt.Sprintf(`"h":%q`, handler))
	for _, f := range body {
		f(s, e)
	}
	s.op(e, "ret", fmt.Sprintf(`"h":%q`, handler))
	return s.op(e, "end", "")
}

// Bodies for run.
func rd(field, val string) func(*script, string) {
	return func(s *script, e string) { s.read(e, field, val) }
}

func wr(field, val string) func(*script, string) {
	return func(s *script, e string) { s.write(e, field, val) }
}

func postE(e2 string) func(*script, string) {
	return func(s *script, e string) { s.post(e, e2) }
}

func signal(m string) func(*script, string) {
	return func(s *script, e string) { s.op(e, "signal", fmt.Sprintf(`"m":%q`, m)) }
}

// file writes the trace into dir and returns its path.
func (s *script) file(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(s.lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// specCond is a spec condition for a test: handler, template, vars and
// optional constants ("a": ..., "b": ..., "s": [...]).
type specCond struct {
	handler, template string
	vars              []string
	consts            map[string]any
	disabled          bool
	guard             string // an implication: guard ==> the condition
}

// makeSpec builds a spec from conditions, each with support 100 and
// confidence 1.
func makeSpec(t testing.TB, cs ...specCond) *learn.Spec {
	t.Helper()
	byHandler := map[string][]map[string]any{}
	for _, c := range cs {
		m := map[string]any{"template": c.template, "vars": c.vars, "support": 100, "confidence": 1}
		if c.consts != nil {
			m["constants"] = c.consts
		}
		if c.disabled {
			m["disabled"] = true
		}
		if c.guard != "" {
			m["guard"] = c.guard
		}
		byHandler[c.handler] = append(byHandler[c.handler], m)
	}
	var names []string
	for h := range byHandler {
		names = append(names, h)
	}
	slices.Sort(names)
	var hs []map[string]any
	for _, h := range names {
		hs = append(hs, map[string]any{"handler": h, "samples": 100, "traces": 10, "conditions": byHandler[h]})
	}
	data, err := json.Marshal(map[string]any{
		"licorice_spec": 1, "params": map[string]any{"limit": 0.01, "min_samples": 5}, "traces": 10, "handlers": hs,
	})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := learn.ParseSpec("test.spec.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

const (
	null = "null"
	o2   = `{"ref":"o2"}`
	o3   = `{"ref":"o3"}`
)

// nonnullP is "Act.h: this.p != null" for handler h.
func nonnullP(h string) specCond {
	return specCond{handler: h, template: "nonnull", vars: []string{"this.p"}}
}

// looper starts a looper thread with a queue of its name, forked by the
// main thread.
func (s *script) looper(name string) *script {
	s.op("main", "fork", fmt.Sprintf(`"child":%q`, name))
	s.op(name, "thread_begin", `"kind":"looper"`)
	return s.op(name, "attach", fmt.Sprintf(`"q":%q`, name))
}

// sendTo makes task t post event e to queue q.
func (s *script) sendTo(t, q, e string) *script {
	return s.op(t, "send", fmt.Sprintf(`"q":%q,"e":%q`, q, e))
}

// begin starts event e on thread th and calls handler; finish returns
// from it and ends e. Between the two, the test interleaves other ops.
func (s *script) begin(e, th, handler string) *script {
	s.op(e, "begin", fmt.Sprintf(`"thread":%q`, th))
	return s.op(e, "call", fmt.Sprintf(`"h":%q`, handler))
}

func (s *script) finish(e, handler string) *script {
	s.op(e, "ret", fmt.Sprintf(`"h":%q`, handler))
	return s.op(e, "end", "")
}

// runOn runs event e on thread th, like run on main.
func (s *script) runOn(e, th, handler string, body ...func(s *script, e string)) *script {
	s.begin(e, th, handler)
	for _, f := range body {
		f(s, e)
	}
	return s.finish(e, handler)
}

// TestEventRecSize: the second pass keeps an eventRec per event of the
// trace, a million in a long one; what it needs only while the event runs
// is elsewhere (begun).
func TestEventRecSize(t *testing.T) {
	if n := unsafe.Sizeof(eventRec{}); n > 16 {
		t.Errorf("eventRec is %d bytes, want at most 16", n)
	}
}

// TestStreamSize: a trace realizes tens of thousands of conditions
// (78,301 on the recorded aarddict run), each with a stream; what only
// some of them have (findings) is kept by the checker.
func TestStreamSize(t *testing.T) {
	if n := unsafe.Sizeof(stream{}); n > 240 {
		t.Errorf("stream is %d bytes, want at most 240", n)
	}
}
