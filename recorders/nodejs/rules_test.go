package nodejs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// TestRules is the property test of the Node.js model (docs/causality.md,
// "Node.js"). Every program in testdata/rules is recorded many times, most
// runs shuffled, and in every run both happens-before engines (exact: no
// window) order every pair of the program's callbacks. Then:
//
//   - the engines agree on every pair of every run;
//   - no run executed two callbacks in the order opposite to one that the
//     engines claim in a run of the same shape (below): an order that the
//     model states but Node does not keep shows up here as a VIOLATION;
//   - every pair that some run calls concurrent was seen in both orders,
//     unless Node never runs it the other way for a reason the test
//     knows: one of Node's guarantees that the model leaves out
//     (nodeRules, applied to the run and checked against the order the
//     run actually took), or an entry of oneSided;
//   - no run crashed and the engines accept every trace, except for the
//     recorder bugs in knownBugs.
//
// A callback is named by the handler of its event's first call op (the
// recorder's transform emits one for the function an event enters at
// depth 0): "x1" for the event of `setTimeout(function x1() {}, 1)`. An
// event whose handler already labels an earlier event of the run gets its
// ordinal, "v#2", "v#3": an interval's firings, an async function's await
// continuations.
//
// The shape of a run is, for each labelled event, the callback that
// caused it (its sender, or for an I/O callback the task whose request
// it waited on, through unlabelled events), which labelled events share
// its queue, and how it was sent (kind, time, async). An order the engines derive holds for the runs of
// that shape only: a callback sent by a different callback, or two
// timers whose shuffled durations happen to coincide (so that Node keeps
// them in one list, FIFO, in that run), make another execution, whose
// orders the model may state differently.

// The number of runs of each program (seeds fixed; 3 in 4 shuffled).
const (
	ruleRuns      = 20
	ruleRunsShort = 4
)

// ruleDelayMean is the shuffler's mean delay.
const ruleDelayMean = 25 * time.Millisecond

// envRequireNode names the environment variable that turns the test's
// skip (no node, no recorder) into a failure: CI sets it to 1.
const envRequireNode = "LICORICE_REQUIRE_NODE"

// oneSidedPair is a pair of callbacks that the model leaves concurrent
// and that Node runs in one order only, A before B, for Reason. Prog, A
// and B are path.Match patterns over program file names and labels.
type oneSidedPair struct {
	Prog, A, B string
	Reason     string
}

// oneSided lists the concurrent pairs that are seen in one order only and
// that no rule of nodeRules explains. Every entry must match such a pair
// (so that the table stays true): the test fails on one that no longer
// applies.
var oneSided = []oneSidedPair{
	{
		Prog: "18-cleartimeout.js", A: "xLate", B: "x2",
		Reason: "x2 clears xLate: xLate runs only in the runs where it fires before x2 (a data " +
			"dependence, not an order of the event loop)",
	},
	{
		Prog: "21-thenable.js", A: "then[AB]", B: "*",
		Reason: "a promise resolved with a thenable calls its then in a job of its own, which " +
			"the hooks do not see queued: the recorder delivers it with no origin, ordered " +
			"with nothing (docs/causality.md); Node queues it as a microtask, FIFO with the " +
			"others, when the promise is resolved",
	},
	{
		Prog: "21-thenable.js", A: "*", B: "then[AB]",
		Reason: "as above: the thenable's job is ordered with nothing in the model",
	},
	{
		Prog: "21-thenable.js", A: "m1", B: "m2",
		Reason: "m1 reacts to the promise that thenA's job resolves, m2 to the one thenB's job " +
			"resolves; the model orders neither job, so neither reaction, though Node runs " +
			"the jobs in the order their promises were resolved",
	},
}

// knownBug is a program whose runs crash, or whose traces the engines
// reject, because of a recorder bug: the test expects Error in the crash
// or rejection of at least one run, and fails when it no longer happens.
type knownBug struct {
	Prog   string
	Error  string
	Reason string
}

var knownBugs = []knownBug{}

// A nodeRule is an order that Node 20 keeps and the model leaves out.
// Edges calls add(i, j) for each order "evs[i] runs before evs[j]" it
// gives in one run (evs: the run's events that began, in begin order). The test takes the closure of the engines' order with those
// edges, checks it against the order every run took (so the rules
// themselves are tested), and excuses a pair that the model leaves
// concurrent, and that is seen in one order only, when that closure
// orders it so in every run that calls it concurrent.
type nodeRule struct {
	Name   string
	Reason string
	Edges  func(evs []*ruleEvent, add func(i, j int))
}

