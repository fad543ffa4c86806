package asyncclock

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
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

// TestLanesDiffer checks lanesDiffer, in Go and (where the machine has
// it) with AVX2, against a loop over the clocks, top bits included.
func TestLanesDiffer(t *testing.T) {
	differs := map[string]func(u, t *[chunkSize]Clock) uint32{"lanesDifferGo": lanesDifferGo}
	if vecBlocks {
		differs["lanesDifferVec"] = lanesDifferVec
	}
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
		for name, differ := range differs {
			m := differ(&u, &v)
			for j := range u {
				if in := m>>j&1 != 0; in != (u[j] != v[j]) {
					t.Fatalf("%s(%v, %v) = %b: lane %d wrong", name, u, v, m, j)
				}
			}
		}
	}
}

// TestAtomicScanRandom checks atomicScan on random looper chains,
// intervals, closed starts and starts against the obvious: a loop over
// every interval of every chain of the looper. Each walk scans a few
// times, the start growing in between (as in atomic's later rounds), and
// a scan must find exactly the events whose interval holds the start's
// clock of a chain whose clock it has not looked at yet in the walk.
func TestAtomicScanRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for n := range 3_000 {
		e := New(nil, Config{})
		th := &thread{kind: traces.Looper}
		target := &event{}
		nchains := 1 + r.IntN(80) // up to three blocks
		var chains []Chain
		inside := map[Chain][]interval{}
		for range nchains {
			c := e.newChain(th, false)
			chains = append(chains, c)
			k := Clock(1 + r.IntN(3))
			for range r.IntN(6) {
				b := k
				k += Clock(1 + r.IntN(4))
				e.chains[c].intervals = append(e.chains[c].intervals, interval{begin: b, end: k, ev: &event{}})
				k += Clock(r.IntN(3))
			}
			e.setSpan(c)
			if len(e.chains[c].intervals) > 0 {
				th.addAtomic(c)
				inside[c] = e.chains[c].intervals
			}
		}
		in := func(c Chain, k Clock) *interval {
			for i := range inside[c] {
				if iv := &inside[c][i]; iv.begin <= k && k < iv.end {
					return iv
				}
			}
			return nil
		}
		// th.closed: clocks in no interval (at an end, in a gap, or 0).
		var cb builder
		cb.low = true
		for _, c := range chains {
			if r.IntN(4) == 0 {
				continue
			}
			k := Clock(r.IntN(40))
			for in(c, k) != nil {
				k++
			}
			cb.raise(c, k)
		}
		th.closed = cb.time(0)
		// The start: th.closed's blocks, or another time's.
		b := &builder{low: true}
		if r.IntN(4) == 0 {
			b.start(Time{})
		} else {
			b.start(th.closed)
		}
		w := &walk{e: e, target: target, b: b, atomicWalk: 1}
		looked := map[Chain]Clock{}
		for scan := range 4 {
			for range r.IntN(5) { // the start grows
				c := chains[r.IntN(len(chains))]
				b.raise(c, b.get(c)+Clock(r.IntN(6)))
				if r.IntN(8) == 0 && len(inside[c]) > 0 { // the target's own interval
					inside[c][0].ev = target
					e.chains[c].intervals[0].ev = target
				}
			}
			want := map[*event]bool{}
			for _, c := range chains {
				k := b.get(c)
				if iv := in(c, k); iv != nil && iv.ev != target && !(scan > 0 && looked[c] == k) && k != th.closed.Get(c) {
					want[iv.ev] = true
				}
				looked[c] = k
			}
			found, _ := w.atomicScan(th, nil)
			got := map[*event]bool{}
			for _, p := range found {
				got[p] = true
			}
			if len(got) != len(found) || len(got) != len(want) {
				t.Fatalf("walk %d, scan %d: found %d events (%d distinct), want %d", n, scan, len(found), len(got), len(want))
			}
			for p := range want {
				if !got[p] {
					t.Fatalf("walk %d, scan %d: an event whose interval holds the start's clock was not found", n, scan)
				}
			}
		}
	}
}

