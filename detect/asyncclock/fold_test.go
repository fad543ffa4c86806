package asyncclock

import (
	"errors"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces/tracetest"
)

// foldRun is what an engine that folds a looper's aged ends into its
// window clock once it holds foldEvery of them computed for a trace.
type foldRun struct {
	times  []Time
	epochs []Epoch
	folded int64 // events folded into window clocks
	aged   int64 // signals aged into the wide window's old signals
	err    error // the error that stopped it, if not a contradiction of the model
}

func runFolding(tr *trace, cfg Config, foldEvery int) foldRun {
	e := New(tr.syms, cfg)
	e.foldEvery = foldEvery
	var r foldRun
	for i := range tr.ops {
		if err := e.Step(&tr.ops[i], tr.lines[i]); err != nil {
			if _, ok := errors.AsType[*ConflictError](err); !ok {
				r.err = err
			}
			break
		}
		r.times = append(r.times, e.Time())
		r.epochs = append(r.epochs, e.Epoch())
	}
	if r.err == nil && len(r.times) == len(tr.ops) {
		r.err = e.Finish()
	}
	r.folded = e.Stats().WindowFolded
	r.aged = e.Stats().SignalsAged
	return r
}

// checkFoldsAgree runs tr folding the aged ends at every begin (the
// window clock kept whole, as the obvious way) and in batches of 2 and
// of foldAged (ends kept apart, learned one by one, and tc skipped by
// the begins that know one that learned it), and fails t unless every
// operation gets the same epoch and the same time. The wide window's old
// signals are kept the same way (lazyJoin). It returns how many events
// were folded into window clocks and how many signals were aged.
func checkFoldsAgree(t *testing.T, name string, tr *trace, cfg Config) (folded, aged int64) {
	t.Helper()
	want := runFolding(tr, cfg, 1)
	if want.err != nil {
		t.Fatalf("%s: folding at every begin: %v", name, want.err)
	}
	for _, every := range []int{2, foldAged} {
		got := runFolding(tr, cfg, every)
		if got.err != nil {
			t.Fatalf("%s: folding every %d: %v", name, every, got.err)
		}
		if len(got.times) != len(want.times) {
			t.Fatalf("%s: folding every %d stopped after %d ops, at every begin after %d", name, every, len(got.times), len(want.times))
		}
		for i := range want.times {
			g, w := got.times[i], want.times[i]
			if got.epochs[i] != want.epochs[i] || !g.Leq(w) || !w.Leq(g) {
				t.Fatalf("%s: op %d (line %d): folding every %d gives %v at %v, at every begin %v at %v",
					name, i, tr.lines[i], every, got.epochs[i], g, want.epochs[i], w)
			}
		}
	}
	return want.folded, want.aged
}

// TestWindowFoldsAgree checks the lazily folded window clock and old
// signals (lazyJoin: aged, known, tc's point) against folding every aged
// end or signal at once, on random traces with a small window and on an
// app-shaped one whose window fills many times.
func TestWindowFoldsAgree(t *testing.T) {
	n := randomRuns(100, 20)
	var folded, aged int64
	for _, shape := range []genConfig{
		{ops: 250, workers: 1, loopers: 3, binders: 1},
		{ops: 400, workers: 2, loopers: 1, binders: 0},
	} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			g := shape
			g.seed = seed
			for _, gcEvery := range []int{3, 1 << 20} {
				cfg := Config{Window: time.Millisecond, WideWindow: seed%2 == 0, GCEvery: gcEvery}
				f, a := checkFoldsAgree(t, "random", generate(g), cfg)
				folded += f
				aged += a
			}
		}
	}
	events := 5_000
	if testing.Short() {
		events = 2_000
	}
	tr := generated(tracetest.App(events, 3))
	if folded < int64(n) {
		t.Fatalf("random traces: %d events folded into window clocks: the test checks little", folded)
	}
	if aged < int64(n) {
		t.Fatalf("random traces: %d signals aged: the test checks little", aged)
	}
	folded, aged = checkFoldsAgree(t, "app", tr, Config{Window: time.Second, WideWindow: true})
	if folded < int64(events)/2 {
		t.Fatalf("app trace: %d of %d events folded into window clocks: the test checks little", folded, events)
	}
	if aged < foldAged {
		t.Fatalf("app trace: %d signals aged: the test checks little", aged)
	}

}

// TestRecentFrom checks, after every op of an app's trace with a short
// window, that each thread's recentFrom, which fold reads instead of its
// oldest recent event, is that event's end time.
func TestRecentFrom(t *testing.T) {
	events := 3_000
	if testing.Short() {
		events = 1_000
	}
	tr := generated(tracetest.App(events, 3))
	e := New(tr.syms, Config{Window: 20 * time.Millisecond, GCEvery: 97})
	for i := range tr.ops {
		if err := e.Step(&tr.ops[i], tr.lines[i]); err != nil {
			t.Fatal(err)
		}
		for _, th := range e.threads {
			if len(th.recent) > 0 && th.recentFrom != th.recent[0].endTS {
				t.Fatalf("line %d: thread %s: recentFrom %v, its oldest recent event ended at %v", tr.lines[i], e.name(th.id), th.recentFrom, th.recent[0].endTS)
			}
		}
	}
	if folded := e.Stats().WindowFolded; folded < int64(events)/2 {
		t.Fatalf("%d of %d events folded into window clocks: the test checks little", folded, events)
	}
}