var nodeRules = []nodeRule{
	{
		Name: "drain",
		Reason: "Node runs every pending process.nextTick callback and microtask, and those " +
			"they queue, before the timers and check phases and between two timers or two " +
			"immediates: a job queued before a timer or an immediate begins runs before it. The trace states it only for the timers and immediates set by the " +
			"job's drain (docs/causality.md): a timer set elsewhere is ordered with the job by " +
			"nothing the model knows. (Not I/O callbacks: Node drains only when the outermost " +
			"callback scope closes, and one native callback can run two I/O callbacks in a row)",
		Edges: func(evs []*ruleEvent, add func(i, j int)) {
			for i, a := range evs {
				if !a.kind.job() {
					continue
				}
				for j, b := range evs {
					if (b.queue == "immediate" || strings.HasPrefix(b.queue, "timer:")) && a.send < b.begin {
						add(i, j)
					}
				}
			}
		},
	},
	{
		Name: "phase",
		Reason: "Node runs the jobs in rounds: every pending tick (FIFO, including ticks they " +
			"queue), then every pending microtask (FIFO, including microtasks they queue), " +
			"then the ticks queued meanwhile, and so on. So of a pending tick and a pending " +
			"microtask, the microtask runs first if the later of the two was queued by a " +
			"microtask, the tick if it was queued outside the microtask phase; and ticks keep " +
			"FIFO whatever phase queued them. Table 3.1 orders jobs by send order only: it " +
			"leaves out a tick queued after a pending microtask, a microtask queued by a " +
			"microtask after a pending tick, a microtask queued by a tick after a pending " +
			"tick, and a tick sent from a microtask (delayed, sync) before one sent outside " +
			"(delayed, async)",
		Edges: func(evs []*ruleEvent, add func(i, j int)) {
			for i, a := range evs {
				for j, b := range evs {
					if !a.kind.job() || !b.kind.job() || a.send >= b.send || b.send > a.begin {
						continue // a is sent first and still pending when b is sent
					}
					ta, tb := a.kind != micro, b.kind != micro
					switch {
					case ta == tb: // FIFO
						add(i, j)
					case b.senderKind == micro: // b queued in the microtask phase
						if ta {
							add(j, i)
						} else {
							add(i, j)
						}
					case b.senderKind != unknown: // b queued outside it
						if ta {
							add(i, j)
						} else {
							add(j, i)
						}
					}
				}
			}
		},
	},
	{
		Name: "io-immediate",
		Reason: "an immediate set in an I/O callback runs before a timer set in the same " +
			"callback (the check phase comes before the next timers phase; Node's event loop " +
			"guide). docs/causality.md leaves it out: a looper queue cannot say it without " +
			"also ordering timers sent elsewhere",
		Edges: func(evs []*ruleEvent, add func(i, j int)) {
			for i, a := range evs {
				if a.queue != "immediate" || a.senderEvent < 0 || evs[a.senderEvent].queue != "io" || evs[a.senderEvent].kind != macro {
					continue
				}
				for j, b := range evs {
					if strings.HasPrefix(b.queue, "timer:") && b.senderEvent == a.senderEvent {
						add(i, j)
					}
				}
			}
		},
	},
}

// eventKind is what a run's trace says of a callback: a job, or another
// callback of the event loop.
type eventKind uint8

const (
	unknown    eventKind = iota // an I/O delivery without origin (a thenable's job, an anonymous event), or a job sent from one
	macro                       // a timer, immediate or I/O callback
	tick                        // jobs, (delayed, async, 0): a tick queued outside the microtask phase
	microTick                   // jobs, (delayed, sync, 2): a tick queued by a microtask
	micro                       // jobs, (delayed, sync, 1): a microtask
	mainModule                  // the main module (only as a sender)
)

func (k eventKind) job() bool { return k == tick || k == microTick || k == micro }

