package detect

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// randomScript writes a random trace over o1.p: workers and events post
// events to main or to a second looper L, which run them in the order they
// were sent; events and
// workers read p (with its current value) and write it (null, o2, o3);
// events update a count o1.n in place or set it; events signal and
// workers wait. Handlers are Act.h1 ... Act.h4.
func randomScript(rng *rand.Rand) *script { return randomScriptOn(newScript(), rng) }

// randomScriptOn is randomScript, adding to s.
func randomScriptOn(s *script, rng *rand.Rand) *script {
	vals := []string{null, o2, o3}
	cur := vals[rng.IntN(3)]
	s.write("main", "p", cur)
	n := 100 // a count events update in place (o.n--), or set
	s.write("main", "n", strconv.Itoa(n))
	workers := []string{"T1", "T2", "T3"}[:1+rng.IntN(3)]
	for _, w := range workers {
		s.worker(w)
	}
	loopers := []string{"main"}
	if rng.IntN(2) == 0 {
		s.looper("L")
		loopers = append(loopers, "L")
	}
	pending := map[string][]string{}
	signals := 0
	events := 0
	// newEvent returns a new event and the queue it goes to.
	newEvent := func() (string, string) {
		events++
		e := fmt.Sprintf("E%d", events)
		q := loopers[rng.IntN(len(loopers))]
		pending[q] = append(pending[q], e)
		return e, q
	}
	anyPending := func() bool { return len(pending["main"])+len(pending["L"]) > 0 }
	for step := 0; step < 12+rng.IntN(12); step++ {
		w := workers[rng.IntN(len(workers))]
		switch r := rng.IntN(10); {
		case r < 3 || !anyPending():
			e, q := newEvent()
			s.sendTo(w, q, e)
		case r == 3:
			cur = vals[rng.IntN(3)]
			s.write(w, "p", cur)
		case r == 4 && signals > 0:
			s.op(w, "wait", fmt.Sprintf(`"m":"m%d"`, 1+rng.IntN(signals)))
		default:
			q := loopers[rng.IntN(len(loopers))]
			if len(pending[q]) == 0 {
				q = loopers[len(loopers)-1-slices.Index(loopers, q)]
			}
			e := pending[q][0]
			pending[q] = pending[q][1:]
			h := fmt.Sprintf("Act.h%d", 1+rng.IntN(4))
			var body []func(*script, string)
			for range 1 + rng.IntN(4) {
				switch rng.IntN(6) {
				case 4:
					body = append(body, inPlace("n", strconv.Itoa(n), strconv.Itoa(n-1)))
					n--
				case 5:
					old := n
					n = 100 + rng.IntN(10)
					body = append(body, rd("n", strconv.Itoa(old)), wr("n", strconv.Itoa(n)))
				case 0:
					body = append(body, rd("p", cur))
				case 1:
					cur = vals[rng.IntN(3)]
					body = append(body, wr("p", cur))
				case 2:
					e2, q2 := newEvent()
					body = append(body, func(s *script, e string) { s.sendTo(e, q2, e2) })
				case 3:
					signals++
					body = append(body, signal(fmt.Sprintf("m%d", signals)))
				}
			}
			s.runOn(e, q, h, body...)
		}
	}
	return s
}

// randomSpec: h1 and h2 require p != null (one variable), h3 requires
// p == null, h4 nothing.
func randomSpec(t testing.TB) *learn.Spec {
	return makeSpec(t, nonnullP("Act.h1"), nonnullP("Act.h2"),
		specCond{handler: "Act.h3", template: "null", vars: []string{"this.p"}})
}

// TestAgainstReference checks detection on random traces against slow,
// obvious versions of its clever parts: happens-before between touches
// from the reference engine (an explicit graph) instead of the clocks
// kept at their ops; minor GENs and KILLs by the words of §5.2.2; and
// REQ-KILL pairs over all REQs before a KILL instead of the last of each
// chain and condition.
func TestAgainstReference(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	sp := randomSpec(t)
	dir := t.TempDir()
	mids, midPairs := 0, 0
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		path := randomScript(rng).file(t, dir, fmt.Sprintf("r%d.jsonl", seed))
		// Every other trace keeps the REQs' whole times.
		projectAt := maxProjected
		if seed%2 == 1 {
			projectAt = -1
		}
		a := passesAll(t, sp, path, 0, projectAt)
		if a.tk == nil {
			continue
		}
		mids += a.stats.MidKills
		for _, f := range a.findings {
			if f.b.role == midKill {
				midPairs++
			}
		}
		g, ops := referenceGraph(t, path, a.tk.syms)
		readFrom, causes := referenceReads(ops)
		if err := compare(a, g, readFrom, causes); err != nil {
			data, _ := os.ReadFile(path)
			t.Fatalf("seed %d: %v\n%s", seed, err, data)
		}
	}
	if mids == 0 || midPairs == 0 {
		t.Errorf("%d mid-event KILLs and %d findings with one in %d traces: the generator no longer exercises them", mids, midPairs, n)
	}
	t.Logf("%d mid-event KILLs, %d findings with one", mids, midPairs)
}

