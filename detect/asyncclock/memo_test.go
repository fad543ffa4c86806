package asyncclock

import (
	"errors"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces/tracetest"
)

// stepAll runs a fresh engine over tr with every begin's PRIORITY walk
// and every use of a memo checked (checkPriority, checkMemo). It returns
// the engine and the error that stopped it, if not a contradiction of the
// model.
func stepAll(tr *trace, cfg Config) (*Engine, error) {
	e := New(tr.syms, cfg)
	e.checkWalks = true
	for i := range tr.ops {
		if err := e.Step(&tr.ops[i], tr.lines[i]); err != nil {
			if _, ok := errors.AsType[*ConflictError](err); ok {
				return e, nil
			}
			return e, err
		}
	}
	return e, e.Finish()
}

// TestMemoWalks checks the walks' memos (see memos) at every use against
// the list they stand for, every begin's PRIORITY walk (reduced against a
// reference or not) against the lists, and the relation against the
// reference engine's, on random traces with collections as rare as on
// long runs (each one makes the memos stale; the equivalence test
// collects every three begins, which leaves them little use).
func TestMemoWalks(t *testing.T) {
	n := randomRuns(60, 15)
	var used int64
	for _, shape := range []genConfig{
		{ops: 250, workers: 2, loopers: 1, binders: 0},
		{ops: 400, workers: 3, loopers: 2, binders: 1},
	} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			for _, chaos := range []bool{false, true} {
				for _, window := range []time.Duration{0, 3 * time.Millisecond} {
					g := shape
					g.seed, g.chaos = seed, chaos
					tr := generate(g)
					cfg := Config{Window: window, WideWindow: seed%2 == 0, GCEvery: 1 << 20}
					e, err := stepAll(tr, cfg)
					if err != nil {
						t.Fatalf("seed %d, chaos %v, window %v: %v\n%s", seed, chaos, window, err, tr.text())
					}
					used += e.Stats().MemoWalks
					checkEquivalent(t, "memo", tr, cfg)
				}
			}
		}
	}
	if used == 0 {
		t.Fatal("no walk used a memo: the test checks nothing")
	}
	t.Logf("%d walks done by memos", used)
}

// TestMemoWalksApp checks the memos at every use on a trace shaped like
// an app's (tracetest.App), which uses them far more than random traces,
// and every PRIORITY walk's reference, some of them removed events (a
// removed event often follows another of its category and time).
func TestMemoWalksApp(t *testing.T) {
	events := 10_000
	if testing.Short() {
		events = 3_000
	}
	tr := generated(tracetest.App(events, 2))
	for _, cfg := range []Config{{Window: DefaultWindow, WideWindow: true}, {}} {
		e, err := stepAll(tr, cfg)
		if err != nil {
			t.Fatalf("window %v: %v", cfg.Window, err)
		}
		st := e.Stats()
		if st.MemoWalks == 0 {
			t.Fatalf("window %v: no walk used a memo: the test checks nothing", cfg.Window)
		}
		if e.resolvedRefs == 0 {
			t.Fatalf("window %v: no walk was reduced against a removed, resolved event: the test checks none", cfg.Window)
		}
		t.Logf("window %v: %d walks done by memos, %d walk steps, %d walks reduced against a resolved event", cfg.Window, st.MemoWalks, st.WalkSteps, e.resolvedRefs)
	}
}