// ruleEvent is what a run's trace says of one event that began.
type ruleEvent struct {
	id          traces.Sym
	label       string // "" for an event with no call op
	queue       string
	how         string // the send's kind, time and async flag
	kind        eventKind
	senderKind  eventKind // the kind of the task that sent it (mainModule, or a worker's: macro)
	senderEvent int       // the index of the event that sent it, -1 for none (the main module, a worker)
	parent      int       // the event that caused it: its sender, or the origin of an I/O delivery; -1 for the main module or none
	send, begin int       // indices of its send and begin among the trace's ops
	end         int       // index of its end op, -1 if it never ended
}

// ruleRun is what one run showed.
type ruleRun struct {
	run     int
	file    string
	shape   string
	shapeNo int // the shape's number among the program's runs
	labels  map[string]*ruleEvent
	// orders holds, for labels a < b, the engines' order and the order
	// of the closure with each rule set (index 0: all nodeRules, i+1:
	// nodeRules[i] alone).
	orders map[[2]string]pairOrder
	broken []string // orders of the Node closure that the run did not keep
}

type pairOrder struct {
	model asyncclock.Order
	node  []asyncclock.Order
}

func TestRules(t *testing.T) {
	rec := ruleRecorder(t)
	progs, err := filepath.Glob(filepath.Join("testdata", "rules", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) < 20 {
		t.Fatalf("%d programs in testdata/rules: want at least 20", len(progs))
	}
	runs := ruleRuns
	if testing.Short() {
		runs = ruleRunsShort
	}
	u := &ruleUse{oneSided: make([]int, len(oneSided)), bugs: make([]bool, len(knownBugs)), rules: make([]int, len(nodeRules))}
	start := time.Now()
	ran := map[string]bool{} // the programs that ran (-run may pick some)
	for i, prog := range progs {
		name := filepath.Base(prog)
		t.Run(strings.TrimSuffix(name, ".js"), func(t *testing.T) {
			ran[name] = true
			checkRules(t, rec, prog, int64(1+1000*i), runs, u)
		})
	}
	ranAny := func(pattern string) bool {
		for name := range ran {
			if ok, _ := path.Match(pattern, name); ok {
				return true
			}
		}
		return false
	}
	t.Logf("%d programs, %d runs each, %v", len(progs), runs, time.Since(start).Round(time.Millisecond))
	for i, r := range nodeRules {
		t.Logf("node rule %s excused %d pairs on its own", r.Name, u.rules[i])
	}
	if t.Failed() || testing.Short() {
		return
	}
	for i, r := range nodeRules {
		if len(ran) == len(progs) && u.rules[i] == 0 {
			t.Errorf("node rule %s excuses no pair on its own any more: remove it, or add a program that needs it", r.Name)
		}
	}
	for i, e := range oneSided {
		if ranAny(e.Prog) && u.oneSided[i] == 0 {
			t.Errorf("oneSided entry {%s %s %s} matches no one-sided pair any more: remove it (%s)", e.Prog, e.A, e.B, e.Reason)
		}
	}
	for i, b := range knownBugs {
		if ranAny(b.Prog) && !u.bugs[i] {
			t.Errorf("the known bug of %s (%q) no longer happens: remove it from knownBugs (%s)", b.Prog, b.Error, b.Reason)
		}
	}
}

// ruleUse counts what the exceptions excused.
type ruleUse struct {
	oneSided []int
	bugs     []bool
	rules    []int
}

// ruleRecorder finds node and the recorder, or skips the test (fails it
// when envRequireNode is 1).
func ruleRecorder(t *testing.T) string {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(envRequireNode) == "1" {
			t.Fatalf(format+" (%s=1: the test must run)", append(args, envRequireNode)...)
		}
		t.Skipf(format+" (set %s=1 to make this a failure)", append(args, envRequireNode)...)
	}
	if _, err := exec.LookPath("node"); err != nil {
		skip("node is not on PATH: %v", err)
	}
	rec, err := Locate()
	if err != nil {
		skip("%v", err)
	}
	if _, err := os.Stat(filepath.Join(rec, "lib", "transform.js")); err != nil {
		skip("the recorder %s has no lib/transform.js, whose handler calls label the events", rec)
	}
	return rec
}

