package asyncclock

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// Graph is the reference engine: the happens-before relation of
// docs/causality.md computed the slow, obvious way. Its nodes are the
// operations of a trace and one virtual node run(E) per removed event;
// its edges are the rules, each written once below next to its
// definition; the derived rules are applied to the transitive closure
// until nothing changes. It holds the whole trace and a bitset per node,
// so it is for traces of up to a few thousand operations: it is the
// yardstick the AsyncClock engine is tested against, and it explains
// orders (Explain).
type Graph struct {
	syms   *traces.Symbols
	ops    []traces.Op
	lines  []int
	ts     []float64 // trace time at each op: the largest ts so far
	window float64   // ms; 0: exact
	wide   bool      // Config.WideWindow, with the window on

	nodes   []gnode
	edges   map[[2]Node]Rule // each edge, with the first rule that gave it
	in      [][]Node         // in-edges, by node
	anc     []bitset         // anc[x]: the nodes that happen before x
	events  map[traces.Sym]*gEvent
	order   []*gEvent // events in send order
	tasks   map[traces.Sym][]int
	threads map[traces.Sym]*gThread

	fin      []gfin // rule applications out of events that never finished
	conflict error
}

// Node is a node of a [Graph]: an operation (its index in the trace's
// operations) or the virtual node run(E) of a removed event.
type Node int32

type gnode struct {
	op  int     // the op's index, or -1 for run(E)
	run *gEvent // run(E)'s event
}

type gEvent struct {
	id       traces.Sym
	queue    traces.Sym
	binder   bool
	cat      cat
	time     int64
	external bool
	sender   traces.Sym
	thread   traces.Sym // the thread that ran it
	send     int        // op indexes; -1 if none
	begin    int
	end      int
	remove   int
	run      Node  // run(E) for a removed event, else -1
	ops      []int // its operations, begin first
}

type gThread struct {
	kind  traces.ThreadKind
	begin int
	end   int
	own   []int // its own operations
}

// gfin is a rule that orders an event that never finished before the
// start of another: allowed only if nothing real follows from it.
type gfin struct {
	rule   Rule
	first  *gEvent
	target Node
}

// GraphLimit is the largest trace (in operations) NewGraph accepts.
const GraphLimit = 20000

// NewGraph builds the reference relation of the trace ops (in trace
// order, valid by the trace contract; lines[i] is the line of ops[i], or
// lines is nil for the canonical numbering, the header being line 1). A
// trace that contradicts the model gives a *ConflictError, with the
// graph, which can still explain the contradiction.
func NewGraph(ctx context.Context, syms *traces.Symbols, ops []traces.Op, lines []int, window time.Duration) (*Graph, error) {
	return NewGraphConfig(ctx, syms, ops, lines, Config{Window: window})
}

// NewGraphConfig is NewGraph with the approximations of cfg (Window and
// WideWindow; the other fields do not change the relation).
func NewGraphConfig(ctx context.Context, syms *traces.Symbols, ops []traces.Op, lines []int, cfg Config) (*Graph, error) {
	if len(ops) > GraphLimit {
		return nil, fmt.Errorf("the reference engine handles traces of up to %d operations; this one has %d", GraphLimit, len(ops))
	}
	if lines == nil {
		lines = make([]int, len(ops))
		for i := range lines {
			lines[i] = i + 2
		}
	}
	g := &Graph{
		syms: syms, ops: ops, lines: lines,
		window:  float64(cfg.Window) / float64(time.Millisecond),
		wide:    cfg.Window > 0 && cfg.WideWindow,
		edges:   make(map[[2]Node]Rule),
		events:  make(map[traces.Sym]*gEvent),
		tasks:   make(map[traces.Sym][]int),
		threads: make(map[traces.Sym]*gThread),
	}
	g.scan()
	g.baseRules()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g.closure()
		if g.derivedRules() == 0 {
			break
		}
	}
	g.conflict = g.consistency()
	return g, g.conflict
}