// readOps returns the ops of the trace at path, with syms, and their
// lines.
func readOps(t *testing.T, path string, syms *traces.Symbols) ([]traces.Op, []int) {
	t.Helper()
	r, err := traces.Open(path, traces.WithSymbols(syms))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ops []traces.Op
	var lines []int
	for {
		var op traces.Op
		if err := r.Next(&op); err == io.EOF {
			return ops, lines
		} else if err != nil {
			t.Fatal(err)
		}
		ops, lines = append(ops, op), append(lines, r.Line())
	}
}

// referenceReads is, for each event, the events whose writes it read
// while it ran (the last write to the location before the read), with
// the number of the first op that did: the slow, obvious version of the
// tracker's readFrom, over every write; and the causes of a task, with
// the op number before which their reads count: an event's sender if
// that is an event (before the send), else the signals the sending
// thread waited on before the send (its first 4 waits; before the
// signal); a thread's, those it waited on before a given op.
func referenceReads(ops []traces.Op) (map[[2]traces.Sym]int64, func(task traces.Sym, before int64) []cause) {
	out := map[[2]traces.Sym]int64{}
	running := map[traces.Sym]bool{}
	events := map[traces.Sym]bool{}
	sender := map[traces.Sym]cause{}
	type wait struct {
		signal cause
		pos    int64
	}
	waited := map[traces.Sym][]wait{}
	// carried is, for a location, the writers its value carries: the
	// last writer, and those before it while each write updated the value
	// in place (from the src of its event's last read there).
	carried := map[traces.Location][]traces.Sym{}
	lastRead := map[traces.Sym]map[traces.Location]traces.Sym{}
	for i := range ops {
		op, pos := &ops[i], int64(i+1)
		switch op.Kind {
		case traces.Send:
			events[op.Event], sender[op.Event] = true, cause{op.Task, pos}
		case traces.Begin:
			running[op.Task] = true
		case traces.End:
			delete(running, op.Task)
		case traces.Write:
			if running[op.Task] && op.Src != traces.NoSym && lastRead[op.Task][op.Loc] == op.Src {
				carried[op.Loc] = append(carried[op.Loc], op.Task)
			} else {
				carried[op.Loc] = []traces.Sym{op.Task}
			}
		case traces.Read:
			if !running[op.Task] {
				continue
			}
			for _, w := range carried[op.Loc] {
				if k := [2]traces.Sym{op.Task, w}; w != op.Task && events[w] {
					if _, ok := out[k]; !ok {
						out[k] = pos
					}
				}
			}
			if lastRead[op.Task] == nil {
				lastRead[op.Task] = map[traces.Location]traces.Sym{}
			}
			lastRead[op.Task][op.Loc] = op.Src
		case traces.Wait:
			if events[op.Task] || len(waited[op.Task]) == 4 {
				continue
			}
			for j := i - 1; j >= 0; j-- {
				if ops[j].Kind == traces.Signal && ops[j].Name == op.Name {
					waited[op.Task] = append(waited[op.Task], wait{cause{ops[j].Task, int64(j + 1)}, pos})
					break
				}
			}
		}
	}
	waitedBefore := func(th traces.Sym, before int64) []cause {
		var cs []cause
		for _, w := range waited[th] {
			if w.pos < before {
				cs = append(cs, w.signal)
			}
		}
		return cs
	}
	causes := func(task traces.Sym, before int64) []cause {
		if !events[task] {
			return waitedBefore(task, before)
		}
		switch s := sender[task]; {
		case s.task == traces.NoSym:
			return nil
		case events[s.task]:
			return []cause{s}
		default:
			return waitedBefore(s.task, s.pos)
		}
	}
	return out, causes
}

