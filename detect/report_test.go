package detect

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestArrayElements: conditions on two elements of one array, each
// required by one event and killed by a concurrent one, are one report.
func TestArrayElements(t *testing.T) {
	s := newScript().write("main", "[0]", o2).write("main", "[1]", o2)
	s.worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
	s.run("E1", "Act.onEnd", rd("[0]", o2), rd("[1]", o2))
	s.run("E2", "Act.onLoad", wr("[0]", null), wr("[1]", null))
	path := s.file(t, t.TempDir(), "a.jsonl")
	sp := makeSpec(t,
		specCond{handler: "Act.onEnd", template: "nonnull", vars: []string{"this[0]"}},
		specCond{handler: "Act.onEnd", template: "nonnull", vars: []string{"this[1]"}})
	res, err := Detect(context.Background(), sp, []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reports) != 1 {
		t.Fatalf("%d reports, want 1", len(res.Reports))
	}
	r := res.Reports[0]
	if r.Findings != 2 || r.Conditions != 2 || r.Pattern != "Act.onEnd: this[i] != null" || r.Condition.Text != "Act.onEnd: this[0] != null" {
		t.Errorf("report: %d findings, %d conditions, pattern %q, condition %q", r.Findings, r.Conditions, r.Pattern, r.Condition.Text)
	}
}

// TestRank checks the order of reports: violations first, then reports on
// bounds learned from the values seen last; within those, kind, then
// support, then findings, then names.
func TestRank(t *testing.T) {
	mk := func(kind Kind, support int64, findings int, h string) *Report {
		return &Report{Kind: kind, Condition: Condition{Support: support, Text: "c", Template: "nonnull"}, Findings: findings, Handlers: []string{h}}
	}
	bound := func(r *Report, template string) *Report { r.Condition.Template = template; return r }
	rs := []*Report{
		mk(GenKill, 900, 9, "a"), mk(GenReq, 10, 1, "b"), mk(ReqKill, 10, 1, "c"), mk(ReqKill, 50, 1, "d"),
		mk(Violation, 1, 1, "e"), mk(ReqKill, 50, 3, "f"), mk(ReqKill, 50, 3, "e"),
		bound(mk(ReqKill, 900, 9, "w"), "range"), bound(mk(Violation, 1, 1, "v"), "lower"), bound(mk(GenReq, 900, 9, "x"), "upper"),
	}
	rank(rs)
	var got []string
	for i, r := range rs {
		if r.ID != i+1 {
			t.Errorf("report %d has id %d", i, r.ID)
		}
		got = append(got, r.Handlers[0])
	}
	if want := []string{"e", "v", "e", "f", "d", "c", "b", "a", "w", "x"}; !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}

// TestDeterministic: the same input gives the same bytes, whatever the
// number of workers.
func TestDeterministic(t *testing.T) {
	sp, trace := goldenInput(t)
	var outs []string
	for _, workers := range []int{1, 2, 4} {
		res, err := Detect(context.Background(), sp, []string{trace, trace, trace}, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, res, "s"); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] || outs[0] != outs[2] {
		t.Error("the output depends on the number of workers")
	}
}

// TestFold: reports on one condition are one report, the highest-ranked,
// with the others folded into it: onUse relies on db != null, onPause
// breaks it (REQ-KILL), onResume makes it true again (GEN-REQ with a later
// onUse, GEN-KILL with onPause), none of them ordered.
func TestFold(t *testing.T) {
	s := newScript().write("main", "db", o2)
	s.worker("T1").worker("T2").worker("T3").worker("T4")
	s.post("T1", "E1").post("T2", "E2").post("T3", "E3").post("T4", "E4")
	s.run("E1", "Act.onUse", rd("db", o2))
	s.run("E2", "Act.onPause", wr("db", null))
	s.run("E3", "Act.onResume", wr("db", o3))
	s.run("E4", "Act.onUse", rd("db", o3))
	path := s.file(t, t.TempDir(), "a.jsonl")
	sp := makeSpec(t, specCond{handler: "Act.onUse", template: "nonnull", vars: []string{"this.db"}})
	res, err := Detect(context.Background(), sp, []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reports) != 1 {
		for _, r := range res.Reports {
			t.Logf("report %d: %s %v", r.ID, r.Kind, r.Handlers)
		}
		t.Fatalf("%d reports, want 1", len(res.Reports))
	}
	r := res.Reports[0]
	if r.ID != 1 || r.Kind != ReqKill || !slices.Equal(r.Handlers, []string{"Act.onPause", "Act.onUse"}) {
		t.Errorf("report %d: %s %v; want 1: REQ-KILL onPause / onUse", r.ID, r.Kind, r.Handlers)
	}
	var related []string
	for _, rel := range r.Related {
		related = append(related, fmt.Sprintf("%s %v", rel.Kind, rel.Handlers))
	}
	if want := []string{"GEN-REQ [Act.onResume Act.onUse]", "GEN-KILL [Act.onPause Act.onResume]"}; !slices.Equal(related, want) {
		t.Errorf("folded: %q, want %q", related, want)
	}
	if got := len(r.Pairs()); got != 3 {
		t.Errorf("%d pairs, want 3 (its own and the two folded)", got)
	}
}