func checkRules(t *testing.T, rec, prog string, seed int64, runs int, u *ruleUse) {
	name := filepath.Base(prog)
	abs, err := filepath.Abs(prog)
	if err != nil {
		t.Fatal(err)
	}
	b := &Batch{
		Recorder: rec,
		Command:  []string{"node", abs},
		Dir:      t.TempDir(),
		App:      strings.TrimSuffix(name, ".js"),
		Runs:     runs,
		Shuffled: 0.75,
		Seed:     seed,
		// Longer shuffle delays than the default 10 ms: timers a few ms
		// apart are then reordered more often.
		DelayMean: ruleDelayMean,
		Timeout:   20 * time.Second,
		Format:    traces.JSONL,
		Parallel:  2,
	}
	ctx := context.Background()
	sums, err := b.Record(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bug := -1
	for i, kb := range knownBugs {
		if ok, _ := path.Match(kb.Prog, name); ok {
			bug = i
		}
	}
	expected := func(msg string) bool {
		if bug >= 0 && strings.Contains(msg, knownBugs[bug].Error) {
			u.bugs[bug] = true
			return true
		}
		return false
	}
	var rs []*ruleRun
	for i, s := range sums {
		if s.Crash != "" {
			if !expected(s.Crash) {
				t.Errorf("run %d (seed %d) crashed: %s\n%s", i, s.Seed, s.Crash, s.Stderr)
			}
			continue
		}
		r, err := analyzeRule(ctx, s.File)
		if err != nil {
			if !expected(err.Error()) {
				t.Errorf("run %d (seed %d): %v", i, s.Seed, err)
			}
			continue
		}
		r.run = i
		for _, b := range r.broken {
			t.Errorf("run %d (%s): Node did not keep an order of the model closed with nodeRules: %s", i, s.File, b)
		}
		rs = append(rs, r)
	}
	if bug >= 0 && len(rs) > 0 {
		t.Logf("known bug (%s): %d of %d runs were analyzed all the same", knownBugs[bug].Reason, len(rs), len(sums))
	}
	if t.Failed() || len(rs) == 0 {
		return
	}
	judgeRules(t, name, rs, u)
}

// pairStat is what the runs showed of two labels a < b.
type pairStat struct {
	ab, ba        []*ruleRun // the runs that began a first, b first
	before, after []*ruleRun // the runs whose engines claim a ≺ b, b ≺ a
	concurrent    []*ruleRun // the runs whose engines call them concurrent
}

// shapeNumbers numbers the runs' shapes, 0 for the shape of the first run
// analyzed, and so on.
func shapeNumbers(rs []*ruleRun) []int {
	ns := make([]int, len(rs))
	for i, r := range rs {
		ns[i] = r.shapeNo
	}
	return ns
}

func runNumbers(rs []*ruleRun) []int {
	ns := make([]int, len(rs))
	for i, r := range rs {
		ns[i] = r.run
	}
	return ns
}

func judgeRules(t *testing.T, name string, rs []*ruleRun, u *ruleUse) {
	shapeNo := map[string]int{}
	for _, r := range rs {
		if _, ok := shapeNo[r.shape]; !ok {
			shapeNo[r.shape] = len(shapeNo)
		}
		r.shapeNo = shapeNo[r.shape]
	}
	stats := map[[2]string]*pairStat{}
	for _, r := range rs {
		for p, o := range r.orders {
			st := stats[p]
			if st == nil {
				st = &pairStat{}
				stats[p] = st
			}
			if r.labels[p[0]].begin < r.labels[p[1]].begin {
				st.ab = append(st.ab, r)
			} else {
				st.ba = append(st.ba, r)
			}
			switch o.model {
			case asyncclock.Before:
				st.before = append(st.before, r)
			case asyncclock.After:
				st.after = append(st.after, r)
			default:
				st.concurrent = append(st.concurrent, r)
			}
		}
	}
	pairs := make([][2]string, 0, len(stats))
	for p := range stats {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(x, y [2]string) int {
		if c := strings.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return strings.Compare(x[1], y[1])
	})
	var ordered, both, byRule, listed, otherShape int
	var rare []string // concurrent pairs seen one way in few runs
	violation := func(a, b string, claim, seen []*ruleRun) {
		for _, c := range claim {
			for _, s := range seen {
				if c.shape == s.shape {
					t.Errorf("VIOLATION: the engines order %s before %s in run %d (%s), but %s began first in run %d (%s), a run of the same shape",
						a, b, c.run, c.file, b, s.run, s.file)
					return
				}
			}
		}
		if len(claim) > 0 && len(seen) > 0 {
			otherShape++
			t.Logf("%s before %s in runs %v (shapes %v); %s began first in runs %v (shapes %v)",
				a, b, runNumbers(claim), shapeNumbers(claim), b, runNumbers(seen), shapeNumbers(seen))
		}
	}
	for _, p := range pairs {
		st := stats[p]
		a, b := p[0], p[1]
		violation(a, b, st.before, st.ba)
		violation(b, a, st.after, st.ab)
		if len(st.concurrent) == 0 {
			ordered++
			continue
		}
		if len(st.ab) > 0 && len(st.ba) > 0 {
			both++
			if n := min(len(st.ab), len(st.ba)); n <= 2 {
				rare = append(rare, fmt.Sprintf("%s,%s(%d)", a, b, n))
			}
			continue
		}
		if testing.Short() {
			continue // too few runs to ask for both orders
		}
		first, second, want := a, b, asyncclock.Before
		if len(st.ab) == 0 {
			first, second, want = b, a, asyncclock.After
		}
		// Does Node's closure order the pair so in every run that calls
		// it concurrent?
		explains := func(k int) bool {
			for _, r := range st.concurrent {
				if r.orders[p].node[k] != want {
					return false
				}
			}
			return true
		}
		if explains(0) {
			byRule++
			for i := range nodeRules {
				if explains(i + 1) {
					u.rules[i]++
				}
			}
			continue
		}
		if k := matchOneSided(name, first, second); k >= 0 {
			u.oneSided[k]++
			listed++
			continue
		}
		t.Errorf("%s, %s: concurrent in runs %v, but %s began first in every run that ran both (%d of them); no node rule orders them",
			first, second, runNumbers(st.concurrent), first, len(st.ab)+len(st.ba))
	}
	shapes := shapeNo
	t.Logf("%d runs of %d shapes, %d pairs: %d ordered, %d concurrent seen both ways, %d one-sided by a node rule, %d one-sided listed; %d claims not comparable (runs of other shapes)",
		len(rs), len(shapes), len(pairs), ordered, both, byRule, listed, otherShape)
	if len(rare) > 0 {
		t.Logf("seen both ways, but one way in 1 or 2 runs only: %s", strings.Join(rare, " "))
	}
}

func matchOneSided(prog, a, b string) int {
	for i, e := range oneSided {
		if ok, _ := path.Match(e.Prog, prog); !ok {
			continue
		}
		okA, _ := path.Match(e.A, a)
		okB, _ := path.Match(e.B, b)
		if okA && okB {
			return i
		}
	}
	return -1
}

// analyzeRule reads one trace: its events, their labels, the order of
// every pair of labelled events by both engines and by their closure with
// nodeRules, and the run's shape. It fails if the engines reject the
// trace or disagree.
func analyzeRule(ctx context.Context, file string) (*ruleRun, error) {
	r, err := traces.Open(file)
	if err != nil {
		return nil, err
	}
	syms := r.Symbols()
	var ops []traces.Op
	var lines []int
	for {
		var op traces.Op
		err := r.Next(&op)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		ops = append(ops, op)
		lines = append(lines, r.Line())
	}
	r.Close()

	g, err := asyncclock.NewGraphConfig(ctx, syms, ops, lines, asyncclock.Config{})
	if err == nil {
		err = g.Conflict()
	}
	r2, err2 := traces.Open(file)
	if err2 != nil {
		return nil, err2
	}
	defer r2.Close()
	e, eerr := asyncclock.Run(ctx, r2, asyncclock.Config{KeepEvents: true}, nil)
	switch {
	case err != nil && eerr != nil:
		return nil, eerr
	case err != nil || eerr != nil:
		return nil, fmt.Errorf("%s: the engines disagree on the trace: reference: %v; AsyncClock: %v", file, err, eerr)
	}

	evs, labels := ruleEvents(syms, ops)
	run := &ruleRun{file: file, labels: labels, orders: map[[2]string]pairOrder{}, shape: ruleShape(evs)}

	// The model's order of every two events that ran, and its closure
	// with the node rules, all of them (closures[0]) and each alone. The
	// model orders a before b when a's end happens before b's begin, or
	// before b's end: every event runs on the main looper, whose events
	// never interleave, so an event whose end happens before another's
	// code (the drain's wait, docs/causality.md) runs before it.
	n := len(evs)
	model := newRelation(n)
	for i := range evs {
		for j := range evs {
			if i != j && modelBefore(g, evs[i], evs[j]) {
				model.add(i, j)
			}
		}
	}
	closures := make([]relation, len(nodeRules)+1)
	for k := range closures {
		c := model.clone()
		for i, nr := range nodeRules {
			if k == 0 || k == i+1 {
				nr.Edges(evs, c.add)
			}
		}
		c.close()
		closures[k] = c
	}
	name := func(i int) string {
		if evs[i].label != "" {
			return evs[i].label
		}
		return syms.String(evs[i].id)
	}
	for i := range evs {
		for j := range evs {
			if closures[0].has(i, j) && evs[j].begin < evs[i].begin {
				run.broken = append(run.broken, fmt.Sprintf("%s before %s, but %s began first", name(i), name(j), name(j)))
			}
		}
	}

	index := map[*ruleEvent]int{}
	for i, ev := range evs {
		index[ev] = i
	}
	esyms := r2.Symbols()
	sorted := make([]string, 0, len(labels))
	for l := range labels {
		sorted = append(sorted, l)
	}
	slices.Sort(sorted)
	for x, a := range sorted {
		for _, b := range sorted[x+1:] {
			ia, ib := labels[a].id, labels[b].id
			ga := g.Order(ia, ib)
			ea, _ := esyms.Lookup(syms.String(ia))
			eb, _ := esyms.Lookup(syms.String(ib))
			eo, err := e.Order(ea, eb)
			if err != nil {
				return nil, fmt.Errorf("%s: %s (%s), %s (%s): %w", file, a, syms.String(ia), b, syms.String(ib), err)
			}
			if eo != ga {
				return nil, fmt.Errorf("%s: the engines disagree on %s (%s) and %s (%s): reference %v, AsyncClock %v",
					file, a, syms.String(ia), b, syms.String(ib), ga, eo)
			}
			i, j := index[labels[a]], index[labels[b]]
			po := pairOrder{node: make([]asyncclock.Order, len(closures))}
			switch {
			case model.has(i, j):
				po.model = asyncclock.Before
			case model.has(j, i):
				po.model = asyncclock.After
			}
			for k, c := range closures {
				switch {
				case c.has(i, j):
					po.node[k] = asyncclock.Before
				case c.has(j, i):
					po.node[k] = asyncclock.After
				}
			}
			run.orders[[2]string{a, b}] = po
		}
	}
	return run, nil
}

// modelBefore reports whether the reference engine orders a before b: a's
// end before b's begin, or before b's end.
func modelBefore(g *asyncclock.Graph, a, b *ruleEvent) bool {
	if g.Order(a.id, b.id) == asyncclock.Before {
		return true
	}
	return a.end >= 0 && b.end >= 0 && g.Before(asyncclock.Node(a.end), asyncclock.Node(b.end))
}

// ruleEvents returns the events of a trace that began, in begin order,
// and the labelled ones by label.
func ruleEvents(syms *traces.Symbols, ops []traces.Op) ([]*ruleEvent, map[string]*ruleEvent) {
	type sent struct {
		ev     *ruleEvent
		sender traces.Sym
		worker bool
	}
	sends := map[traces.Sym]*sent{}
	index := map[traces.Sym]int{}      // the events that began
	lastSignal := map[traces.Sym]int{} // handle -> the index of its last signal op
	workerWait := map[traces.Sym]int{} // worker thread -> the index of the signal it waited on
	threads := map[traces.Sym]bool{}   // thread ids
	var evs []*ruleEvent
	labels := map[string]*ruleEvent{}
	seen := map[string]int{}
	labelled := map[traces.Sym]bool{}
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case traces.ThreadBegin:
			threads[op.Task] = true
		case traces.Signal:
			lastSignal[op.Name] = i
		case traces.Wait:
			if threads[op.Task] {
				if s, ok := lastSignal[op.Name]; ok {
					workerWait[op.Task] = s
				}
			}
		case traces.Send:
			// The immediates share queue jobs with the ticks and
			// microtasks (delay 5); here they keep a name of their own.
			queue := syms.String(op.Queue)
			if queue == "jobs" && op.Time == 5 {
				queue = "immediate"
			}
			ev := &ruleEvent{id: op.Event, queue: queue, send: i, begin: -1, end: -1, senderEvent: -1, parent: -1,
				how: fmt.Sprintf("%v,%d,%v", op.SendKind, op.Time, op.Async)}
			s := &sent{ev: ev, sender: op.Task, worker: threads[op.Task] && syms.String(op.Task) != mainThread}
			sends[op.Event] = s
			if j, ok := index[op.Task]; ok {
				ev.senderEvent = j
				ev.parent = j
			}
			switch {
			case ev.queue == "jobs" && op.Time == 1:
				ev.kind = micro
			case ev.queue == "jobs" && op.Time == 2:
				ev.kind = microTick
			case ev.queue == "jobs" && op.Time == 0 && op.Async:
				ev.kind = tick
			case ev.queue == "jobs":
				ev.kind = unknown
			case s.worker:
				if w, ok := workerWait[op.Task]; ok {
					ev.kind = macro
					if j, ok := index[ops[w].Task]; ok {
						ev.parent = j
					}
				} else {
					ev.kind = unknown
				}
			default:
				ev.kind = macro
			}
			switch {
			case ev.senderEvent >= 0:
				ev.senderKind = evs[ev.senderEvent].kind
			case s.worker:
				ev.senderKind = macro
			default:
				ev.senderKind = mainModule
			}
		case traces.Begin:
			if s := sends[op.Task]; s != nil {
				s.ev.begin = i
				index[op.Task] = len(evs)
				evs = append(evs, s.ev)
			}
		case traces.End:
			if s := sends[op.Task]; s != nil {
				s.ev.end = i
			}
		case traces.Call:
			s := sends[op.Task]
			if s == nil || labelled[op.Task] || s.ev.begin < 0 {
				continue
			}
			labelled[op.Task] = true
			h := syms.String(op.Name)
			seen[h]++
			label := h
			if n := seen[h]; n > 1 {
				label = fmt.Sprintf("%s#%d", h, n)
			}
			s.ev.label = label
			labels[label] = s.ev
		}
	}
	return evs, labels
}

