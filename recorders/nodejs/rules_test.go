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

// The property test of the Node.js model (docs/causality.md, "Node.js"):
// every program in testdata/rules is recorded many times, most runs under
// the shuffler, and in every run both happens-before engines (exact, no
// window) order every pair of the program's callbacks. Then
//
//   - the engines agree on every pair of every run;
//   - no run executed two callbacks in the order opposite to one that
//     some run's engines claim (an order the model states but Node does
//     not keep would show up here);
//   - every pair that some run calls concurrent was seen in both orders,
//     unless oneSided below says why Node never shows the other one;
//   - no run crashed, and the engines accept every trace, except for the
//     recorder bugs in knownBugs.
//
// A callback is named by the handler of its event's first call op (the
// recorder's transform emits one for the function an event enters at
// depth 0): "x1" for the event of `setTimeout(function x1() {}, 1)`. An
// event whose handler already labels an earlier event of the run is
// labelled with its ordinal, "v#2", "v#3": an interval's firings, an
// async function's await continuations.

// ruleRuns is how many times each program is recorded.
const (
	ruleRuns      = 12
	ruleRunsShort = 4
)

// EnvRequireNode names the environment variable that turns the test's
// skip (no node, no recorder) into a failure: CI sets it to 1.
const EnvRequireNode = "LICORICE_REQUIRE_NODE"

// oneSidedPair is a pair of callbacks that the model leaves concurrent but
// that Node runs in one order only, A before B, with the reason. Prog and
// A and B are path.Match patterns over program file names and labels.
type oneSidedPair struct {
	Prog, A, B string
	Reason     string
}

// oneSided lists the concurrent pairs that are never seen both ways, and
// why. Every entry must match at least one such pair (so that the table
// stays true): the test fails on an entry that no longer applies.
var oneSided = []oneSidedPair{}

// knownBug is a program whose traces the engines reject (or that crashes)
// because of a recorder bug: the test expects the error, in at least one
// run, and fails when it no longer happens.
type knownBug struct {
	Prog   string
	Error  string // a substring of the engines' error
	Reason string
}

var knownBugs = []knownBug{}

// ruleEvent is what a run's trace says of one labelled event.
type ruleEvent struct {
	id          string // the event's id in the trace
	queue       string
	delay       int64
	async       bool
	sender      string // the task that sent it
	send, begin int    // the indices of its send and begin among the trace's ops
}

// ruleRun is what one run showed.
type ruleRun struct {
	file   string
	labels []string // in begin order
	events map[string]*ruleEvent
	orders map[[2]string]asyncclock.Order // for labels a < b (strings)
	err    error                          // the engines rejected the trace
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
	usedOneSided := make([]int, len(oneSided))
	usedBug := make([]bool, len(knownBugs))
	start := time.Now()
	for i, prog := range progs {
		name := filepath.Base(prog)
		t.Run(strings.TrimSuffix(name, ".js"), func(t *testing.T) {
			checkRules(t, rec, prog, int64(1+100*i), runs, usedOneSided, usedBug)
		})
	}
	t.Logf("%d programs, %d runs each, %v", len(progs), runs, time.Since(start).Round(time.Millisecond))
	if t.Failed() || testing.Short() {
		return
	}
	for i, e := range oneSided {
		if usedOneSided[i] == 0 {
			t.Errorf("oneSided entry {%s %s %s} matches no one-sided pair any more: remove it (%s)", e.Prog, e.A, e.B, e.Reason)
		}
	}
	for i, b := range knownBugs {
		if !usedBug[i] {
			t.Errorf("known bug in %s (%q) no longer happens: remove it from knownBugs (%s)", b.Prog, b.Error, b.Reason)
		}
	}
}

