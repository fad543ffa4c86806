package asyncclock

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// TestWindowReclaims checks that the time window keeps the engine's
// metadata bounded where the trace keeps making new things: removed
// events (absorbed once resolved more than the window ago; without the
// window, the search for heirless events drops them) and, with the wide
// window, threads (a new thread takes the chain of one that ended more
// than the window ago) and signal handles (forgotten once their last
// signal is older than the window).
func TestWindowReclaims(t *testing.T) {
	const text = `{"licorice_trace":1}
{"op":"thread_begin","t":"L","kind":"looper","ts":0}
{"op":"attach","t":"L","q":"q","ts":0}
{"op":"thread_begin","t":"W1","ts":0}
{"op":"send","t":"W1","q":"q","e":"R","delay":5000,"ts":1}
{"op":"remove","t":"W1","e":"R","ts":2}
{"op":"send","t":"W1","q":"q","e":"B","delay":5000,"ts":3}
{"op":"begin","t":"B","thread":"L","ts":5003}
{"op":"end","t":"B","ts":5004}
{"op":"signal","t":"W1","m":"m1","ts":5005}
{"op":"thread_end","t":"W1","ts":5006}
{"op":"thread_begin","t":"W2","ts":200000}
{"op":"signal","t":"W2","m":"m2","ts":200001}
{"op":"send","t":"W2","q":"q","e":"A","ts":200002}
{"op":"begin","t":"A","thread":"L","ts":200003}
{"op":"end","t":"A","ts":200004}
`
	for _, c := range []struct {
		window             time.Duration
		wide               bool
		sameChain, rListed bool
		liveHandles        int
	}{
		{window: 0, sameChain: false, rListed: false, liveHandles: 2},
		{window: DefaultWindow, sameChain: false, rListed: false, liveHandles: 2},
		{window: DefaultWindow, wide: true, sameChain: true, rListed: false, liveHandles: 1},
	} {
		tr := parseTrace(t, text)
		cfg := Config{Window: c.window, WideWindow: c.wide}
		r := runEngine(tr, cfg)
		if r.err != nil {
			t.Fatal(r.err)
		}
		r.e.collect()
		w1, w2 := r.epochs[2].Chain(), r.epochs[10].Chain() // the begins of W1 and W2
		if got := w1 == w2; got != c.sameChain {
			t.Errorf("window %v, wide %v: W2 on W1's chain is %v, want %v", c.window, c.wide, got, c.sameChain)
		}
		if got := r.e.Stats().LiveHandles; got != c.liveHandles {
			t.Errorf("window %v, wide %v: %d handles held, want %d", c.window, c.wide, got, c.liveHandles)
		}
		if got := listed(r.e, tr.syms.Intern("R")); got != c.rListed {
			t.Errorf("window %v, wide %v: removed event R on its async-before list is %v, want %v", c.window, c.wide, got, c.rListed)
		}
	}
}

// listed reports whether event id is on an async-before list.
func listed(e *Engine, id traces.Sym) bool {
	for _, q := range e.queueOrder {
		for _, h := range q.heads {
			for _, x := range h.l.entries {
				if x.ev.id == id {
					return true
				}
			}
		}
	}
	return false
}

// TestStampedQueue checks stampedQueue against a plain slice, on random
// pushes and drops as the queue grows and shrinks, and that a queue
// whose length stays the same allocates nothing as it turns over.
func TestStampedQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var q stampedQueue
	var want []stamped
	moved := 0
	for step := range 40_000 {
		push := 3 // in tens of percent: the queue grows, then shrinks
		if step/10_000%2 == 0 {
			push = 7
		}
		if r.IntN(10) < push {
			s := stamped{ts: float64(step)}
			if len(q.buf) == cap(q.buf) && q.head > 0 {
				moved++
			}
			q.push(s)
			want = append(want, s)
		} else {
			n := r.IntN(min(len(want), 8) + 1)
			q.drop(n)
			want = want[n:]
		}
		got := q.times()
		if len(got) != len(want) {
			t.Fatalf("step %d: %d times, want %d", step, len(got), len(want))
		}
		for i := range got {
			if got[i].ts != want[i].ts {
				t.Fatalf("step %d: time %d is of %v, want %v", step, i, got[i].ts, want[i].ts)
			}
		}
	}
	if moved == 0 {
		t.Fatal("no push found the array full after drops: the test checks little")
	}
	var s stampedQueue
	for i := range 1000 {
		s.push(stamped{ts: float64(i)})
	}
	if allocs := testing.AllocsPerRun(5, func() {
		for range 20_000 {
			s.push(stamped{})
			s.drop(1)
		}
	}); allocs != 0 {
		t.Errorf("a queue of 1000 times turning over allocated %v times per 20,000 pushes", allocs)
	}
}

// TestCollectingDropsEndedThreads checks that a collection looks only at
// the threads that still hold something it may reclaim: a trace that
// begins and ends many workers must not leave them all on the list (each
// collection would look at every thread ever begun).
func TestCollectingDropsEndedThreads(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"licorice_trace":1}
{"op":"thread_begin","t":"L","kind":"looper","ts":0}
{"op":"attach","t":"L","q":"q","ts":0}
`)
	const workers = 500
	ts := 1
	for i := range workers {
		fmt.Fprintf(&b, `{"op":"thread_begin","t":"W%d","ts":%d}
{"op":"send","t":"W%d","q":"q","e":"E%d","ts":%d}
{"op":"begin","t":"E%d","thread":"L","ts":%d}
{"op":"end","t":"E%d","ts":%d}
{"op":"thread_end","t":"W%d","ts":%d}
`, i, ts, i, i, ts+1, i, ts+2, i, ts+3, i, ts+4)
		ts += 5
	}
	fmt.Fprintf(&b, `{"op":"thread_begin","t":"V","ts":%d}
`, ts)
	for _, window := range []time.Duration{0, DefaultWindow} {
		r := runEngine(parseTrace(t, b.String()), Config{Window: window})
		if r.err != nil {
			t.Fatal(r.err)
		}
		r.e.collect()
		if got := len(r.e.collecting); got != 2 { // L and V run
			t.Errorf("window %v: %d threads left to collect after %d workers ended, want 2 (the running ones)", window, got, workers)
		}
		if got := len(r.e.threads); got != workers+2 {
			t.Errorf("window %v: %d threads known, want %d (joins look them up)", window, got, workers+2)
		}
	}
}
