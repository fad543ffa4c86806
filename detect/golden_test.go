package detect

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// goldenScript is a small app with one finding of every kind:
//
//   - onUpdateResults (E1) requires p != null, onPause (E2) kills it,
//     unordered: REQ-KILL;
//   - onShow (E3) then runs with p null and crashes: a violation;
//   - onLoad (E5) makes n >= 1 true, refresh (E6) requires it, unordered:
//     GEN-REQ;
//   - onClose (E7) kills q != null and onOpen (E8) generates it,
//     unordered, and onUse (E9) requires it after both: GEN-KILL;
//   - onDraw (E10) on a second looper R requires (x, y) in {(1, 1),
//     (2, 2)}, and onChange (E11) on main writes x, then y: a mid-event
//     KILL, unordered with E10: REQ-KILL.
func goldenScript() *script {
	s := &script{rich: true}
	s.raw(`{"licorice_trace":1,"platform":"android","app":"demo","run":"golden"}`)
	s.op("main", "thread_begin", `"kind":"looper","name":"main"`)
	s.op("main", "attach", `"q":"main"`)
	s.op("main", "alloc", `"obj":"o1","site":"App.main:1","type":"Act"`)
	s.write("main", "p", o2).write("main", "n", "0").write("main", "q", o2)
	s.write("main", "x", "1").write("main", "y", "1").looper("R")
	s.worker("T1").worker("T2").worker("T3")
	s.post("T1", "E1").post("T2", "E2")
	s.run("E1", "Act.onUpdateResults", rd("p", o2))
	s.run("E2", "Act.onPause", rd("p", o2), wr("p", null))
	s.post("T1", "E3").run("E3", "Act.onShow", rd("p", null), func(s *script, e string) {
		s.op(e, "error", `"msg":"NullPointerException: p is null"`)
	})
	s.post("T2", "E4").run("E4", "Act.onResume", wr("p", o3))
	s.post("T3", "E5").post("T1", "E6")
	s.run("E5", "Act.onLoad", wr("n", "1"))
	s.run("E6", "Act.refresh", rd("n", "1"))
	s.post("T2", "E7").post("T3", "E8")
	s.run("E7", "Act.onClose", wr("q", null), signal("m1"))
	s.run("E8", "Act.onOpen", wr("q", o3), signal("m2"))
	s.op("T1", "wait", `"m":"m1"`).op("T1", "wait", `"m":"m2"`).post("T1", "E9")
	s.run("E9", "Act.onUse", rd("q", o3))
	s.sendTo("T3", "R", "E10").post("T2", "E11")
	s.runOn("E10", "R", "Act.onDraw", rd("x", "1"), rd("y", "1"))
	return s.run("E11", "Act.onChange", wr("x", "2"), wr("y", "2"))
}

var goldenSpec = []specCond{
	nonnullP("Act.onUpdateResults"),
	nonnullP("Act.onPause"),
	nonnullP("Act.onShow"),
	{handler: "Act.refresh", template: "lower", vars: []string{"this.n"}, consts: map[string]any{"a": 1}},
	{handler: "Act.onUse", template: "nonnull", vars: []string{"this.q"}},
	{handler: "Act.onUse", template: "const", vars: []string{"this.n"}, consts: map[string]any{"a": 7}, disabled: true},
	{handler: "Act.onDraw", template: "pairs", vars: []string{"this.x", "this.y"},
		consts: map[string]any{"p": []map[string]any{{"x": 1, "y": 1}, {"x": 2, "y": 2}}}},
}

// goldenInput writes (with -update) or checks the golden trace and spec
// in testdata, so that the committed files are what the builder makes,
// and returns the spec and the trace's path.
func goldenInput(t *testing.T) (*learn.Spec, string) {
	t.Helper()
	sp := makeSpec(t, goldenSpec...)
	var spec bytes.Buffer
	if err := sp.Encode(&spec); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join("testdata", "demo.jsonl")
	s := goldenScript()
	tmp := s.file(t, t.TempDir(), "demo.jsonl")
	data, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, trace, data)
	golden.Check(t, filepath.Join("testdata", "demo.spec.json"), spec.Bytes())
	return sp, trace
}

