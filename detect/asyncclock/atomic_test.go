package asyncclock

import (
	"math/rand/v2"
	"testing"
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

// TestAppendIntervalAsSetSpan checks appendInterval's span and tail,
// updated from the last ones, against setSpan's, made from all the
// chain's intervals, as intervals are appended and dropped anywhere.
func TestAppendIntervalAsSetSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		e := New(nil, Config{})
		c := e.newChain(nil, false)
		ch := &e.chains[c]
		k := Clock(1 + r.IntN(3))
		for step := range 40 {
			if len(ch.intervals) > 0 && r.IntN(3) == 0 {
				i := r.IntN(len(ch.intervals))
				ch.intervals = append(ch.intervals[:i], ch.intervals[i+1:]...)
				e.setSpan(c)
				continue
			}
			b := k
			k += Clock(1 + r.IntN(4))
			e.appendInterval(c, interval{begin: b, end: k})
			k += Clock(r.IntN(3))
			gotSpan, gotTail := e.spans[c], e.tails[c]
			e.setSpan(c)
			if gotSpan != e.spans[c] || gotTail != e.tails[c] {
				t.Fatalf("step %d, intervals %v: appendInterval made span %+v, tail %v; setSpan makes %+v, %v",
					step, ch.intervals, gotSpan, gotTail, e.spans[c], e.tails[c])
			}
		}
	}
}
