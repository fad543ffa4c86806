package asyncclock

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

type recycleCase struct {
	name string
	tr   *trace
	cfg  Config
}

// recycleCases are traces on which the engine reclaims many events (it
// keeps none for queries): a binder thread's long run, random ones with
// and without the window, collecting after every few begins, and an app
// trace.
func recycleCases(t *testing.T) []recycleCase {
	tr := parseTrace(t, binderRun(200)) // the recent events' references go together every 64 on B
	cs := []recycleCase{{"binderRun(200)", tr, Config{}}}
	for seed := range uint64(randomRuns(12, 3)) {
		for _, window := range []time.Duration{0, 3 * time.Millisecond} {
			g := genConfig{seed: seed + 1, ops: 300, workers: 2, loopers: 2, binders: 1}
			cs = append(cs, recycleCase{fmt.Sprintf("random %d, window %v", seed+1, window), generate(g),
				Config{Window: window, WideWindow: seed%2 == 0, GCEvery: 3}})
		}
		cs = append(cs, recycleCase{fmt.Sprintf("tracetest.Small(%d)", seed), generated(tracetest.Small(int64(seed))),
			Config{Window: 20 * time.Millisecond, GCEvery: 5}})
	}
	n := 3000
	if testing.Short() {
		n = 1000
	}
	// The benchmarks' window is longer than the short trace lasts, and
	// their first collection (after 1024 begins) comes late in it.
	cs = append(cs, recycleCase{fmt.Sprintf("tracetest.App(%d, 1)", n), generated(tracetest.App(n, 1)), Config{Window: 100 * time.Millisecond, GCEvery: 64}})
	return cs
}

// TestRecycledEventsUnreachable checks recycle's premise: once an event
// is reclaimed and not on its queue's pending list, nothing holds it but
// the rings of events begun (which check the send number they noted), so
// that a send may fill it as another event. With the test hook in place
// of the spare list, it keeps a weak pointer to every event recycle
// would have handed out, and after each step that added some it collects
// garbage and fails if one of them is still reachable, other than from a
// ring or the stale tail of ATOMIC's scratch slice (unreadHolds).
func TestRecycledEventsUnreachable(t *testing.T) {
	for _, c := range recycleCases(t) {
		e := New(c.tr.syms, c.cfg)
		var recycled []weak.Pointer[event]
		e.recycled = func(ev *event) { recycled = append(recycled, weak.Make(ev)) }
		checked := 0
		for i := range c.tr.ops {
			if err := e.Step(&c.tr.ops[i], c.tr.lines[i]); err != nil {
				t.Fatalf("%s: op %d: %v", c.name, i, err)
			}
			if checked == len(recycled) {
				continue
			}
			runtime.GC()
			inRing := unreadHolds(e)
			for _, w := range recycled[checked:] {
				if ev := w.Value(); ev != nil && !inRing[ev] {
					t.Fatalf("%s: after op %d (%v), event %s, reclaimed and not queued, is still reachable: a send could not fill it as another",
						c.name, i, c.tr.ops[i].Kind, e.name(ev.id))
				}
			}
			checked = len(recycled)
		}
		if len(recycled) == 0 {
			t.Fatalf("%s: no event reclaimed: the case tests nothing", c.name)
		}
	}
}

// unreadHolds returns the events that the engine holds where it does not
// read a recycled one: the rings of events begun (recentBegun, whose
// readers compare send numbers), and the scratch slice of ATOMIC's scans
// beyond its length (each scan appends to it from its start).
func unreadHolds(e *Engine) map[*event]bool {
	held := map[*event]bool{}
	for _, ev := range e.atomicScratch[:cap(e.atomicScratch)] {
		held[ev] = true
	}
	for _, q := range e.queueOrder {
		if q.lastBegun == nil {
			continue
		}
		for _, s := range q.lastBegun {
			if s == nil {
				continue
			}
			for _, ev := range s.recent.ev {
				if ev != nil {
					held[ev] = true
				}
			}
		}
	}
	return held
}