func referenceGraph(t *testing.T, path string, syms *traces.Symbols) (*asyncclock.Graph, []traces.Op) {
	t.Helper()
	ops, lines := readOps(t, path, syms)
	g, err := asyncclock.NewGraph(context.Background(), syms, ops, lines, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g, ops
}

// compare checks a's touches and findings against the reference graph
// and reads-from relation (readFrom[{K, R}]: event K read what event R
// wrote).
func compare(a *analysis, g *asyncclock.Graph, readFrom map[[2]traces.Sym]int64, causes func(traces.Sym, int64) []cause) error {
	type pair struct{ kind, x, y string }
	var want, got []pair
	for id, c := range a.conds.list {
		ts := c.touches
		// x happens before y: the last op of x before the first of y.
		ref := func(x, y *touch) bool {
			return x.unit != y.unit && g.Before(asyncclock.Node(x.last-1), asyncclock.Node(y.first-1))
		}
		for i := range ts {
			for j := range ts {
				// Detection never asks whether a REQ happens before
				// another (a REQ keeps its time projected on the
				// condition's writers: touch.covers).
				if ts[i].role == req && ts[j].role == req {
					continue
				}
				if x, y := &ts[i], &ts[j]; before(x, y) != ref(x, y) {
					return fmt.Errorf("touches at ops %d and %d: clocks say ordered=%v, the reference %v", x.pos, y.pos, before(x, y), ref(x, y))
				}
			}
		}
		for i := range ts {
			e := &ts[i]
			if e.role == req || e.role == midKill {
				continue
			}
			opposite := kill
			if e.role == kill {
				opposite = gen
			}
			isMinor := true
			for j := range ts {
				r := &ts[j]
				if r.role != req || r.unit == e.unit || ref(r, e) {
					continue
				}
				between := false
				for k := range ts {
					if o := &ts[k]; o.role == opposite && ref(e, o) && ref(o, r) {
						between = true
					}
				}
				if !ref(e, r) || !between {
					isMinor = false
				}
			}
			if e.minor != isMinor {
				return fmt.Errorf("condition %d: touch at op %d: minor %v, by definition %v", id, e.pos, e.minor, isMinor)
			}
		}
		name := func(x *touch) string { return a.tk.syms.String(x.handler) }
		for i := range ts {
			k := &ts[i]
			if k.role != kill || k.minor || k.relative {
				continue
			}
			// The KILL read what the last REQ of r's chain and spec
			// before it wrote: that REQ, and those ordered before it,
			// are no pair.
			task := func(x *touch) traces.Sym { return x.u.task }
			lastOf := func(r *touch) *touch {
				l := r
				for j := range ts[:i] {
					if o := &ts[j]; o.role == req && o.spec == r.spec && o.to.Chain() == r.to.Chain() && o.pos > l.pos {
						l = o
					}
				}
				return l
			}
			// Or one of the KILL's causes, up its senders and what the
			// sending threads waited on, read it.
			readBefore := func(k, w traces.Sym, before int64) bool {
				at, ok := readFrom[[2]traces.Sym{k, w}]
				return ok && at < before
			}
			dependent := func(r *touch) bool {
				w := task(lastOf(r))
				if readBefore(task(k), w, math.MaxInt64) {
					return true
				}
				seen := map[traces.Sym]bool{task(k): true}
				todo := causes(task(k), k.first)
				for len(todo) > 0 {
					c := todo[0]
					todo = todo[1:]
					if seen[c.task] {
						continue
					}
					seen[c.task] = true
					if c.task != w && readBefore(c.task, w, c.pos) {
						return true
					}
					todo = append(todo, causes(c.task, c.pos)...)
				}
				return false
			}
			for j := range ts[:i] {
				r := &ts[j]
				if r.role == req && r.unit != k.unit && !ref(r, k) && !dependent(r) {
					want = append(want, pair{"REQ-KILL", r.spec.Text(), name(k)})
				}
			}
		}
		// Mid-event KILLs: every REQ that held, on another thread, and
		// ordered neither way with the stretch in which p was false.
		thread := func(x *touch) traces.Sym { return x.u.thread }
		for i := range ts {
			m := &ts[i]
			if m.role != midKill {
				continue
			}
			for j := range ts {
				if r := &ts[j]; r.role == req && r.holds && thread(r) != thread(m) && !ref(r, m) && !ref(m, r) {
					want = append(want, pair{"REQ-KILL", r.spec.Text(), name(m)})
				}
			}
		}
		for _, f := range a.findings {
			if f.cond == int32(id) && f.kind == ReqKill {
				got = append(got, pair{"REQ-KILL", f.a.spec.Text(), name(f.b)})
			}
		}
	}
	norm := func(ps []pair) string {
		var ss []string
		for _, p := range ps {
			ss = append(ss, p.kind+" "+p.x+" / "+p.y)
		}
		slices.Sort(ss)
		return strings.Join(slices.Compact(ss), "\n")
	}
	if w, g := norm(want), norm(got); w != g {
		return fmt.Errorf("REQ-KILL groups:\n%s\nwant:\n%s", g, w)
	}
	return nil
}

// TestStreamsAgainstAll checks the streams, which check a condition's
// touches as they are found and forget those no later touch needs,
// against checking every touch at the end (passesAll), on random traces
// with timestamps (10 ms an op) and windows of a few ops, the checker
// advancing after every op or every few: the same pairs, in the same
// order, and the same counts.
func TestStreamsAgainstAll(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	sp := randomSpec(t)
	dir := t.TempDir()
	aged := 0
	for seed := range n {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		path := randomScriptOn(startScript(&script{timed: true}), rng).file(t, dir, fmt.Sprintf("w%d.jsonl", seed))
		window := []time.Duration{15, 40, 100, 250, 600}[rng.IntN(5)] * time.Millisecond
		a := passesAllWith(t, sp, path, window, passOptions{projectAt: maxProjected, advanceEvery: 1 + rng.IntN(3), pruneAt: 1 + rng.IntN(4)})
		if a.tk == nil {
			continue
		}
		for _, c := range a.conds.list {
			for i := range c.touches {
				for j := range c.touches {
					if x, y := &c.touches[i], &c.touches[j]; y.firstTS > x.agedAt && !y.covers(x.to) && x.last < y.first && x.unit != y.unit {
						aged++ // ordered by the window alone
					}
				}
			}
		}
	}
	if aged == 0 {
		t.Errorf("no pair of touches in %d traces is ordered by the window alone: the test exercises nothing of it", n)
	}
	t.Logf("%d pairs of touches ordered by the window alone", aged)
}

// toggledTrace writes a timed trace of events posted by a worker that
// require p != null (Act.h1), while another thread sets p now to null,
// now back, every third event, and returns its path.
func toggledTrace(t *testing.T, events int) string {
	s := startScript(&script{timed: true})
	s.write("main", "p", o2).worker("T1").worker("T2")
	cur := o2
	for i := range events {
		e := fmt.Sprintf("E%d", i)
		s.post("T1", e).run(e, "Act.h1", rd("p", cur))
		if i%3 == 2 {
			cur = map[string]string{o2: null, null: o2}[cur]
			s.write("T2", "p", cur)
		}
	}
	return s.file(t, t.TempDir(), "t.jsonl")
}

// TestStreamsBounded: with a window, the touches the checker holds stay
// bounded by what the window reaches, not by the trace's length. Workers
// post events that require p != null while another thread sets p now to
// null, now back, 10 ms an op, with a 300 ms window.
func TestStreamsBounded(t *testing.T) {
	peak := func(events int, window time.Duration) int {
		path := toggledTrace(t, events)
		a := passesAllWith(t, makeSpec(t, nonnullP("Act.h1")), path, window, passOptions{projectAt: maxProjected, advanceEvery: 16})
		return a.tk.chk.peak
	}
	small, large := peak(500, 300*time.Millisecond), peak(2000, 300*time.Millisecond)
	if large > small+small/2 {
		t.Errorf("with a window, the checker held at most %d touches for 500 events and %d for 2000: it grows with the trace", small, large)
	}
	if all := peak(2000, 0); all < 2*large {
		t.Errorf("without a window the checker held at most %d touches for 2000 events, with one %d: the test does not tell them apart", all, large)
	}
	t.Logf("most touches held: %d for 500 events, %d for 2000; %d without a window", small, large, peak(2000, 0))
}

// TestStreamTouchesProjected checks that the touches a stream holds keep
// their from time only as its clocks of a few chains (stream.enter), not
// as a whole time, which keeps every block of clocks it was made of
// alive; with projection off (projectAt -1) they keep it.
func TestStreamTouchesProjected(t *testing.T) {
	path := toggledTrace(t, 60)
	sp := makeSpec(t, nonnullP("Act.h1"))
	for _, projectAt := range []int{maxProjected, -1} {
		a, err := passesWith(context.Background(), sp, source{name: path, file: path}, 300*time.Millisecond, passOptions{projectAt: projectAt, advanceEvery: 16})
		if err != nil {
			t.Fatal(err)
		}
		held, whole := 0, 0
		for _, st := range a.tk.chk.streams {
			if st == nil {
				continue
			}
			for _, tc := range st.buf {
				held++
				if !tc.projected || tc.from != nil {
					whole++
				}
			}
		}
		if held == 0 {
			t.Fatalf("projectAt %d: no touch held: the test shows nothing", projectAt)
		}
		if want := map[bool]int{true: 0, false: held}[projectAt >= 0]; whole != want {
			t.Errorf("projectAt %d: %d of %d touches held keep a whole time, want %d", projectAt, whole, held, want)
		}
	}
}