// scan collects the tasks, threads and events of the trace.
func (g *Graph) scan() {
	ts := 0.0
	g.ts = make([]float64, len(g.ops))
	for i := range g.ops {
		op := &g.ops[i]
		if op.HasTS && op.TS > ts {
			ts = op.TS
		}
		g.ts[i] = ts
		g.nodes = append(g.nodes, gnode{op: i})
		if op.Task != traces.NoSym {
			g.tasks[op.Task] = append(g.tasks[op.Task], i)
		}
		if th := g.threads[op.Task]; th != nil {
			th.own = append(th.own, i)
		}
		if ev := g.events[op.Task]; ev != nil && ev.begin >= 0 && op.Kind != traces.Begin {
			ev.ops = append(ev.ops, i)
		}
		switch op.Kind {
		case traces.ThreadBegin:
			g.threads[op.Task] = &gThread{kind: op.ThreadKind, begin: i, end: -1, own: []int{i}}
		case traces.ThreadEnd:
			g.threads[op.Task].end = i
		case traces.Send:
			ev := &gEvent{
				id: op.Event, queue: op.Queue, cat: catOf(op.SendKind, op.Async),
				external: op.External, sender: op.Task,
				send: i, begin: -1, end: -1, remove: -1, run: -1,
			}
			if op.SendKind != traces.AtFront {
				ev.time = op.Time
			}
			g.events[op.Event] = ev
			g.order = append(g.order, ev)
		case traces.Begin:
			ev := g.events[op.Task]
			ev.begin, ev.thread, ev.ops = i, op.Thread, []int{i}
		case traces.End:
			g.events[op.Task].end = i
		case traces.Remove:
			g.events[op.Event].remove = i
		}
	}
	binder := make(map[traces.Sym]bool)
	for i := range g.ops {
		if op := &g.ops[i]; op.Kind == traces.Attach {
			binder[op.Queue] = g.threads[op.Task].kind == traces.Binder
		}
	}
	for _, ev := range g.order {
		ev.binder = binder[ev.queue]
		if ev.remove >= 0 {
			ev.run = Node(len(g.nodes))
			g.nodes = append(g.nodes, gnode{op: -1, run: ev})
		}
	}
	g.in = make([][]Node, len(g.nodes))
	g.anc = make([]bitset, len(g.nodes))
	for i := range g.anc {
		g.anc[i] = newBitset(len(g.nodes))
	}
}

// start is the node standing for E's begin: begin(E), or run(E) if E was
// removed; -1 if E never started.
func (ev *gEvent) start() Node {
	if ev.begin >= 0 {
		return Node(ev.begin)
	}
	return ev.run
}

// finish is the node standing for E's end: end(E), or run(E); -1 if E
// never finished.
func (ev *gEvent) finish() Node {
	if ev.end >= 0 {
		return Node(ev.end)
	}
	return ev.run
}

func (ev *gEvent) looper() bool { return !ev.binder }

func (g *Graph) edge(from, to Node, r Rule) int {
	if from < 0 || to < 0 || from == to {
		return 0
	}
	k := [2]Node{from, to}
	if _, ok := g.edges[k]; ok {
		return 0
	}
	g.edges[k] = r
	g.in[to] = append(g.in[to], from)
	return 1
}

// before reports whether a happens before b in the current closure.
func (g *Graph) before(a, b Node) bool { return a >= 0 && b >= 0 && g.anc[b].has(int(a)) }