// TestRecycleKeepsTimes checks that recycling events changes nothing the
// engine computes: every op's time and the statistics are those of a run
// that leaves reclaimed events to the garbage collector, and every op's
// time that of a run that reclaims none (Config.KeepEvents), so that
// nothing reclaims an event, or clears its times, too early. It also
// checks that sends did fill recycled events. The events on the spare
// list keep their send, begin and list until a send fills them (recycle):
// after every op it replaces those with others (poisonSpare), so that it
// fails if anything reads them there.
func TestRecycleKeepsTimes(t *testing.T) {
	for _, c := range recycleCases(t) {
		fresh := New(c.tr.syms, c.cfg)
		fresh.recycled = func(*event) {}
		kept := c.cfg
		kept.KeepEvents = true
		keep := New(c.tr.syms, kept)
		e := New(c.tr.syms, c.cfg)
		filled := 0
		for i := range c.tr.ops {
			op := &c.tr.ops[i]
			if op.Kind == traces.Send && len(e.spare) > 0 {
				filled++
			}
			err := e.Step(op, c.tr.lines[i])
			poisonSpare(e)
			for _, o := range []struct {
				name string
				e    *Engine
			}{{"without recycling", fresh}, {"keeping events", keep}} {
				want := o.e.Step(op, c.tr.lines[i])
				if fmt.Sprint(err) != fmt.Sprint(want) {
					t.Fatalf("%s: op %d: error %v, %s %v", c.name, i, err, o.name, want)
				}
				if got, want := e.Time(), o.e.Time(); err == nil && (e.Epoch() != o.e.Epoch() || !got.Leq(want) || !want.Leq(got)) {
					t.Fatalf("%s: op %d (%v): time %v at %v, %s %v at %v", c.name, i, op.Kind, got, e.Epoch(), o.name, want, o.e.Epoch())
				}
			}
			if err != nil {
				break
			}
		}
		if err, want := e.Finish(), fresh.Finish(); fmt.Sprint(err) != fmt.Sprint(want) {
			t.Fatalf("%s: Finish: %v, want %v", c.name, err, want)
		}
		got, want := e.Stats(), fresh.Stats()
		if got.Recycled != int64(filled) {
			t.Errorf("%s: Stats.Recycled %d; %d sends filled a recycled event", c.name, got.Recycled, filled)
		}
		if got.Recycled = 0; got != want {
			t.Errorf("%s: stats %+v, want %+v (but Recycled)", c.name, got, want)
		}
		if filled == 0 {
			t.Errorf("%s: no send filled a recycled event", c.name)
		}
	}
}

// poisonSpare replaces what the events on e's spare list keep of their
// past (recycle) with a send and a begin that know a chain's every clock
// and a list of no queue, which a read would not take for theirs.
func poisonSpare(e *Engine) {
	bad := Time{top: MakeEpoch(0, math.MaxUint32)}
	for _, ev := range e.spare {
		ev.send, ev.begin, ev.list = bad, bad, &sendList{}
	}
}

// TestBinderEntryKeepsEnd checks that a binder event that ends as the
// 64th of its thread's recent events, whose references go with them at
// once, keeps the one its binder list takes for IPCHANDLE: the next
// event the thread begins learns its end (it was reclaimed, its end
// cleared or itself recycled, when endOp released the recent events
// before endBinder took that reference).
func TestBinderEntryKeepsEnd(t *testing.T) {
	const n = 65
	tr := parseTrace(t, binderRun(n))
	e := New(tr.syms, Config{})
	var endPrev Epoch // of S(n-1)
	for i := range tr.ops {
		op := &tr.ops[i]
		if err := e.Step(op, tr.lines[i]); err != nil {
			t.Fatal(err)
		}
		switch {
		case op.Kind == traces.End && e.name(op.Task) == fmt.Sprintf("S%d", n-1):
			endPrev = e.Epoch()
		case op.Kind == traces.Begin && e.name(op.Task) == fmt.Sprintf("S%d", n):
			if !e.Time().Covers(endPrev) {
				t.Fatalf("the begin of S%d does not know the end of S%d (%v): IPCHANDLE lost it", n, n-1, endPrev)
			}
		}
	}
	if endPrev == 0 {
		t.Fatal("the trace has no end of the event before last")
	}
}

// binderRun is a trace in which a binder thread runs n sync events, S1 to
// Sn, each sent just before it begins.
func binderRun(n int) string {
	var b strings.Builder
	b.WriteString(`{"licorice_trace":1}
{"op":"thread_begin","t":"B","kind":"binder"}
{"op":"attach","t":"B","q":"bq"}
{"op":"thread_begin","t":"W"}
`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"op":"send","t":"W","q":"bq","e":"S%d"}`+"\n", i)
		fmt.Fprintf(&b, `{"op":"begin","t":"S%d","thread":"B"}`+"\n"+`{"op":"end","t":"S%d"}`+"\n", i, i)
	}
	return b.String()
}
