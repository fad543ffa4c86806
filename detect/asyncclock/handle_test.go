package asyncclock

import (
	"errors"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// handleCheck is what checkHandles saw.
type handleCheck struct {
	apart  int // signals that found the handle's last point unknown to them, and kept it apart
	joined int // handles seen holding a join of points (past the most kept apart)
	atSkip int // signals that dropped a handle's joined time, as they covered its point
}

// checkHandles steps tr and checks, after every signal and wait, that the
// handle's time (its last point, its earlier points and its joined time)
// is the join of every signal the handle had since it was made, the
// obvious way; that none of its points knows another's top (or they
// would not be needed); and that the point its joined time records
// (Time.at) knows it.
func checkHandles(t *testing.T, name string, tr *trace, cfg Config, maxPoints int, seen *handleCheck) {
	t.Helper()
	e := New(tr.syms, cfg)
	e.handlePoints = maxPoints
	points := map[Epoch]Time{} // the time of every point so far (its last op's)
	type signals struct {
		h    *handle
		want Time // the join of its signals
	}
	byName := map[traces.Sym]*signals{}
	for i := range tr.ops {
		op := &tr.ops[i]
		var before handle
		if h := e.handles.get(op.Name); h != nil && op.Kind == traces.Signal {
			before = *h
		}
		if err := e.Step(op, tr.lines[i]); err != nil {
			if _, ok := errors.AsType[*ConflictError](err); ok {
				return
			}
			t.Fatalf("%s: line %d: %v", name, tr.lines[i], err)
		}
		points[e.Epoch()] = e.Time()
		if op.Kind != traces.Signal && op.Kind != traces.Wait {
			continue
		}
		h := e.handles.get(op.Name)
		s := byName[op.Name]
		if s == nil || s.h != h { // new, or forgotten (wide window) and made again
			s = &signals{h: h}
			byName[op.Name] = s
		}
		if op.Kind == traces.Signal {
			s.want = s.want.join(e.Time())
			if before.last.top != 0 && !e.Time().Covers(before.last.top) {
				seen.apart++
			}
			if before.t.at != 0 && !h.t.vector() {
				seen.atSkip++
			}
		}
		if h == nil {
			continue // a wait on a handle never signaled
		}
		line := tr.lines[i]
		if h.last.top == 0 || len(h.pts) > maxPoints {
			t.Fatalf("%s: line %d: handle with last point %v and %d earlier ones", name, line, h.last.top, len(h.pts))
		}
		got := h.last.join(h.t)
		for j, u := range h.pts {
			if h.last.Covers(u.top) {
				t.Fatalf("%s: line %d: the handle's last point %v knows an earlier one, %v", name, line, h.last, u.top)
			}
			for _, v := range h.pts[j+1:] {
				if v.Covers(u.top) || u.Covers(v.top) {
					t.Fatalf("%s: line %d: the handle's points %v and %v, one knows the other", name, line, u, v)
				}
			}
			got = got.join(u)
		}
		if !got.Leq(s.want) || !s.want.Leq(got) {
			t.Fatalf("%s: line %d: the handle holds %v, its signals join to %v", name, line, got, s.want)
		}
		if h.t.vector() {
			seen.joined++
		}
		if p := h.t.at; p != 0 {
			if pt, ok := points[p]; !ok || !h.t.Leq(pt) {
				t.Fatalf("%s: line %d: the handle's joined time %v records point %v, whose time %v (of an op: %v) does not know it", name, line, h.t, p, pt, ok)
			}
		}
	}
}

// TestHandlePoints checks handles (checkHandles) on random traces, with
// and without the wide window, keeping at most 1 to 3 earlier points
// apart, and on an app-shaped one, and that the checks saw points kept
// apart, joined past the most kept, and a joined time dropped by a
// signaller that knew it.
func TestHandlePoints(t *testing.T) {
	n := randomRuns(200, 40)
	var seen handleCheck
	for _, shape := range []genConfig{
		{ops: 250, workers: 3, loopers: 2, binders: 1},
		{ops: 400, workers: 6, loopers: 1, binders: 0},
	} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			g := shape
			g.seed = seed
			cfg := Config{}
			if seed%2 == 0 {
				cfg = Config{Window: time.Millisecond, WideWindow: true, GCEvery: 3}
			}
			checkHandles(t, "random", generate(g), cfg, 1+int(seed%3), &seen)
		}
	}
	events := 3_000
	if testing.Short() {
		events = 1_000
	}
	checkHandles(t, "app", generated(tracetest.App(events, 3)), Config{Window: time.Second, WideWindow: true}, maxHandlePoints, &seen)
	if seen.apart < n || seen.joined == 0 || seen.atSkip == 0 {
		t.Fatalf("%d signals kept a point apart, %d handles seen joined, %d joined times dropped: the test checks little", seen.apart, seen.joined, seen.atSkip)
	}
}
