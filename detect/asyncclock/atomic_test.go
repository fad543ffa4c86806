package asyncclock

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces/tracetest"
)

// TestSpanMayHold checks ATOMIC's per-chain summaries (span, tail)
// against a scan of the chain's intervals, as intervals are added at the
// end and dropped anywhere: it must never rule out a clock that an
// interval holds, and must be exact for the clocks of its recent
// intervals and after them.
func TestSpanMayHold(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 2_000 {
		e := New(nil, Config{})
		c := e.newChain(nil, false)
		ch := &e.chains[c]
		k := Clock(1 + r.IntN(3))
		for range 60 {
			if len(ch.intervals) > 0 && r.IntN(3) == 0 {
				i := r.IntN(len(ch.intervals))
				ch.intervals = append(ch.intervals[:i], ch.intervals[i+1:]...)
			} else {
				b := k
				k += Clock(1 + r.IntN(4))
				ch.intervals = append(ch.intervals, interval{begin: b, end: k})
				k += Clock(r.IntN(3)) // removed events' clocks: in no interval
			}
			e.setSpan(c)
			sp := &e.spans[c]
			ivs := ch.intervals
			for q := Clock(0); q <= k+1; q++ {
				in := false
				for _, iv := range ivs {
					in = in || iv.begin <= q && q < iv.end
				}
				got := q >= sp.lo && q < sp.hi && e.tails[c].mayHold(q)
				if in && !got {
					t.Fatalf("intervals %v: clock %d is in one, but the span %+v and tail %v rule it out", ivs, q, *sp, e.tails[c])
				}
				recent := len(ivs) <= tailLen || q >= ivs[len(ivs)-tailLen].begin
				if got && !in && recent {
					t.Fatalf("intervals %v: clock %d is in none of the recent ones, but the span %+v and tail %v may hold it", ivs, q, *sp, e.tails[c])
				}
			}
		}
	}
}

// TestAtomicScan checks every start ATOMIC was applied to (at begins and
// in the middle of events) against every interval of its looper's events
// (checkAtomic): the scan by lanes that differ from th.closed's and from
// what the walk looked at already must find every event whose begin the
// start knows but not its end. Random traces, with and without the
// window, and an app-shaped one, whose loopers have dozens of chains.
func TestAtomicScan(t *testing.T) {
	run := func(name string, tr *trace, cfg Config) int64 {
		t.Helper()
		e := New(tr.syms, cfg)
		e.checkAtomic = true
		for i := range tr.ops {
			if err := e.Step(&tr.ops[i], tr.lines[i]); err != nil {
				if _, ok := errors.AsType[*ConflictError](err); ok {
					break
				}
				t.Fatalf("%s: %v\n%s", name, err, tr.text())
			}
		}
		return e.atomicFound
	}
	var found int64
	for seed := uint64(1); seed <= uint64(randomRuns(150, 30)); seed++ {
		for _, chaos := range []bool{false, true} {
			for _, window := range []time.Duration{0, 3 * time.Millisecond} {
				g := genConfig{seed: seed, chaos: chaos, ops: 300, workers: 2, loopers: 1 + int(seed%3), binders: int(seed % 2)}
				cfg := Config{Window: window, WideWindow: seed%2 == 0}
				found += run(fmt.Sprintf("seed %d, chaos %v, window %v", seed, chaos, window), generate(g), cfg)
			}
		}
	}
	events := 5_000
	if testing.Short() {
		events = 2_000
	}
	app := generated(tracetest.App(events, 3))
	for _, cfg := range []Config{{Window: DefaultWindow, WideWindow: true}, {}} {
		n := run(fmt.Sprintf("app, window %v", cfg.Window), app, cfg)
		if n == 0 {
			t.Fatalf("app, window %v: ATOMIC found no event: the test checks nothing", cfg.Window)
		}
		found += n
	}
	t.Logf("ATOMIC found %d events", found)
}

// TestLanesDiffer checks lanesDiffer against a loop over the clocks, top
// bits included.
func TestLanesDiffer(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	values := []Clock{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1}
	for range 50_000 {
		var u, v [chunkSize]Clock
		for j := range u {
			u[j] = values[r.IntN(len(values))]
			switch r.IntN(3) {
			case 0:
				v[j] = u[j]
			case 1:
				v[j] = u[j] ^ 1<<r.IntN(32)
			default:
				v[j] = values[r.IntN(len(values))]
			}
		}
		m := lanesDiffer(&u, &v)
		for j := range u {
			if in := m>>j&1 != 0; in != (u[j] != v[j]) {
				t.Fatalf("lanesDiffer(%v, %v) = %b: lane %d wrong", u, v, m, j)
			}
		}
	}
}