func goldenResult(t *testing.T, allow *AllowList) (*Result, string) {
	t.Helper()
	sp, trace := goldenInput(t)
	res, err := Detect(context.Background(), sp, []string{trace, trace}, Options{Allow: allow, Explain: DefaultExplain})
	if err != nil {
		t.Fatal(err)
	}
	return res, "testdata/demo.spec.json"
}

func TestGolden(t *testing.T) {
	res, spec := goldenResult(t, nil)
	var kinds []Kind
	for _, r := range res.Reports {
		kinds = append(kinds, r.Kind)
		if r.Findings != 2 || len(r.Traces) != 1 {
			t.Errorf("report %d: %d findings in %d traces, want the same finding of one trace given twice", r.ID, r.Findings, len(r.Traces))
		}
	}
	// The GEN-REQ is on a bound (this.n >= 1): it ranks after the rest.
	if want := []Kind{Violation, ReqKill, ReqKill, GenKill, GenReq}; !equalKinds(kinds, want) {
		t.Errorf("reports of kinds %v, want %v", kinds, want)
	}
	if mid := res.Reports[1].Example.Events[1]; !mid.MidEvent || mid.Handler != "Act.onChange" {
		t.Errorf("report 2: the second event is %+v, want onChange's mid-event KILL", mid)
	}
	if res.Disabled != 1 {
		t.Errorf("%d disabled conditions, want 1", res.Disabled)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"demo.txt.golden", func(b *bytes.Buffer) error { return WriteText(b, res, TextOptions{}) }},
		{"demo.color.golden", func(b *bytes.Buffer) error { return WriteText(b, res, TextOptions{Color: true, Width: 80}) }},
		{"demo.json.golden", func(b *bytes.Buffer) error { return WriteJSON(b, res, spec) }},
		{"demo.sarif.golden", func(b *bytes.Buffer) error { return WriteSARIF(b, res, spec, "1.2.3") }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", f.name), b.Bytes())
	}
}

func equalKinds(a, b []Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Options.Explain bounds the reports that get hb's explanation: the first
// in rank order; the result warns about the others.
func TestExplainBound(t *testing.T) {
	sp, trace := goldenInput(t)
	full, err := Detect(context.Background(), sp, []string{trace}, Options{Explain: DefaultExplain})
	if err != nil {
		t.Fatal(err)
	}
	explained := func(res *Result) []bool {
		var out []bool
		for _, r := range res.Reports {
			out = append(out, r.Example.Concurrent != nil && len(r.Example.Concurrent.Missing) > 0)
		}
		return out
	}
	all := explained(full)
	first := slices.Index(all, true)
	if first < 0 || len(full.Warnings) != 0 {
		t.Fatalf("explained %v, warnings %q: want some report explained and no warning", all, full.Warnings)
	}
	res, err := Detect(context.Background(), sp, []string{trace}, Options{Explain: first + 1})
	if err != nil {
		t.Fatal(err)
	}
	got := explained(res)
	want := slices.Clone(all)
	for i := first + 1; i < len(want); i++ {
		want[i] = false
	}
	if !slices.Equal(got, want) {
		t.Errorf("Explain %d: explained %v, want %v", first+1, got, want)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], fmt.Sprintf("the first %d of the %d reports", first+1, len(res.Reports))) {
		t.Errorf("Explain %d: warnings %q", first+1, res.Warnings)
	}
}

// Options.Ops hears of every op of every read of every trace: two reads
// of each, a third of one with reports (for their examples' origins), and
// one more of a trace whose reports are explained.
func TestOpsProgress(t *testing.T) {
	sp, trace := goldenInput(t)
	all, _ := readOps(t, trace, traces.NewSymbols())
	n := int64(len(all))
	for _, tt := range []struct {
		explain int
		reads   int64
	}{{0, 3}, {DefaultExplain, 4}} {
		var ops atomic.Int64
		_, err := Detect(context.Background(), sp, []string{trace, trace}, Options{Explain: tt.explain, Ops: func(n int) { ops.Add(int64(n)) }})
		if err != nil {
			t.Fatal(err)
		}
		// The golden trace is given twice; explanations read it once
		// (the examples are of the first).
		want := 2*3*n + (tt.reads-3)*n
		if got := ops.Load(); got != want {
			t.Errorf("Explain %d: %d ops heard of, want %d (%d ops in the trace)", tt.explain, got, want, n)
		}
	}
}
