package asyncclock

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces/tracetest"
)

// The equivalence tests run a few seconds' worth of traces with -short, a
// few more by default, and as many as -equiv says for a long run:
//
//	go test ./detect/asyncclock -run Equivalence -equiv 5000
var equivN = flag.Int("equiv", 0, "number of random traces per shape in the equivalence tests (0: by -short)")

// randomRuns is how many random traces a test of the engines runs: as
// many as -equiv says, or short with -short, or full.
func randomRuns(full, short int) int {
	switch {
	case *equivN > 0:
		return *equivN
	case testing.Short():
		return short
	}
	return full
}

// checkEquivalent fails t with a minimal trace if the engines disagree on tr.
func checkEquivalent(t *testing.T, name string, tr *trace, cfg Config) {
	t.Helper()
	err := compare(tr, cfg)
	if err == nil {
		return
	}
	small := shrink(tr, func(c *trace) bool { return compare(c, cfg) != nil })
	t.Fatalf("%s: the engines disagree (window %v, wide %v): %v\nminimal trace (%d of %d ops):\n%s\non it: %v",
		name, cfg.Window, cfg.WideWindow, err, len(small.ops), len(tr.ops), small.text(), compare(small, cfg))
}

func TestEquivalenceRandom(t *testing.T) {
	n := randomRuns(300, 60)
	shapes := []genConfig{
		{ops: 120, workers: 2, loopers: 2, binders: 2},
		{ops: 250, workers: 3, loopers: 1, binders: 0},
		{ops: 250, workers: 1, loopers: 3, binders: 1},
	}
	for _, shape := range shapes {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			for _, chaos := range []bool{false, true} {
				for _, window := range []time.Duration{0, 3 * time.Millisecond} {
					cfg := shape
					cfg.seed, cfg.chaos = seed, chaos
					// Every other seed with the wide window.
					checkEquivalent(t, "random", generate(cfg), Config{Window: window, WideWindow: seed%2 == 0})
				}
			}
		}
	}
}

// TestGeneratorCoverage makes sure the random traces exercise every rule,
// and that chaos mode gives both consistent and inconsistent traces: an
// equivalence test on traces without them would prove little.
func TestGeneratorCoverage(t *testing.T) {
	for _, chaos := range []bool{false, true} {
		rules := map[Rule]int{}
		bad := 0
		const n = 60
		for seed := uint64(1); seed <= n; seed++ {
			cfg := genConfig{seed: seed, ops: 250, chaos: chaos, workers: 2, loopers: 2, binders: 2}
			tr := generate(cfg)
			g, err := NewGraph(context.Background(), tr.syms, tr.ops, tr.lines, 3*time.Millisecond)
			if err != nil {
				bad++
			}
			for _, r := range g.edges {
				rules[r]++
			}
		}
		for r := PO; r < numRules; r++ {
			if rules[r] == 0 && r != IPCAsync { // IPCASYNC edges are mostly IPCHANDLE's too
				t.Errorf("chaos %v: no %s edge in %d traces", chaos, r, n)
			}
		}
		if !chaos && bad > 0 {
			t.Errorf("%d of %d traces from the model-following generator are inconsistent", bad, n)
		}
		if chaos && (bad < n/10 || bad > n*9/10) {
			t.Errorf("chaos: %d of %d traces inconsistent; want a mix", bad, n)
		}
		t.Logf("chaos %v: %d/%d inconsistent; edges by rule: %v", chaos, bad, n, rules)
	}
}

// TestEquivalenceTracetest is the proof: on traces of tracetest's Small
// shape, which cover every rule situation of the model, both engines order
// exactly the same pairs of operations and of events, with the window off
// (and, as a bonus, with a small one).
func TestEquivalenceTracetest(t *testing.T) {
	n := randomRuns(200, 20)
	var total tracetest.Coverage
	for seed := range int64(n) {
		tr := generated(tracetest.Small(seed))
		cov := tracetest.Measure(tr.ops)
		total.Add(&cov)
		checkEquivalent(t, fmt.Sprintf("tracetest.Small(%d)", seed), tr, Config{})
		if seed%4 == 0 {
			checkEquivalent(t, fmt.Sprintf("tracetest.Small(%d)", seed), tr, Config{Window: 20 * time.Millisecond, WideWindow: seed%8 == 0})
		}
	}
	for _, m := range total.Missing() {
		if m.String() != "error" && n >= 20 { // Small makes no error ops; they order nothing
			t.Errorf("the traces missed a situation: %v", m)
		}
	}
	t.Logf("%d traces; coverage:\n%s", n, total.String())
}

// TestLeanRunsReclaim checks that the engine, as compare runs it without
// KeepEvents (runEngineLean), reclaims events and recycles them on the
// traces of the equivalence tests: otherwise comparing those runs with
// the reference would prove nothing about reclamation.
func TestLeanRunsReclaim(t *testing.T) {
	for _, window := range []time.Duration{0, 20 * time.Millisecond} {
		var reclaimed, recycled int64
		for seed := range int64(4) {
			r := runEngineLean(generated(tracetest.Small(seed)), Config{Window: window})
			if r.err != nil {
				t.Fatalf("tracetest.Small(%d): %v", seed, r.err)
			}
			st := r.e.Stats()
			reclaimed += st.Reclaimed
			recycled += st.Recycled
		}
		if reclaimed == 0 || recycled == 0 {
			t.Errorf("window %v: the lean runs of 4 traces reclaimed %d events and recycled %d; want some of both", window, reclaimed, recycled)
		}
		t.Logf("window %v: %d reclaimed, %d recycled", window, reclaimed, recycled)
	}
}

// FuzzEquivalence lets the fuzzer pick the shape and seed of the random
// traces the engines must agree on:
//
//	go test -fuzz FuzzEquivalence -fuzztime 1m ./detect/asyncclock
func FuzzEquivalence(f *testing.F) {
	f.Add(uint64(1), uint16(120), uint8(2), uint8(2), uint8(2), false, uint16(0))
	f.Add(uint64(7), uint16(250), uint8(1), uint8(3), uint8(1), true, uint16(3))
	f.Fuzz(func(t *testing.T, seed uint64, ops uint16, workers, loopers, binders uint8, chaos bool, windowMS uint16) {
		cfg := genConfig{
			seed: seed, ops: 20 + int(ops%400), chaos: chaos,
			workers: 1 + int(workers%4), loopers: 1 + int(loopers%4), binders: int(binders % 3),
		}
		checkEquivalent(t, "fuzz", generate(cfg), Config{Window: time.Duration(windowMS%8) * time.Millisecond, WideWindow: windowMS&8 != 0})
	})
}