// baseRules adds the rules whose premises do not involve ≺.
func (g *Graph) baseRules() {
	ops := g.ops
	// PO: consecutive ops of the same task (a thread's own ops, or an
	// event's).
	for _, idx := range g.tasks {
		for k := 1; k < len(idx); k++ {
			g.edge(Node(idx[k-1]), Node(idx[k]), PO)
		}
	}
	var lastExternal = -1
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case traces.Fork: // FORK: fork(_, T) ≺ thread_begin(T)
			if th := g.threads[op.Thread]; th != nil {
				g.edge(Node(i), Node(th.begin), Fork)
			}
		case traces.ThreadBegin:
			// WINDOW (the wide window's approximation): a thread that
			// ended more than the window before another began.
			for j := range i {
				if g.wide && ops[j].Kind == traces.ThreadEnd && g.ts[i]-g.ts[j] > g.window {
					g.edge(Node(j), Node(i), Window)
				}
			}
		case traces.Join: // JOIN: thread_end(T) ≺ join(_, T)
			g.edge(Node(g.threads[op.Thread].end), Node(i), Join)
		case traces.Wait: // SIGNAL: signal(m) ≺ every later wait(m)
			for j := range i {
				if ops[j].Kind != traces.Signal {
					continue
				}
				if ops[j].Name == op.Name {
					g.edge(Node(j), Node(i), Signal)
				} else if g.wide && g.ts[i]-g.ts[j] > g.window {
					// WINDOW (the wide window's approximation): a
					// signal more than the window before a wait, on any
					// handle.
					g.edge(Node(j), Node(i), Window)
				}
			}
		case traces.Send:
			// SEND: send(E) ≺ begin(E) (run(E) for a removed event)
			g.edge(Node(i), g.events[op.Event].start(), Send)
			// EXTERNAL: external sends are totally ordered
			if op.External {
				if lastExternal >= 0 {
					g.edge(Node(lastExternal), Node(i), External)
				}
				lastExternal = i
			}
		}
	}
	for _, ev := range g.order {
		if ev.begin < 0 {
			continue
		}
		th := g.threads[ev.thread]
		// LOOPBEGIN: the thread's own ops before begin(E) ≺ begin(E)
		for k := len(th.own) - 1; k >= 0; k-- {
			if th.own[k] < ev.begin {
				g.edge(Node(th.own[k]), Node(ev.begin), LoopBegin)
				break
			}
		}
		// LOOPEND: end(E) ≺ thread_end(T)
		if ev.end >= 0 && th.end >= 0 {
			g.edge(Node(ev.end), Node(th.end), LoopEnd)
		}
	}
	for _, e1 := range g.order {
		for _, e2 := range g.order {
			if e1 == e2 || e1.begin < 0 || e2.begin < 0 || e1.thread != e2.thread {
				continue
			}
			// IPCHANDLE: binder events of one queue run by one binder
			// thread, begun and sent in order, from the same process,
			// E1 sync or E2 async.
			if e1.binder && e1.queue == e2.queue && e1.begin < e2.begin && e1.send < e2.send &&
				e1.external == e2.external && (!e1.cat.async() || e2.cat.async()) {
				g.edge(Node(e1.end), Node(e2.begin), IPCHandle)
			}
			// WINDOW (approximation): events of one looper thread, the
			// first ended more than the window before the second began.
			if g.window > 0 && e1.looper() && e1.end >= 0 && e1.end < e2.begin &&
				g.ts[e2.begin]-g.ts[e1.end] > g.window {
				g.edge(Node(e1.end), Node(e2.begin), Window)
			}
		}
	}
}

// derivedRules adds the rules whose premises involve ≺, as far as the
// current closure shows them, and returns how many edges it added.
func (g *Graph) derivedRules() int {
	added := 0
	g.fin = g.fin[:0]
	apply := func(r Rule, e1, e2 *gEvent, target Node) {
		if f := e1.finish(); f >= 0 {
			added += g.edge(f, target, r)
		} else {
			g.fin = append(g.fin, gfin{rule: r, first: e1, target: target})
		}
	}
	for _, e1 := range g.order {
		for _, e2 := range g.order {
			t2 := e2.start()
			if e1 == e2 || t2 < 0 || e1.queue != e2.queue {
				continue
			}
			s1, s2 := Node(e1.send), Node(e2.send)
			if e1.looper() {
				// PRIORITY: send(E1) ≺ send(E2) and Table 3.1 says E1 first.
				if g.before(s1, s2) && table31(e1, e2) {
					apply(Priority, e1, e2, t2)
				}
				// ATFRONT: E1 sent at front, send(E2) ≺ send(E1) ≺ begin(E2).
				if !e1.cat.timed() && g.before(s2, s1) && g.before(s1, t2) {
					apply(AtFront, e1, e2, t2)
				}
			}
			// IPCASYNC: binder events of one queue run by one binder
			// thread, both async, sent by the same task, send(E1) ≺ send(E2).
			if e1.binder && e1.begin >= 0 && e2.begin >= 0 && e1.thread == e2.thread &&
				e1.cat.async() && e2.cat.async() && e1.sender != traces.NoSym && e1.sender == e2.sender &&
				g.before(s1, s2) {
				apply(IPCAsync, e1, e2, t2)
			}
		}
	}
	// ATOMIC: events of one looper thread: if begin(E1) ≺ β for an op β
	// of E2, then end(E1) ≺ β (for the first such β; PO does the rest).
	for _, e1 := range g.order {
		if e1.begin < 0 || e1.end < 0 || !e1.looper() {
			continue
		}
		for _, e2 := range g.order {
			if e2 == e1 || e2.begin < 0 || e2.thread != e1.thread {
				continue
			}
			for _, b := range e2.ops {
				if g.before(Node(e1.begin), Node(b)) {
					added += g.edge(Node(e1.end), Node(b), Atomic)
					break
				}
			}
		}
	}
	return added
}

