package asyncclock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/internal/golden"
)

// A case is a small hand-written trace under testdata/cases with the
// orders it must give. A want is "A<B" (event A happens before event B),
// "A||B" (concurrent), "@5<@9" (the op at line 5 happens before the op at
// line 9) or "@5!<@9" (it does not).
type ruleCase struct {
	file     string
	window   time.Duration
	wide     bool // Config.WideWindow
	want     []string
	conflict *ConflictError // the contradiction the engines must report (Rule, First, Second, Line)
}

var ruleCases = []ruleCase{
	{file: "po", want: []string{"A||B", "@6<@7", "@10<@11", "@12!<@13", "@6<@10", "@11!<@14"}},
	{file: "fork", want: []string{"A<B", "C||B", "A<C", "@6<@8"}},
	{file: "join", want: []string{"A<B", "A||C", "C<B", "@7<@9"}},
	{file: "signal", want: []string{"A<B", "C<B", "A||C", "@9<@10", "@6!<@9"}},
	{file: "send", want: []string{"@5<@9", "@7!<@9", "@6<@8"}},
	{file: "loopbegin", want: []string{"A||B", "@4<@9", "@4<@13", "@12<@13", "@11!<@12", "@10!<@13"}},
	{file: "loopend", want: []string{"A||B", "@10<@14", "@13<@14", "@12<@16", "@9<@16"}},
	{file: "external", want: []string{"@7<@8", "@8<@9", "A<C", "A||B", "A||D", "D||C", "B||C"}},
	{file: "atomic", want: []string{"A||B", "@12<@15", "@12!<@14", "@11<@16", "@11!<@14"}},
	{file: "binder_atomic", want: []string{"A||C", "@12!<@14", "@10<@14", "@11!<@15"}},
	{file: "ipchandle", want: []string{
		"S1<S2", "S2<A1", "S2<S3", "A1||S3", "S3<S4", "A1||S4", "X||S4", "S3||X", "P||S1", "P||S2", "P||S4", "S1<S4"}},
	{file: "ipcasync", want: []string{"A<C", "A||D", "C||D"}},
	{file: "window", want: []string{"A||C", "A||B", "B<C"}},
	{file: "window", window: DefaultWindow, want: []string{"A<C", "A||B", "B<C"}},
	{file: "window_threads", want: []string{"@4!<@10", "@7!<@12", "@13!<@16"}},
	{file: "window_threads", window: DefaultWindow, want: []string{"@4!<@10", "@7!<@12", "@13!<@16"}},
	{file: "window_threads", window: DefaultWindow, wide: true, want: []string{"@4<@10", "@7<@12", "@13!<@16", "@7<@16"}},
	{file: "fig3_4a", want: []string{"A<B"}},
	{file: "fig3_4b", want: []string{"A||B"}},
	{file: "fig3_4c", want: []string{"B<A", "C<A", "C<B"}},
	{file: "fig3_4d", want: []string{"A||B"}},
	{file: "fig3_4e", want: []string{"A||B"}},
	{file: "fig4_1", want: []string{"A<D", "B<D", "C||D", "B<C", "C<E", "B<E", "A||E", "D||E", "A||B", "A||C"}},
	{file: "fig4_3", want: []string{"A1<A2", "A1||B1", "B1||A2"}},
	{file: "removed", want: []string{"A<R", "R<S", "A<S", "A||X", "R||X", "S||X"}},
	{file: "conflict_priority", conflict: &ConflictError{Rule: Priority, First: "A", Second: "B", Line: 7}},
	{file: "conflict_atfront", conflict: &ConflictError{Rule: AtFront, First: "B", Second: "A", Line: 10}},
	{file: "conflict_ipcasync", conflict: &ConflictError{Rule: IPCAsync, First: "A", Second: "C", Line: 9}},
}

// table31 is Table 3.1 of docs/causality.md once more, as the outcomes the
// testdata/cases/table31_* traces must give: W sends E1 then E2 to one
// queue, and the looper runs E1 then E2.
const table31Grid = `
    da  ds  ta  ts  fa  fs
da  <=  <=  no  no  no  no
ds  no  <=  no  no  no  no
ta  no  no  <=  <=  no  no
ts  no  no  no  <=  no  no
fa  yes yes yes yes no  no
fs  no  yes no  yes no  no
`

func table31Cases(t *testing.T) []ruleCase {
	rows := strings.Fields(strings.TrimSpace(table31Grid))
	cols := rows[:6]
	var cs []ruleCase
	for r := range 6 {
		line := rows[6+r*7 : 6+r*7+7]
		for c := range 6 {
			name := "table31_" + line[0] + "_" + cols[c]
			switch line[1+c] {
			case "yes":
				cs = append(cs, ruleCase{file: name, want: []string{"E1<E2"}})
			case "no":
				if line[0][0] == cols[c][0] && line[0][0] != 'f' { // both delayed, or both at-time: every time order
					for _, v := range []string{"_lt", "_eq", "_gt"} {
						cs = append(cs, ruleCase{file: name + v, want: []string{"E1||E2"}})
					}
					continue
				}
				cs = append(cs, ruleCase{file: name, want: []string{"E1||E2"}})
			case "<=":
				cs = append(cs,
					ruleCase{file: name + "_lt", want: []string{"E1<E2"}},
					ruleCase{file: name + "_eq", want: []string{"E1<E2"}},
					ruleCase{file: name + "_gt", want: []string{"E1||E2"}})
			default:
				t.Fatalf("bad table cell %q", line[1+c])
			}
		}
	}
	return cs
}

