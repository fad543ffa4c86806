package detect

import (
	"context"
	"testing"
)

// TestOriginChains checks a report's chains of origins, which the passes
// do not keep but read again (readOrigins): every link back to the
// common origin, with the handler that sent the link before and how.
func TestOriginChains(t *testing.T) {
	onUpdate, onPause := "Act.onUpdateResults", "Act.onPause"
	s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "A")
	s.run("A", "Act.a", postE("B")).run("B", "Act.b", postE("C")).post("T2", "E2")
	s.run("C", onUpdate, rd("p", o2)).run("E2", onPause, wr("p", null))
	path := s.file(t, t.TempDir(), "t.jsonl")
	res, err := Detect(context.Background(), makeSpec(t, nonnullP(onUpdate)), []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reports) != 1 || res.Reports[0].Example.Concurrent == nil {
		t.Fatalf("want one report of two concurrent events, got %+v", res.Reports)
	}
	w := res.Reports[0].Example.Concurrent
	want := [2][]Link{
		{
			{Task: "C", Thread: "main", Handler: onUpdate, Via: "posted"},
			{Task: "B", Thread: "main", Handler: "Act.b", Via: "posted"},
			{Task: "A", Thread: "main", Handler: "Act.a", Via: "posted"},
			{Task: "T1", Via: "forked"},
			{Task: "main"},
		},
		{
			{Task: "E2", Thread: "main", Handler: onPause, Via: "posted"},
			{Task: "T2", Via: "forked"},
			{Task: "main"},
		},
	}
	if w.Common != "main" {
		t.Errorf("common origin %q, want main", w.Common)
	}
	for i := range want {
		if len(w.Chains[i]) != len(want[i]) {
			t.Errorf("chain %d: %+v, want %+v", i, w.Chains[i], want[i])
			continue
		}
		for j, l := range w.Chains[i] {
			l.Line, l.Src = 0, ""
			if l != want[i][j] {
				t.Errorf("chain %d, link %d: %+v, want %+v", i, j, l, want[i][j])
			}
		}
	}
}
