package races

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// explainText explains a and b in the trace text twice: as Explain does,
// and compacting the search's nodes whenever they double from 2 on, which
// must change nothing.
func explainText(t testing.TB, text, a, b string, window time.Duration) (*Explanation, error) {
	t.Helper()
	if !strings.HasPrefix(text, `{"licorice_trace"`) {
		text = `{"licorice_trace":1}` + "\n" + strings.TrimLeft(text, "\n")
	}
	var exs [2]*Explanation
	var errs [2]error
	for i, at := range []int32{minCompact, 2} {
		r, err := traces.NewReader(strings.NewReader(text), traces.WithName("test.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		exs[i], _, errs[i] = explain(context.Background(), r, a, b, window, limits{compactAt: at, scan: maxScan})
	}
	if !reflect.DeepEqual(exs[0], exs[1]) || fmt.Sprint(errs[0]) != fmt.Sprint(errs[1]) {
		t.Fatalf("%s, %s: compacting the search's nodes changes the answer:\n%+v %v\n%+v %v", a, b, exs[0], errs[0], exs[1], errs[1])
	}
	return exs[0], errs[0]
}

// TestExplainMatchesReference: on random traces, the order Explain gives
// is the reference engine's, and its chain is a chain of the reference's
// relation, step by step, no longer than the reference's shortest chain
// (counting a run of program-order steps as one, as Explain does).
func TestExplainMatchesReference(t *testing.T) {
	var ordered, concurrent, steps int
	rules := map[asyncclock.Rule]int{}
	windowFrom := map[string]int{} // WINDOW steps by the op they start at
	seeds := int64(30)
	if testing.Short() {
		seeds = 6
	}
	for seed := range seeds {
		tr := tracetest.Generate(tracetest.Small(seed))
		var buf bytes.Buffer
		if err := tr.Encode(&buf, traces.JSONL); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		// Every other trace with a time window (of 3 ms: the traces are
		// short), so that WINDOW has a say.
		var window time.Duration
		if seed%2 == 1 {
			window = 3 * time.Millisecond
		}
		g, err := asyncclock.NewGraphConfig(context.Background(), tr.Symbols, tr.Ops, nil, asyncclock.Config{Window: window, WideWindow: true})
		if err != nil {
			t.Fatal(err)
		}
		// Pairs: 15 ordered ones and 10 concurrent ones, at random. Under
		// the window, not removed events: Explain asks AsyncClock whether
		// the premises of the rules into run(E) hold, and AsyncClock's
		// run(E) may miss predecessors older than the window
		// (docs/causality.md), so they may be ordered later, or not at
		// all.
		ids := g.Events()
		removed := func(e traces.Sym) bool { _, ok := g.Run(e); return ok && window > 0 }
		var pairs [2][][2]traces.Sym
		for _, a := range ids {
			for _, b := range ids {
				if a != b && !removed(a) && !removed(b) {
					o := g.Order(a, b)
					k := 0
					if o != asyncclock.Concurrent {
						k = 1
					}
					pairs[k] = append(pairs[k], [2]traces.Sym{a, b})
				}
			}
		}
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		var picked [][2]traces.Sym
		for k, n := range []int{10, 15} {
			for range n {
				if len(pairs[k]) > 0 {
					picked = append(picked, pairs[k][rng.IntN(len(pairs[k]))])
				}
			}
		}
		// All the pairs in one read, too: each as explained alone.
		var names [][2]string
		for _, p := range picked {
			names = append(names, [2]string{tr.Symbols.String(p[0]), tr.Symbols.String(p[1])})
		}
		r, err := traces.NewReader(strings.NewReader(text), traces.WithName("test.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		together, err := ExplainAll(context.Background(), r, names, window)
		if err != nil {
			t.Fatalf("seed %d: ExplainAll: %v", seed, err)
		}
		for i, p := range picked {
			a, b := p[0], p[1]
			na, nb := tr.Symbols.String(a), tr.Symbols.String(b)
			ex, err := explainText(t, text, na, nb, window)
			if err != nil {
				t.Fatalf("seed %d, %s %s: %v", seed, na, nb, err)
			}
			if !reflect.DeepEqual(ex, together[i]) {
				t.Fatalf("seed %d, %s %s: explained with the others:\n%+v\nalone:\n%+v", seed, na, nb, together[i], ex)
			}
			want := g.Order(a, b)
			if ex.Order != want {
				t.Fatalf("seed %d: %s %s: Explain says %v, the reference %v", seed, na, nb, ex.Order, want)
			}
			if want == asyncclock.Concurrent {
				concurrent++
				if ex.Concurrent == nil || len(ex.Concurrent.Reasons) == 0 {
					t.Errorf("seed %d: %s || %s without an explanation", seed, na, nb)
				}
				continue
			}
			ordered++
			first, second := a, b
			if want == asyncclock.After {
				first, second = b, a
			}
			_, from, _ := g.EventNodes(first)
			to, _, _ := g.EventNodes(second)
			checkChain(t, g, tr, ex.Steps, from, to)
			ref := 0
			shortest := g.Explain(from, to)
			for i, s := range shortest {
				if i == 0 || s.Rule != asyncclock.PO || shortest[i-1].Rule != asyncclock.PO {
					ref++
				}
			}
			if len(ex.Steps) > ref {
				t.Errorf("seed %d: %s < %s: a chain of %d steps, the reference has one of %d", seed, tr.Symbols.String(first), tr.Symbols.String(second), len(ex.Steps), ref)
			}
			steps += len(ex.Steps)
			for _, s := range ex.Steps {
				rules[s.Rule]++
				if s.Rule == asyncclock.Window {
					windowFrom[s.From.Op]++
				}
			}
			if t.Failed() {
				return
			}
		}
	}
	t.Logf("%d ordered pairs (%d steps), %d concurrent; steps by rule %v; WINDOW steps from %v", ordered, steps, concurrent, rules, windowFrom)
	if ordered == 0 || concurrent == 0 {
		t.Errorf("the pairs exercise too little")
	}
	if !testing.Short() {
		for _, op := range []string{"end", "signal"} { // thread_end, rarer: testdata/hb/wide.jsonl
			if windowFrom[op] == 0 {
				t.Errorf("no WINDOW step from a %s", op)
			}
		}
	}
}

// checkChain checks that steps is a chain from node from to node to of the
// reference relation, each step an order the reference has, by a rule
// whose shape fits the two ops.
func checkChain(t *testing.T, g *asyncclock.Graph, tr *tracetest.Trace, steps []Step, from, to asyncclock.Node) {
	t.Helper()
	node := func(p Point) asyncclock.Node {
		if p.Op == "run" {
			n, _ := g.Run(tr.Symbols.Intern(p.Event))
			return n
		}
		return asyncclock.Node(p.Line - 2)
	}
	if len(steps) == 0 {
		t.Fatalf("no steps")
	}
	if node(steps[0].From) != from || node(steps[len(steps)-1].To) != to {
		t.Errorf("the chain goes from %s to %s, want %s to %s", steps[0].From.What, steps[len(steps)-1].To.What, g.Describe(from), g.Describe(to))
	}
	for i, s := range steps {
		f, e := node(s.From), node(s.To)
		if i > 0 && node(steps[i-1].To) != f {
			t.Errorf("step %d starts at %s, not where step %d ended", i+1, s.From.What, i)
		}
		if !g.Before(f, e) {
			t.Errorf("step %d (%s): %s does not happen before %s", i+1, s.Rule, g.Describe(f), g.Describe(e))
		}
		ok := true
		switch s.Rule {
		case asyncclock.PO:
			ok = s.From.Task == s.To.Task && s.From.Task != ""
		case asyncclock.Send:
			ok = s.From.Op == "send" && s.From.Event == s.To.Event
		case asyncclock.Fork:
			ok = s.From.Op == "fork" && s.To.Op == "thread_begin"
		case asyncclock.Join:
			ok = s.From.Op == "thread_end" && s.To.Op == "join"
		case asyncclock.Signal:
			ok = s.From.Op == "signal" && s.To.Op == "wait"
		case asyncclock.External:
			ok = s.From.Op == "send" && s.To.Op == "send"
		case asyncclock.LoopBegin:
			ok = s.To.Op == "begin"
		case asyncclock.LoopEnd:
			ok = s.From.Op == "end" && s.To.Op == "thread_end"
		case asyncclock.Priority, asyncclock.AtFront, asyncclock.IPCHandle, asyncclock.IPCAsync:
			ok = (s.From.Op == "end" || s.From.Op == "run") && (s.To.Op == "begin" || s.To.Op == "run")
		case asyncclock.Atomic:
			ok = s.From.Op == "end" && s.From.Event != s.To.Task
		case asyncclock.Window: // a looper's events; with the wide window, signals and threads too
			ok = s.From.Op == "end" && s.To.Op == "begin" || s.From.Op == "signal" && s.To.Op == "wait" ||
				s.From.Op == "thread_end" && s.To.Op == "thread_begin"
		}
		if !ok || s.Why == "" {
			t.Errorf("step %d: rule %s does not fit %s → %s (%q)", i+1, s.Rule, s.From.What, s.To.What, s.Why)
		}
	}
}

// TestExplainGolden prints the explanations of hand-written traces, one
// for each rule and each kind of concurrency, and checks them against
// testdata/hb/*.golden.
func TestExplainGolden(t *testing.T) {
	cases := []struct {
		file   string
		window time.Duration
		pairs  [][2]string
	}{
		// PRIORITY, PO, SIGNAL, FORK, SEND; concurrent events of one
		// queue, and of different threads.
		{"chain", 0, [][2]string{{"A", "D"}, {"D", "A"}, {"A", "F"}, {"D", "E"}, {"C", "E"}}},
		// LOOPBEGIN; LOOPEND and JOIN; a pending event.
		{"loopbegin", 0, [][2]string{{"A", "B"}, {"B", "E"}, {"B", "N"}}},
		// EXTERNAL; ATOMIC after a wait.
		{"external", 0, [][2]string{{"A", "Z"}, {"Y", "Z"}}},
		// WINDOW, and the same pair exact.
		{"window", asyncclock.DefaultWindow, [][2]string{{"A", "B"}}},
		{"window", 0, [][2]string{{"A", "B"}}},
		// The wide window: a signal and a wait on another handle, a
		// thread's end and another's begin, more than the window apart
		// (X and Y run on a binder thread).
		{"wide", asyncclock.DefaultWindow, [][2]string{{"X", "Z"}, {"X", "B"}}},
		{"wide", 0, [][2]string{{"X", "Z"}, {"X", "B"}}},
		// Removed events, ATFRONT, Table 3.1, a pending event.
		{"removed", 0, [][2]string{{"A", "R"}, {"R", "T"}, {"S", "A"}, {"S", "P"}, {"U", "U2"}, {"F", "N"}, {"R", "P"}, {"U", "F"}}},
		// IPCHANDLE, IPCASYNC, binder threads.
		{"binder", 0, [][2]string{{"A1", "A2"}, {"S1", "X"}, {"S1", "A1"}, {"S1", "A2"}}},
	}
	for _, c := range cases {
		name := c.file
		if c.window > 0 {
			name += "-window"
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "hb", c.file+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			for _, p := range c.pairs {
				fmt.Fprintf(&out, "$ licorice hb %s.jsonl %s %s\n", c.file, p[0], p[1])
				ex, err := explainText(t, string(data), p[0], p[1], c.window)
				if err != nil {
					t.Fatalf("%s %s: %v", p[0], p[1], err)
				}
				ex.WriteText(&out)
				out.WriteString("\n")
			}
			checkGolden(t, filepath.Join("hb", name+".golden"), out.Bytes())
		})
	}
}

// TestWindowAgrees: "licorice races" and "licorice hb" use the same
// window, the wide one: X's and B's writes (testdata/hb/wide.jsonl) race
// in the exact relation, and with the window the explanation of why they
// do not is a chain through a WINDOW step from a thread's end.
func TestWindowAgrees(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "hb", "wide.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, window := range []time.Duration{0, asyncclock.DefaultWindow} {
		r, err := traces.NewReader(bytes.NewReader(data), traces.WithName("wide.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Detect(context.Background(), r, Config{Window: window, Kind: DataRace})
		if err != nil {
			t.Fatal(err)
		}
		races := raceList(rep)
		ex, err := explainText(t, string(data), "X", "B", window)
		if err != nil {
			t.Fatal(err)
		}
		fromThreadEnd := slices.ContainsFunc(ex.Steps, func(s Step) bool { return s.Rule == asyncclock.Window && s.From.Op == "thread_end" })
		if ordered := ex.Order == asyncclock.Before; ordered != (window > 0) || ordered != fromThreadEnd || ordered == (len(races) > 0) {
			t.Errorf("window %v: races %v; hb says X is %v B, by %+v", window, races, ex.Order, ex.Steps)
		}
	}
}

func TestExplainErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/hb/chain.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ a, b, want string }{
		{"A", "A", "the same"},
		{"A", "Q", "event Q is not in the trace"},
		{"Q", "A", "event Q is not in the trace"},
	} {
		if _, err := explainText(t, string(data), c.a, c.b, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want %q", c.a, c.b, err, c.want)
		}
	}
}

func TestRelation(t *testing.T) {
	data, err := os.ReadFile("testdata/hb/chain.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := traces.NewReader(bytes.NewReader(data), traces.WithName("chain.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Relation(context.Background(), r, 0, &out); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("hb", "chain.relation"), out.Bytes())

	// Above the limit, a polite refusal.
	var big strings.Builder
	big.WriteString("{\"licorice_trace\":1}\n{\"op\":\"thread_begin\",\"t\":\"L\",\"kind\":\"looper\"}\n{\"op\":\"attach\",\"t\":\"L\",\"q\":\"q\"}\n")
	for i := range RelationLimit + 1 {
		fmt.Fprintf(&big, "{\"op\":\"send\",\"t\":\"L\",\"q\":\"q\",\"e\":\"E%d\"}\n", i)
	}
	r, err = traces.NewReader(strings.NewReader(big.String()), traces.WithName("big.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	err = Relation(context.Background(), r, 0, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "more than 2000 events") || !strings.Contains(err.Error(), "name two events") {
		t.Errorf("got %v, want a refusal above %d events", err, RelationLimit)
	}
}