// closure makes anc the transitive closure of the edges. anc only grows,
// so it continues from the last closure.
func (g *Graph) closure() {
	for changed := true; changed; {
		changed = false
		for x := range g.nodes {
			for _, y := range g.in[x] {
				if g.anc[x].orWith(g.anc[y], int(y)) {
					changed = true
				}
			}
		}
	}
}

// consistency checks that the trace is consistent with the model
// (docs/causality.md, "Consistency"): nothing happens before an op that
// came earlier in the trace, nothing that follows run(E) came before
// remove(E), and no rule orders an event that never finished before
// anything real.
func (g *Graph) consistency() error {
	n := len(g.ops)
	pos := func(x Node) int { // the trace position of a node: remove(E) for run(E)
		if nd := g.nodes[x]; nd.op >= 0 {
			return nd.op
		} else {
			return nd.run.remove
		}
	}
	for b := range n {
		for a := range g.anc[b].all() {
			if pos(Node(a)) >= b {
				return g.conflictAt(Node(a), Node(b))
			}
		}
	}
	for _, f := range g.fin {
		reach := []Node{f.target}
		if f.target >= Node(n) {
			for b := range n {
				if g.anc[b].has(int(f.target)) {
					reach = append(reach, Node(b))
				}
			}
		}
		for _, b := range reach {
			if b < Node(n) {
				return &ConflictError{
					Line: g.lines[b], Rule: f.rule, First: g.name(f.first.id), FirstLine: g.lines[f.first.send],
					Detail: fmt.Sprintf("rule %s orders event %s (sent at line %d), which never finished, before the op at line %d",
						f.rule, g.name(f.first.id), g.lines[f.first.send], g.lines[b]),
				}
			}
		}
	}
	for x := n; x < len(g.nodes); x++ {
		if g.anc[x].has(x) {
			return &ConflictError{Detail: fmt.Sprintf("removed event %s happens before itself", g.name(g.nodes[x].run.id))}
		}
	}
	return nil
}

func (g *Graph) conflictAt(a, b Node) error {
	return &ConflictError{
		Line: g.lines[b],
		Detail: fmt.Sprintf("%s happens before the op at line %d, which came first (%s)",
			g.Describe(a), g.lines[b], g.explainText(a, b)),
	}
}

func (g *Graph) name(y traces.Sym) string {
	if g.syms == nil || int(y) >= g.syms.Len() {
		return fmt.Sprintf("#%d", y)
	}
	return g.syms.String(y)
}

// Conflict returns the contradiction NewGraph found, or nil.
func (g *Graph) Conflict() error { return g.conflict }

// NumOps returns the number of operations (the real nodes 0..NumOps-1).
func (g *Graph) NumOps() int { return len(g.ops) }

// Before reports whether node a happens before node b.
func (g *Graph) Before(a, b Node) bool { return g.before(a, b) }

// Run returns the virtual node run(E) of removed event id.
func (g *Graph) Run(id traces.Sym) (Node, bool) {
	ev := g.events[id]
	if ev == nil || ev.run < 0 {
		return -1, false
	}
	return ev.run, true
}

// EventNodes returns the nodes standing for the begin and end of event id
// (both run(E) for a removed event; -1 for what it never did).
func (g *Graph) EventNodes(id traces.Sym) (start, finish Node, ok bool) {
	ev := g.events[id]
	if ev == nil {
		return -1, -1, false
	}
	return ev.start(), ev.finish(), true
}

// Events returns the ids of the trace's events in send order.
func (g *Graph) Events() []traces.Sym {
	ids := make([]traces.Sym, len(g.order))
	for i, ev := range g.order {
		ids[i] = ev.id
	}
	return ids
}

// Order says how events a and b are ordered: a happens before b if a's
// end happens before b's begin (run(E) for removed events). Events that
// never ran are ordered with nothing.
func (g *Graph) Order(a, b traces.Sym) Order {
	ea, eb := g.events[a], g.events[b]
	if ea == nil || eb == nil {
		return Concurrent
	}
	switch {
	case g.before(ea.finish(), eb.start()):
		return Before
	case g.before(eb.finish(), ea.start()):
		return After
	}
	return Concurrent
}