func TestCases(t *testing.T) {
	for _, c := range append(ruleCases, table31Cases(t)...) {
		name := c.file
		if c.window > 0 {
			name += "_window"
		}
		if c.wide {
			name += "_wide"
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "cases", c.file+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			tr := parseTrace(t, string(data))
			cfg := Config{Window: c.window, WideWindow: c.wide}
			checkEquivalent(t, c.file, tr, cfg)
			g, gerr := NewGraphConfig(context.Background(), tr.syms, tr.ops, tr.lines, cfg)
			r := runEngine(tr, cfg)
			if c.conflict != nil {
				checkConflict(t, c.conflict, gerr, r.err)
				return
			}
			if gerr != nil || r.err != nil {
				t.Fatalf("unexpected contradiction: %v / %v", gerr, r.err)
			}
			for _, w := range c.want {
				checkWant(t, tr, g, r, w)
			}
			if !strings.HasPrefix(name, "table31_") { // their two events say it all
				checkGolden(t, filepath.Join("testdata", "cases", name+".golden"), relation(tr, g))
			}
		})
	}
}

func checkConflict(t *testing.T, want *ConflictError, gerr, eerr error) {
	t.Helper()
	if gerr == nil {
		t.Errorf("the reference engine finds no contradiction")
	}
	var ce *ConflictError
	if !errors.As(eerr, &ce) {
		t.Fatalf("asyncclock: got %v, want a contradiction", eerr)
	}
	if ce.Rule != want.Rule || ce.First != want.First || ce.Second != want.Second || ce.Line != want.Line {
		t.Errorf("asyncclock: got %s (rule %s, %s before %s, line %d); want rule %s, %s before %s, line %d",
			ce, ce.Rule, ce.First, ce.Second, ce.Line, want.Rule, want.First, want.Second, want.Line)
	}
	if ce.FirstLine == 0 || !strings.Contains(ce.Error(), strconv.Itoa(ce.FirstLine)) {
		t.Errorf("asyncclock: the error does not give the line of %s: %s", ce.First, ce)
	}
}

// checkWant checks one expected order on both engines.
func checkWant(t *testing.T, tr *trace, g *Graph, r *engineRun, w string) {
	t.Helper()
	if strings.HasPrefix(w, "@") {
		not := strings.Contains(w, "!<")
		a, b, _ := strings.Cut(strings.ReplaceAll(w, "!<", "<"), "<")
		la, _ := strconv.Atoi(a[1:])
		lb, _ := strconv.Atoi(b[1:])
		ia, ib := la-2, lb-2 // line 1 is the header
		if g.Before(Node(ia), Node(ib)) == not {
			t.Errorf("%s: the reference says %v", w, !not)
		}
		if r.before(ia, ib) == not {
			t.Errorf("%s: asyncclock says %v", w, !not)
		}
		return
	}
	want, sep := Before, "<"
	if strings.Contains(w, "||") {
		want, sep = Concurrent, "||"
	}
	a, b, _ := strings.Cut(w, sep)
	ya, yb := tr.syms.Intern(a), tr.syms.Intern(b)
	if got := g.Order(ya, yb); got != want {
		t.Errorf("%s: the reference says %s %v %s", w, a, got, b)
	}
	got, err := r.e.Order(ya, yb)
	if err != nil || got != want {
		t.Errorf("%s: asyncclock says %s %v %s (%v)", w, a, got, b, err)
	}
}

// relation prints how every pair of events is ordered, and why, as the
// reference engine sees it.
func relation(tr *trace, g *Graph) string {
	var b strings.Builder
	ids := g.Events()
	for _, a := range ids {
		for _, c := range ids {
			if a == c || g.Order(a, c) != Before {
				continue
			}
			_, fa, _ := g.EventNodes(a)
			sc, _, _ := g.EventNodes(c)
			fmt.Fprintf(&b, "%s < %s:", tr.syms.String(a), tr.syms.String(c))
			for _, st := range g.Explain(fa, sc) {
				fmt.Fprintf(&b, " %s→%d", st.Rule, g.Line(st.To))
			}
			b.WriteByte('\n')
		}
	}
	for i, a := range ids {
		for _, c := range ids[i+1:] {
			if g.Order(a, c) == Concurrent {
				fmt.Fprintf(&b, "%s || %s\n", tr.syms.String(a), tr.syms.String(c))
			}
		}
	}
	return b.String()
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// TestReclaimFig4_3 is the multi-path reduction of thesis Fig. 4.3: T
// sends A1 to q, B1 to q2, then A2 to q. B1's end still knows A1's send,
// so a plain reference count would keep A1; but B1's send knew it already,
// and A2, which finished, precedes whatever A1 could precede: A1 is
// heirless and reclaimed. A2 and B1 are not (T may send more).
func TestReclaimFig4_3(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "cases", "fig4_3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr := parseTrace(t, string(data))
	e := New(tr.syms, Config{GCEvery: 1 << 20})
	for i := range tr.ops {
		if err := e.Step(&tr.ops[i], tr.lines[i]); err != nil {
			t.Fatal(err)
		}
	}
	tracked := func(id string) bool {
		_, ok := e.Event(tr.syms.Intern(id))
		return ok
	}
	for _, id := range []string{"A1", "A2", "B1"} {
		if !tracked(id) {
			t.Fatalf("%s is not tracked before the collection", id)
		}
	}
	e.collect()
	if tracked("A1") {
		t.Errorf("A1 is still tracked after the collection; it is heirless")
	}
	for _, id := range []string{"A2", "B1"} {
		if !tracked(id) {
			t.Errorf("%s was reclaimed; T may still send an event it precedes", id)
		}
	}
}