// ruleShape describes a run's shape: for each labelled event, the
// labelled event that caused it (through unlabelled ones), the smallest
// label of those that share its queue, and how it was sent (the kind,
// time and async flag of its send).
func ruleShape(evs []*ruleEvent) string {
	cause := func(ev *ruleEvent) string {
		var path []string
		for p := ev.parent; ; p = evs[p].parent {
			if p < 0 {
				path = append(path, "main")
				break
			}
			if evs[p].label != "" {
				path = append(path, evs[p].label)
				break
			}
			path = append(path, "?")
		}
		return strings.Join(path, "<")
	}
	first := map[string]string{} // queue -> its smallest label
	for _, ev := range evs {
		if ev.label == "" {
			continue
		}
		if f, ok := first[ev.queue]; !ok || ev.label < f {
			first[ev.queue] = ev.label
		}
	}
	var parts []string
	for _, ev := range evs {
		if ev.label != "" {
			parts = append(parts, ev.label+"<"+cause(ev)+"@"+first[ev.queue]+"("+ev.how+")")
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// relation is a binary relation on 0..n-1, as bit rows.
type relation struct {
	n    int
	rows [][]uint64
}

func newRelation(n int) relation {
	r := relation{n: n, rows: make([][]uint64, n)}
	for i := range r.rows {
		r.rows[i] = make([]uint64, (n+63)/64)
	}
	return r
}

func (r relation) add(i, j int)      { r.rows[i][j/64] |= 1 << (j % 64) }
func (r relation) has(i, j int) bool { return r.rows[i][j/64]&(1<<(j%64)) != 0 }

func (r relation) clone() relation {
	c := relation{n: r.n, rows: make([][]uint64, r.n)}
	for i := range r.rows {
		c.rows[i] = slices.Clone(r.rows[i])
	}
	return c
}

// close makes the relation transitive (Warshall).
func (r relation) close() {
	for k := range r.n {
		for i := range r.n {
			if !r.has(i, k) {
				continue
			}
			for w, bitsK := range r.rows[k] {
				r.rows[i][w] |= bitsK
			}
		}
	}
}