// ruleRecorder finds node and the recorder, or skips the test (fails it
// when EnvRequireNode is 1).
func ruleRecorder(t *testing.T) string {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(EnvRequireNode) == "1" {
			t.Fatalf(format+" (%s=1: the test must run)", append(args, EnvRequireNode)...)
		}
		t.Skipf(format+" (set %s=1 to make this a failure)", append(args, EnvRequireNode)...)
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

func checkRules(t *testing.T, rec, prog string, seed int64, runs int, usedOneSided []int, usedBug []bool) {
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
		Timeout:  20 * time.Second,
		Format:   traces.JSONL,
		Parallel: 2,
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
	var rs []*ruleRun
	for i, s := range sums {
		if s.Crash != "" {
			if bug >= 0 && strings.Contains(s.Crash, knownBugs[bug].Error) {
				usedBug[bug] = true
				continue
			}
			t.Errorf("run %d (%s) crashed: %s\n%s", i, s.File, s.Crash, s.Stderr)
			continue
		}
		r, err := analyzeRule(ctx, s.File)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if r.err != nil {
			if bug >= 0 && strings.Contains(r.err.Error(), knownBugs[bug].Error) {
				usedBug[bug] = true
				continue
			}
			t.Errorf("run %d: the engines reject the trace: %v", i, r.err)
			continue
		}
		rs = append(rs, r)
	}
	if t.Failed() || len(rs) == 0 {
		return
	}
	judgeRules(t, name, sums, rs, runs, usedOneSided)
}

// pairStat is what the runs showed of two labels a < b.
type pairStat struct {
	ab, ba         []int // the runs that began a first, b first
	before, after  []int // the runs whose engines claim a ≺ b, b ≺ a
	concurrent     []int // the runs whose engines call them concurrent
	claimsInAnyRun bool
}

func judgeRules(t *testing.T, name string, sums []RunSummary, rs []*ruleRun, runs int, usedOneSided []int) {
	runOf := map[*ruleRun]int{}
	for i, s := range sums {
		for _, r := range rs {
			if r.file == s.File {
				runOf[r] = i
			}
		}
	}
	stats := map[[2]string]*pairStat{}
	for _, r := range rs {
		i := runOf[r]
		for p, o := range r.orders {
			st := stats[p]
			if st == nil {
				st = &pairStat{}
				stats[p] = st
			}
			if r.events[p[0]].begin < r.events[p[1]].begin {
				st.ab = append(st.ab, i)
			} else {
				st.ba = append(st.ba, i)
			}
			switch o {
			case asyncclock.Before:
				st.before = append(st.before, i)
			case asyncclock.After:
				st.after = append(st.after, i)
			default:
				st.concurrent = append(st.concurrent, i)
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
	var ordered, both, excused int
	for _, p := range pairs {
		st := stats[p]
		a, b := p[0], p[1]
		if len(st.before) > 0 && len(st.ba) > 0 {
			t.Errorf("VIOLATION: %s before %s in runs %v (engines), but %s began first in runs %v", a, b, st.before, b, st.ba)
		}
		if len(st.after) > 0 && len(st.ab) > 0 {
			t.Errorf("VIOLATION: %s before %s in runs %v (engines), but %s began first in runs %v", b, a, st.after, a, st.ab)
		}
		if len(st.concurrent) == 0 {
			ordered++
			continue
		}
		if len(st.ab) > 0 && len(st.ba) > 0 {
			both++
			continue
		}
		if testing.Short() {
			continue // too few runs to ask for both orders
		}
		first, second := a, b
		if len(st.ab) == 0 {
			first, second = b, a
		}
		k := matchOneSided(name, first, second)
		if k >= 0 {
			usedOneSided[k]++
			excused++
			continue
		}
		t.Errorf("%s, %s: concurrent in runs %v, but %s began first in every run that ran both (%d of %d)",
			first, second, st.concurrent, first, len(st.ab)+len(st.ba), runs)
	}
	t.Logf("%d runs: %d pairs: %d ordered, %d concurrent seen both ways, %d concurrent one-sided (excused)",
		len(rs), len(pairs), ordered, both, excused)
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

// analyzeRule reads one trace: its labelled events, and the order of
// every pair by both engines. An error of the engines (a trace they
// reject) or their disagreement is the run's err.
func analyzeRule(ctx context.Context, file string) (*ruleRun, error) {
	r, err := traces.Open(file)
	if err != nil {
		return nil, err
	}
	syms := r.Symbols()
	var ops []traces.Op
	var lines []int
	var op traces.Op
	for {
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

	run := &ruleRun{file: file, events: map[string]*ruleEvent{}, orders: map[[2]string]asyncclock.Order{}}
	type pending struct {
		ev      *ruleEvent
		labeled bool
	}
	byID := map[traces.Sym]*pending{}
	seen := map[string]int{}
	ids := map[string]traces.Sym{}
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case traces.Send:
			byID[op.Event] = &pending{ev: &ruleEvent{
				id: syms.String(op.Event), queue: syms.String(op.Queue), delay: op.Time, async: op.Async,
				sender: syms.String(op.Task), send: i, begin: -1,
			}}
		case traces.Begin:
			if p := byID[op.Task]; p != nil {
				p.ev.begin = i
			}
		case traces.Call:
			p := byID[op.Task]
			if p == nil || p.labeled || p.ev.begin < 0 {
				continue
			}
			p.labeled = true
			h := syms.String(op.Name)
			seen[h]++
			label := h
			if n := seen[h]; n > 1 {
				label = fmt.Sprintf("%s#%d", h, n)
			}
			run.events[label] = p.ev
			run.labels = append(run.labels, label)
			ids[label] = op.Task
		}
	}

	g, gerr := asyncclock.NewGraphConfig(ctx, syms, ops, lines, asyncclock.Config{})
	if gerr == nil {
		gerr = g.Conflict()
	}
	r2, err := traces.Open(file)
	if err != nil {
		return nil, err
	}
	defer r2.Close()
	e, eerr := asyncclock.Run(ctx, r2, asyncclock.Config{KeepEvents: true}, nil)
	switch {
	case gerr != nil && eerr != nil:
		run.err = fmt.Errorf("%s: %w", file, eerr)
		return run, nil
	case gerr != nil || eerr != nil:
		run.err = fmt.Errorf("%s: the engines disagree on the trace: reference: %v; AsyncClock: %v", file, gerr, eerr)
		return run, nil
	}
	esyms := r2.Symbols()
	labels := slices.Clone(run.labels)
	slices.Sort(labels)
	for i, a := range labels {
		for _, b := range labels[i+1:] {
			ga := g.Order(ids[a], ids[b])
			ea, _ := esyms.Lookup(syms.String(ids[a]))
			eb, _ := esyms.Lookup(syms.String(ids[b]))
			eo, err := e.Order(ea, eb)
			if err != nil {
				return nil, fmt.Errorf("%s: %s (%s), %s (%s): %w", file, a, syms.String(ids[a]), b, syms.String(ids[b]), err)
			}
			if eo != ga {
				run.err = fmt.Errorf("%s: the engines disagree on %s (%s) and %s (%s): reference %v, AsyncClock %v",
					file, a, syms.String(ids[a]), b, syms.String(ids[b]), ga, eo)
				return run, nil
			}
			run.orders[[2]string{a, b}] = ga
		}
	}
	return run, nil
}
