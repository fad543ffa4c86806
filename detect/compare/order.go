package compare

import (
	"context"
	"fmt"
	"strings"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/traces"
)

// reduced is the reference engine's graph of a trace without the reads
// and writes that are not asked about, which order nothing: a few
// thousand operations for a real log.
type reduced struct {
	*asyncclock.Graph
	t    *trace
	ops  []traces.Op
	node map[int]asyncclock.Node // the trace's ops -> their nodes
	send map[traces.Sym]asyncclock.Node
}

// additions are operations inserted into a trace, before and after some
// of its operations: the orders of a rule of DroidRacer's that licorice
// lacks, as signals and waits.
type additions struct {
	before, after map[int][]traces.Op
}

// graph builds the reference engine's graph of the trace with only the
// reads and writes of pairs, and add inserted (nil: none).
func (t *trace) graph(ctx context.Context, pairs []*Pair, add *additions) (*reduced, error) {
	keep := map[int]bool{}
	for _, p := range pairs {
		keep[p.First.op], keep[p.Second.op] = true, true
	}
	g := &reduced{t: t, node: map[int]asyncclock.Node{}, send: map[traces.Sym]asyncclock.Node{}}
	var lines []int
	insert := func(ops []traces.Op, line int) {
		g.ops = append(g.ops, ops...)
		for range ops {
			lines = append(lines, line)
		}
	}
	for i := range t.ops {
		op := &t.ops[i]
		if (op.Kind == traces.Read || op.Kind == traces.Write) && !keep[i] {
			continue
		}
		if add != nil {
			insert(add.before[i], t.lines[i])
		}
		g.node[i] = asyncclock.Node(len(g.ops))
		if op.Kind == traces.Send {
			g.send[op.Event] = g.node[i]
		}
		insert(t.ops[i:i+1], t.lines[i])
		if add != nil {
			insert(add.after[i], t.lines[i])
		}
	}
	var err error
	if g.Graph, err = asyncclock.NewGraph(ctx, t.syms, g.ops, lines, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return g, nil
}

// order says how licorice orders the two accesses of each pair, with a
// shortest chain of rules for ordered pairs and `licorice hb`'s account of
// concurrent accesses by two events.
func (t *trace) order(ctx context.Context, pairs []*Pair) error {
	g, err := t.graph(ctx, pairs, nil)
	if err != nil {
		return err
	}
	explained := map[[2]string]*races.Concurrency{}
	for _, p := range pairs {
		a, b := g.node[p.First.op], g.node[p.Second.op]
		switch {
		case g.Before(a, b):
			p.Order, p.Chain = asyncclock.Before, g.chain(a, b, 0)
		case g.Before(b, a):
			p.Order, p.Chain = asyncclock.After, g.chain(b, a, 0)
		case p.First.Event != "" && p.Second.Event != "" && p.First.Event != p.Second.Event:
			k := [2]string{p.First.Event, p.Second.Event}
			c, ok := explained[k]
			if !ok {
				r, err := t.eventReader()
				if err != nil {
					return err
				}
				ex, err := races.Explain(ctx, r, k[0], k[1], 0)
				if err != nil {
					return fmt.Errorf("%s: %w", t.name, err)
				}
				c = ex.Concurrent
				explained[k] = c
			}
			p.Concurrency = c
		}
	}
	return nil
}

// maxPremise bounds how deep chains explain the premises of their steps.
const maxPremise = 2

// chain returns a shortest chain of rule applications from node a to node
// b, a run of program order in one task counting as one step, and, to
// depth maxPremise, the premises of its PRIORITY steps.
func (g *reduced) chain(a, b asyncclock.Node, depth int) []Step {
	var out []Step
	for _, s := range g.Explain(a, b) {
		if n := len(out); n > 0 && s.Rule == asyncclock.PO && out[n-1].Rule == asyncclock.PO && out[n-1].To.Task == g.point(s.To).Task {
			out[n-1].To = g.point(s.To)
			out[n-1].Why = poWhy(out[n-1].From, out[n-1].To)
			continue
		}
		st := Step{Step: races.Step{Rule: s.Rule, From: g.point(s.From), To: g.point(s.To)}}
		st.Why = g.why(st.Step, s.From, s.To)
		if depth < maxPremise {
			if x, y, ok := g.premise(s); ok {
				st.Premise = g.chain(x, y, depth+1)
			}
		}
		out = append(out, st)
	}
	return out
}

// premise returns the two nodes of the order a PRIORITY step starts from,
// the sends of its two events; ok is false for other rules and when one
// task made both sends (program order needs no explanation). ATOMIC's
// premise, the first event's begin before the operation, is not
// explained: a shortest chain for it would run through the step itself.
func (g *reduced) premise(s asyncclock.Step) (x, y asyncclock.Node, ok bool) {
	if s.Rule != asyncclock.Priority || int(s.From) >= len(g.ops) || int(s.To) >= len(g.ops) {
		return 0, 0, false
	}
	x, ok1 := g.send[g.ops[s.From].Task]
	y, ok2 := g.send[g.ops[s.To].Task]
	if !ok1 || !ok2 || g.ops[x].Task == g.ops[y].Task {
		return 0, 0, false
	}
	return x, y, true
}

// point describes node x.
func (g *reduced) point(x asyncclock.Node) races.Point {
	if int(x) >= len(g.ops) { // run(E) of a removed event: the import writes none
		return races.Point{Line: g.Line(x), Op: "run", What: g.Describe(x)}
	}
	t := g.t
	op := &g.ops[x]
	p := races.Point{Line: g.Line(x), Op: op.Kind.String(), Task: t.str(op.Task)}
	by := " by " + p.Task
	switch op.Kind {
	case traces.Send:
		p.Event = t.str(op.Event)
		p.What = fmt.Sprintf("send of %s%s to queue %s", p.Event, by, t.str(op.Queue))
		if op.External {
			p.What += " (external)"
		}
	case traces.Begin:
		p.Event = p.Task
		p.What = fmt.Sprintf("begin of %s on %s", p.Task, t.str(op.Thread))
	case traces.End:
		p.Event = p.Task
		p.What = "end of " + p.Task
	case traces.Signal, traces.Wait:
		p.What = fmt.Sprintf("%s on %s%s", op.Kind, t.str(op.Name), by)
	case traces.Lock, traces.Unlock:
		p.What = fmt.Sprintf("%s of %s%s", op.Kind, t.str(op.Name), by)
	case traces.Fork, traces.Join:
		p.What = fmt.Sprintf("%s of %s%s", op.Kind, t.str(op.Thread), by)
	case traces.Read, traces.Write:
		p.What = fmt.Sprintf("%s of %s.%s%s", op.Kind, t.str(op.Loc.Obj), t.str(op.Loc.Field), by)
	case traces.ThreadBegin, traces.ThreadEnd:
		p.What = fmt.Sprintf("%s of %s", op.Kind, p.Task)
	default:
		p.What = op.Kind.String() + by
	}
	return p
}

func poWhy(from, to races.Point) string {
	return fmt.Sprintf("%s does line %d before line %d (program order)", from.Task, from.Line, to.Line)
}

// why says in words why rule application s, from node x to node y, holds.
func (g *reduced) why(s races.Step, x, y asyncclock.Node) string {
	switch s.Rule {
	case asyncclock.PO:
		return poWhy(s.From, s.To)
	case asyncclock.Fork:
		return "a thread begins after it is forked"
	case asyncclock.Join:
		return "a join waits for the thread to end"
	case asyncclock.Signal:
		return signalWhy(g.t.str(g.ops[y].Name))
	case asyncclock.Send:
		return "an event begins after it is sent"
	case asyncclock.LoopBegin:
		return fmt.Sprintf("thread %s did line %d before it began running %s", g.t.str(g.ops[y].Thread), s.From.Line, s.To.Task)
	case asyncclock.LoopEnd:
		return "a thread ends after the events it ran"
	case asyncclock.External:
		return "inputs from outside the program are totally ordered (rule EXTERNAL)"
	case asyncclock.Priority:
		return fmt.Sprintf("%s and %s are events of one queue, %s was sent before %s, and the queue runs it first (PRIORITY, docs/causality.md)",
			s.From.Task, s.To.Task, s.From.Task, s.To.Task)
	case asyncclock.AtFront:
		return fmt.Sprintf("%s was sent at the front of the queue while %s waited in it", s.From.Task, s.To.Task)
	case asyncclock.Atomic:
		return fmt.Sprintf("%s and %s run on one looper and %s's line %d comes after %s began: events of a looper never interleave, so %s had ended",
			s.From.Task, s.To.Task, s.To.Task, s.To.Line, s.From.Task, s.From.Task)
	}
	return s.Rule.String()
}

// signalWhy says why a wait on handle h follows its signal: what the
// import (or a rule of DroidRacer's) encodes as that handle.
func signalWhy(h string) string {
	family, _, _ := strings.Cut(h, "@")
	what := map[string]string{
		"lifecycle":         "a lifecycle callback is triggered after it is enabled",
		"event":             "a UI event is triggered after its view enables it",
		"focus":             "a window focus change is triggered after it is enabled",
		"idle":              "an idle handler runs after it is added",
		"notify":            "a WAIT returns after the NOTIFY to its thread",
		"broadcast":         "a broadcast is received after its receiver is registered and it is sent",
		"receiver":          "a broadcast is received after its receiver is registered",
		"service":           "a service callback follows its request",
		"nested":            "a nested message runs after it is posted",
		"activity":          "the activity lifecycle runs an instance's callbacks in order (--lifecycle)",
		"activity-post":     "the system posts an activity instance's callbacks in lifecycle order (--lifecycle)",
		"droidracer-unlock": "DroidRacer orders an unlock before the next lock of the lock by another thread",
	}[family]
	if what == "" {
		what = "a wait comes after every earlier signal of its handle"
	}
	return fmt.Sprintf("%s (%s)", what, h)
}