// TestAppendIntervalAsSetSpan checks appendInterval's and dropInterval's
// spans and tails, updated from the last ones, against setSpan's, made
// from all the chain's intervals, as intervals are appended and dropped
// (mostly the oldest, as the window drops them, but anywhere).
func TestAppendIntervalAsSetSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		e := New(nil, Config{})
		c := e.newChain(nil, false)
		ch := &e.chains[c]
		k := Clock(1 + r.IntN(3))
		for step := range 60 {
			var what string
			var dropped *event
			var before []interval // the array the intervals were in
			if n := len(ch.intervals); n > 0 && r.IntN(3) == 0 {
				i := 0
				if r.IntN(4) == 0 {
					i = r.IntN(n)
				}
				dropped = ch.intervals[i].ev
				before = ch.intervals[:cap(ch.intervals)]
				what = fmt.Sprintf("dropInterval of interval %d of %v", i, ch.intervals)
				e.dropInterval(dropped)
			} else {
				b := k
				k += Clock(1 + r.IntN(4))
				ev := &event{chain: c, beginClock: b, endClock: k, end: Time{top: MakeEpoch(c, k)}, refs: 2}
				what = fmt.Sprintf("appendInterval after %v", ch.intervals)
				e.appendInterval(c, interval{begin: b, end: k, ev: ev})
				k += Clock(r.IntN(3))
			}
			gotSpan, gotTail := e.spans[c], e.tails[c]
			e.setSpan(c)
			if gotSpan != e.spans[c] || gotTail != e.tails[c] {
				t.Fatalf("step %d, %s: made span %+v, tail %v; setSpan makes %+v, %v",
					step, what, gotSpan, gotTail, e.spans[c], e.tails[c])
			}
			if dropped != nil {
				if dropped.refs != 1 {
					t.Fatalf("step %d, %s: the event keeps %d references, want 1", step, what, dropped.refs)
				}
				for _, iv := range ch.intervals {
					if iv.ev == dropped {
						t.Fatalf("step %d, %s: the interval is still there", step, what)
					}
				}
				// The slots left behind hold no event for the collector.
				for _, iv := range before {
					if iv.ev == dropped {
						t.Fatalf("step %d, %s: a slot past the intervals still holds the event", step, what)
					}
				}
			}
		}
	}
}

// TestEmptyIntervalsLeftOut checks that a looper's event that published
// none of its clocks before its end (begin and end at one clock) gets no
// ATOMIC interval, and that every other one does, until its interval is
// dropped: the chains hold no empty interval, and an event's interval
// flag says whether one holds it. TestAtomicScan and the equivalence
// tests check that ATOMIC still finds what it must.
func TestEmptyIntervalsLeftOut(t *testing.T) {
	app := generated(tracetest.App(2_000, 3))
	for _, cfg := range []Config{{Window: DefaultWindow, WideWindow: true}, {}} {
		e := New(app.syms, cfg)
		var empty, kept int
		for i := range app.ops {
			op := &app.ops[i]
			if err := e.Step(op, app.lines[i]); err != nil {
				t.Fatalf("window %v: %v", cfg.Window, err)
			}
			if op.Kind != traces.End {
				continue
			}
			ev := e.events.get(op.Task)
			if ev == nil || ev.th.kind != traces.Looper {
				continue
			}
			if ev.beginClock == ev.endClock {
				empty++
			} else {
				kept++
			}
			if ev.interval != (ev.beginClock < ev.endClock) {
				t.Fatalf("window %v: event %s ended at clocks %d to %d with interval %v", cfg.Window, e.name(ev.id), ev.beginClock, ev.endClock, ev.interval)
			}
		}
		for c := range e.chains {
			for _, iv := range e.chains[c].intervals {
				if iv.begin >= iv.end || !iv.ev.interval {
					t.Fatalf("window %v: chain %d holds interval [%d, %d) of %s (its interval flag %v)", cfg.Window, c, iv.begin, iv.end, e.name(iv.ev.id), iv.ev.interval)
				}
			}
		}
		if empty == 0 || kept == 0 {
			t.Fatalf("window %v: %d looper events ended at their begin's clock, %d after: the test checks nothing", cfg.Window, empty, kept)
		}
	}
}