// Step is one rule application in a chain that explains an order.
type Step struct {
	From, To Node
	Rule     Rule
}

// Explain returns a shortest chain of rule applications from a to b, or
// nil if a does not happen before b.
func (g *Graph) Explain(a, b Node) []Step {
	if !g.before(a, b) {
		return nil
	}
	out := make([][]Node, len(g.nodes))
	for k := range g.edges {
		out[k[0]] = append(out[k[0]], k[1])
	}
	for i := range out {
		slices.Sort(out[i])
	}
	prev := make([]Node, len(g.nodes))
	for i := range prev {
		prev[i] = -1
	}
	queue := []Node{a}
	prev[a] = a
	for len(queue) > 0 && prev[b] < 0 {
		x := queue[0]
		queue = queue[1:]
		for _, y := range out[x] {
			if prev[y] < 0 {
				prev[y] = x
				queue = append(queue, y)
			}
		}
	}
	var steps []Step
	for y := b; y != a; y = prev[y] {
		x := prev[y]
		steps = append(steps, Step{From: x, To: y, Rule: g.edges[[2]Node{x, y}]})
	}
	slices.Reverse(steps)
	return steps
}

// Line returns the trace line of node x (for run(E), of remove(E)).
func (g *Graph) Line(x Node) int {
	if nd := g.nodes[x]; nd.op >= 0 {
		return g.lines[nd.op]
	} else {
		return g.lines[nd.run.remove]
	}
}

// Describe names node x: `line 12: send E3 by T1`, or `run(E3)`.
func (g *Graph) Describe(x Node) string {
	nd := g.nodes[x]
	if nd.op < 0 {
		return fmt.Sprintf("run(%s) (removed at line %d)", g.name(nd.run.id), g.lines[nd.run.remove])
	}
	op := &g.ops[nd.op]
	s := fmt.Sprintf("line %d: %s", g.lines[nd.op], op.Kind)
	switch op.Kind {
	case traces.Send, traces.Remove:
		s += " " + g.name(op.Event)
	case traces.Fork, traces.Join:
		s += " " + g.name(op.Thread)
	case traces.Signal, traces.Wait:
		s += " " + g.name(op.Name)
	}
	if op.Task != traces.NoSym {
		s += " by " + g.name(op.Task)
	}
	return s
}

func (g *Graph) explainText(a, b Node) string {
	s := ""
	for i, st := range g.Explain(a, b) {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s to line %d", st.Rule, g.Line(st.To))
	}
	return s
}

// bitset is a set of small integers.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

// orWith adds t and i to s and reports whether s changed.
func (s bitset) orWith(t bitset, i int) bool {
	changed := false
	for k, w := range t {
		if n := s[k] | w; n != s[k] {
			s[k] = n
			changed = true
		}
	}
	if !s.has(i) {
		s[i/64] |= 1 << (i % 64)
		changed = true
	}
	return changed
}

// all yields the members of s in increasing order.
func (s bitset) all() func(func(int) bool) {
	return func(yield func(int) bool) {
		for k, w := range s {
			for w != 0 {
				b := bits.TrailingZeros64(w)
				if !yield(k*64 + b) {
					return
				}
				w &^= 1 << b
			}
		}
	}
}

// table31 is Table 3.1 of docs/causality.md as it is printed there: rows
// E1, columns E2, each Delayed Async, Delayed Sync, AtTime Async, AtTime
// Sync, AtFront Async, AtFront Sync. "≤" is t1 ≤ t2.
func table31(e1, e2 *gEvent) bool {
	const (
		no  = "false"
		yes = "true"
		le  = "t1 ≤ t2"
	)
	table := [6][6]string{
		{le, le, no, no, no, no},
		{no, le, no, no, no, no},
		{no, no, le, le, no, no},
		{no, no, no, le, no, no},
		{yes, yes, yes, yes, no, no},
		{no, yes, no, yes, no, no},
	}
	row := func(c cat) int { // the table's order: delayed, at-time, at-front; async before sync
		return map[cat]int{catDA: 0, catDS: 1, catTA: 2, catTS: 3, catAFA: 4, catAFS: 5}[c]
	}
	switch table[row(e1.cat)][row(e2.cat)] {
	case yes:
		return true
	case le:
		return e1.time <= e2.time
	}
	return false
}
