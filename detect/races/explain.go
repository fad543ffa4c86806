package races

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// Explanation says how two events of a trace are ordered, and why.
type Explanation struct {
	Trace string
	A, B  string
	// Order is how A and B are ordered: Before if A happens before B
	// (A's end happens before B's begin), After if B happens before A.
	Order  asyncclock.Order
	Window time.Duration // the engine's time window (0: exact)
	// Steps, when A and B are ordered, is a shortest chain of rule
	// applications from the end of the first to the begin of the second.
	Steps []Step
	// Concurrent, when they are not, says what is missing.
	Concurrent *Concurrency
	// Note, if set, says where AsyncClock's time window gives another answer.
	Note string
}

// Point is an operation of a chain: a line of the trace, or the virtual
// run(E) of a removed event.
type Point struct {
	Line  int    // the op's line (for run(E), the line of remove(E))
	Op    string // "end", "send", ..., or "run" for run(E)
	Task  string // the task that did it ("" for run(E) and for an external send without a task)
	Event string // the event it sends, begins, ends or stands for ("" for other ops)
	What  string // the op in words: "end of E3", "send of E5 by T1 to queue q"
}

// Step is one rule application of a chain.
type Step struct {
	Rule     asyncclock.Rule
	From, To Point
	Why      string // in words a developer follows
}

// Concurrency explains why two events are concurrent.
type Concurrency struct {
	First, Second string // the event that finished first, and the other
	// Reasons, in words: how each was sent, what the rules of their queue
	// or looper say of them.
	Reasons []string
	// Successors are the earliest events the first one happens before,
	// Predecessors the latest events that happen before the second one (a
	// few of each): a chain from First to Second would need one of the
	// first to come before one of the second.
	Successors, Predecessors []EventRef
	// Unrun is set if one of them never ran: a pending event is ordered
	// with nothing.
	Unrun string
}

// EventRef names an event and where it ran.
type EventRef struct {
	ID        string
	Handler   string // its first handler call, if any
	Thread    string
	BeginLine int
	EndLine   int
}

// maxScan bounds how many candidates of one distance a rule that has many
// (PRIORITY, ATOMIC, IPC) looks at, newest first, before it settles for a
// longer chain through a nearer one. Traces with fewer events than this
// per queue or looper get the shortest chain.
const maxScan = 1 << 12

// Explain reads the trace r and says how events a and b are ordered and
// why. It streams the trace once and keeps only what a chain from the
// first event's end can pass through, so it works on traces of any size.
func Explain(ctx context.Context, r *traces.Reader, a, b string, window time.Duration) (*Explanation, error) {
	ex, _, err := explain(ctx, r, a, b, window, defaultLimits)
	return ex, err
}

// ExplainAll is Explain for several pairs of events of the trace r, in
// one read of it: the searches share the happens-before engine, so that
// the read costs about what one explanation's does. It returns the
// explanations in the order of pairs, or the first error (a pair of one
// event twice, an event not in the trace) naming its pair.
func ExplainAll(ctx context.Context, r *traces.Reader, pairs [][2]string, window time.Duration) ([]*Explanation, error) {
	exs, _, err := explainAll(ctx, r, pairs, window, defaultLimits)
	return exs, err
}

// limits are the bounds of a search: it compacts its nodes from compactAt
// nodes on (minCompact), and scans at most scan candidates of a distance
// (maxScan). Tests lower them, to see what happens past them.
type limits struct {
	compactAt int32
	scan      int
}

var defaultLimits = limits{compactAt: minCompact, scan: maxScan}

// explain is Explain within lim. It also returns the most nodes the
// search held at once.
func explain(ctx context.Context, r *traces.Reader, a, b string, window time.Duration, lim limits) (*Explanation, int32, error) {
	exs, peaks, err := explainAll(ctx, r, [][2]string{{a, b}}, window, lim)
	if err != nil {
		return nil, 0, err
	}
	return exs[0], peaks[0], nil
}

// explainAll is ExplainAll within lim, with the most nodes each search
// held at once. The error of a single pair is not wrapped (Explain's).
func explainAll(ctx context.Context, r *traces.Reader, pairs [][2]string, window time.Duration, lim limits) ([]*Explanation, []int32, error) {
	wrap := func(p [2]string, err error) error {
		if len(pairs) == 1 {
			return err
		}
		return fmt.Errorf("%s and %s: %w", p[0], p[1], err)
	}
	syms := r.Symbols()
	eng := asyncclock.New(syms, asyncclock.Config{Window: window, WideWindow: true})
	eng.SetFile(r.Name())
	xs := make([]*explainer, len(pairs))
	for i, p := range pairs {
		if p[0] == p[1] {
			return nil, nil, wrap(p, fmt.Errorf("explain: the two events are the same (%s)", p[0]))
		}
		xs[i] = newExplainer(eng, syms, syms.Intern(p[0]), syms.Intern(p[1]), window)
		xs[i].minCompact, xs[i].nextCompact, xs[i].scan = lim.compactAt, lim.compactAt, lim.scan
	}
	searching := slices.Clone(xs)
	err := traces.EachAhead(ctx, r, func(op *traces.Op) error {
		line := r.Line()
		if err := eng.Step(op, line); err != nil {
			return err
		}
		n := 0
		for _, x := range searching {
			if x.step(op, line); !x.done {
				searching[n] = x
				n++
			}
		}
		if searching = searching[:n]; n == 0 {
			return errExplained
		}
		return nil
	})
	if err != nil && err != errExplained {
		return nil, nil, err
	}
	if len(searching) > 0 {
		// The trace ended with some searches going: the engine settles
		// what it still had open (removed events' runs) for them.
		if err := eng.Finish(); err != nil {
			return nil, nil, err
		}
	}
	exs, peaks := make([]*Explanation, len(xs)), make([]int32, len(xs))
	for i, x := range xs {
		ex, err := x.finish()
		if err != nil {
			return nil, nil, wrap(pairs[i], err)
		}
		ex.Trace, ex.Window = r.Name(), window
		exs[i], peaks[i] = ex, max(x.peak, x.nodes.len())
	}
	return exs, peaks, nil
}

// errExplained stops Explain's read of the trace once the explainer is
// done: the rest of the trace cannot change its answer.
var errExplained = errors.New("explained")

// explainer is the state of one Explain run: a forward search from the
// finish of the first of the two events to finish (src), over the rule
// edges of docs/causality.md, in trace order. Every edge goes forward in
// the trace, so when an operation is stepped, every way to reach it is
// known: its distance (the fewest rule applications from src, program
// order within a task counting as one) is the least over its in-edges of
// the source's distance plus one. The premises of the derived rules (a
// send that happens before another, a begin that knows another) are
// asked of AsyncClock's times, live, so nothing but the reached
// operations is kept.
type explainer struct {
	eng    *asyncclock.Engine
	syms   *traces.Symbols
	window float64 // ms
	a, b   traces.Sym
	ts     float64 // the largest ts so far
	line   int
	done   bool // the answer is known: stop reading

	events     map[traces.Sym]*xEvent // pending and running events, a and b, and what the search reached
	threads    map[traces.Sym]*xThread
	queues     map[traces.Sym]*xQueue
	tasks      map[traces.Sym]*xTask
	unresolved []*xEvent // removed events whose run(E) the engine has not resolved yet
	// resolutions is the engine's count of resolutions when resolved last
	// looked: until it changes, none of unresolved is.
	resolutions int64

	// The search, once the first of a and b has finished (src).
	src, dst  *xEvent
	nodes     nodeStore
	handles   map[traces.Sym]int32 // per handle, its signal with the least distance
	forks     map[traces.Sym]int32 // per forked thread, its fork
	ends      map[traces.Sym]int32 // per ended thread, its thread_end
	signals   aging                // the reached signals, for the wide window
	threadEnd aging                // the reached thread ends, for the wide window
	external  int32                // the external send with the least distance
	target    int32                // the node of dst's begin (or run), once reached
	dstStart  asyncclock.Time      // the time of dst's begin (or run)
	dstKnown  bool
	computing map[*xEvent]bool // run(E) being computed (guards the recursion)

	recent []*xEvent // the latest events that ended, for the concurrency explanation
	// firstBegins are the first begins the search reached (at most
	// four), for the concurrency explanation.
	firstBegins []int32

	peak        int32  // the most nodes held at once, before a compaction
	gen         uint32 // of the current walk of compact (explaincompact.go)
	nextCompact int32  // compact when there are this many nodes
	minCompact  int32  // the fewest nodes to compact (minCompact; less in tests)
	scan        int    // maxScan (less in tests)
}

// xNode is an operation the search reached: the finish of src, or an
// operation after it.
type xNode struct {
	line int32
	dist int32 // rule applications from src's finish
	pred int32 // the node it was reached from (-1 for the start)
	rule asyncclock.Rule
	kind traces.Kind // 0 for run(E)
	task traces.Sym
	aux  traces.Sym // the thread, handle or event the op names
	ev   *xEvent    // the event it is the send, begin, end or run of
}

type xEvent struct {
	id        traces.Sym
	q         *xQueue
	kind      traces.SendKind
	async     bool
	time      int64
	external  bool
	sender    traces.Sym
	sendLine  int
	sendEpoch asyncclock.Epoch
	sendTime  asyncclock.Time // while pending, and for at-front events
	sendNode  int32           // -1 unless the search reached it
	th        *xThread
	handler   traces.Sym // its first handler call
	status    asyncclock.EventStatus

	beginLine, endLine, removeLine int
	beginEpoch, endEpoch           asyncclock.Epoch
	endTS                          float64
	endNode                        int32 // its end (or run(E)), -1 unless reached

	// A removed event's run(E) stands for its begin and end. It has the
	// place in the trace where the engine resolves it: a begin that needs
	// it, a collection once all its predecessors finished, or the end of
	// the trace; every predecessor has finished by then.
	resolved bool
	runTime  asyncclock.Time // the time of run(E), if the engine still tracked it then
	runKnown bool

	gen uint32 // the last walk of compact that visited it
}

type xThread struct {
	id     traces.Sym
	kind   traces.ThreadKind
	name   traces.Sym
	own    *xTask
	byDist [][]*xEvent // the events it ran that the search reached, by distance
	window aging       // their ends (loopers, with the time window)
	ends   int32       // LOOPEND: the reached end of its events of the least distance
}

type xQueue struct {
	id         traces.Sym
	binder     bool
	byDist     [][]*xEvent // looper: its finished events the search reached, by distance
	atFront    []*xEvent   // looper: those of them sent at front, by send line
	unresolved []*xEvent   // looper: its removed events whose run(E) is not resolved
}

type xTask struct {
	id   traces.Sym
	th   *xThread
	ev   *xEvent // nil for a thread's own task
	best int32   // its reached op of the least distance so far (PO), -1 if none
	gen  uint32  // the last walk of compact that visited it
}

// newExplainer returns the search for how a and b are ordered, which
// reads the times of eng, stepped before it over each op.
func newExplainer(eng *asyncclock.Engine, syms *traces.Symbols, a, b traces.Sym, window time.Duration) *explainer {
	return &explainer{
		eng:         eng,
		syms:        syms,
		window:      float64(window) / float64(time.Millisecond),
		a:           a,
		b:           b,
		events:      make(map[traces.Sym]*xEvent),
		threads:     make(map[traces.Sym]*xThread),
		queues:      make(map[traces.Sym]*xQueue),
		tasks:       make(map[traces.Sym]*xTask),
		handles:     make(map[traces.Sym]int32),
		forks:       make(map[traces.Sym]int32),
		ends:        make(map[traces.Sym]int32),
		signals:     aging{old: -1},
		threadEnd:   aging{old: -1},
		external:    -1,
		target:      -1,
		computing:   make(map[*xEvent]bool),
		nextCompact: minCompact,
		minCompact:  minCompact,
		scan:        maxScan,
	}
}

func (x *explainer) name(y traces.Sym) string { return x.syms.String(y) }

func (x *explainer) started() bool { return x.src != nil }

// candidate is the best way found so far to reach an op: from node pred
// by rule, dist rule applications from src.
type candidate struct {
	dist int32
	pred int32
	rule asyncclock.Rule
}

var unreached = candidate{dist: math.MaxInt32, pred: -1}

// offer improves c with the way from node n (if reached) by rule r.
func (x *explainer) offer(c *candidate, n int32, r asyncclock.Rule) {
	if n >= 0 && x.nodes.at(n).dist+1 < c.dist {
		*c = candidate{dist: x.nodes.at(n).dist + 1, pred: n, rule: r}
	}
}

// add records the current op as reached if c reaches it, and returns its
// node (-1 if not reached).
func (x *explainer) add(c candidate, op *traces.Op, aux traces.Sym, ev *xEvent) int32 {
	if c.pred < 0 {
		return -1
	}
	n := x.node(xNode{line: int32(x.line), dist: c.dist, pred: c.pred, rule: c.rule, kind: op.Kind, task: op.Task, aux: aux, ev: ev})
	if op.Kind == traces.Begin && len(x.firstBegins) < 4 {
		x.firstBegins = append(x.firstBegins, n)
	}
	if t := x.tasks[op.Task]; t != nil && (t.best < 0 || c.dist < x.nodes.at(t.best).dist) {
		t.best = n
	}
	return n
}

func (x *explainer) node(n xNode) int32 { return x.nodes.add(n) }

// nodeStore holds the search's nodes, which every reached operation
// adds: in chunks, so that a search over a long trace never copies them
// as they grow.
type nodeStore struct {
	chunks [][]xNode
	n      int32
}

const nodeChunk = 1 << 14

func (s *nodeStore) add(n xNode) int32 {
	if s.n%nodeChunk == 0 {
		s.chunks = append(s.chunks, make([]xNode, 0, nodeChunk))
	}
	c := &s.chunks[len(s.chunks)-1]
	*c = append(*c, n)
	s.n++
	return s.n - 1
}

func (s *nodeStore) at(i int32) *xNode { return &s.chunks[i/nodeChunk][i%nodeChunk] }

func (s *nodeStore) len() int32 { return s.n }

// po is the program-order way to reach an op of task t.
func (x *explainer) po(t *xTask) candidate {
	c := unreached
	if t != nil {
		x.offer(&c, t.best, asyncclock.PO)
	}
	return c
}

// step follows op, at line, which the engine has stepped.
func (x *explainer) step(op *traces.Op, line int) {
	x.maybeCompact()
	x.line = line
	if op.HasTS && op.TS > x.ts {
		x.ts = op.TS
	}
	if len(x.unresolved) > 0 && (op.Kind == traces.Begin || op.Kind == traces.Remove) && x.eng.Resolutions() != x.resolutions {
		x.resolutions = x.eng.Resolutions()
		x.resolved()
	}
	t := x.tasks[op.Task]
	switch op.Kind {
	case traces.ThreadBegin:
		th := &xThread{id: op.Task, kind: op.ThreadKind, name: op.Name, window: aging{old: -1}, ends: -1}
		th.own = &xTask{id: op.Task, th: th, best: -1}
		x.threads[op.Task] = th
		x.tasks[op.Task] = th.own
		if x.started() {
			c := unreached
			if f, ok := x.forks[op.Task]; ok {
				x.offer(&c, f, asyncclock.Fork)
			}
			if x.window > 0 {
				x.offer(&c, x.aged(&x.threadEnd), asyncclock.Window)
			}
			x.add(c, op, op.Task, nil)
		}
	case traces.Attach:
		if x.queues[op.Queue] == nil {
			x.queues[op.Queue] = &xQueue{id: op.Queue, binder: t.th.kind == traces.Binder}
		}
	case traces.Call:
		if t.ev != nil && t.ev.handler == traces.NoSym {
			t.ev.handler = op.Name
		}
	case traces.Fork:
		if x.started() {
			if n := x.add(x.po(t), op, op.Thread, nil); n >= 0 {
				x.forks[op.Thread] = n
			}
		}
	case traces.Join:
		if x.started() {
			c := x.po(t)
			if e, ok := x.ends[op.Thread]; ok {
				x.offer(&c, e, asyncclock.Join)
			}
			x.atomic(&c, t)
			x.add(c, op, op.Thread, nil)
		}
	case traces.Signal:
		if x.started() {
			if n := x.add(x.po(t), op, op.Name, nil); n >= 0 {
				if h, ok := x.handles[op.Name]; !ok || x.nodes.at(n).dist < x.nodes.at(h).dist {
					x.handles[op.Name] = n
				}
				if x.window > 0 {
					x.signals.add(n, x.ts, op.Name)
				}
			}
		}
	case traces.Wait:
		if x.started() {
			c := x.po(t)
			if h, ok := x.handles[op.Name]; ok {
				x.offer(&c, h, asyncclock.Signal)
			}
			if x.window > 0 {
				// On a tie SIGNAL stays: an old signal of the same
				// handle is never nearer than the nearest one.
				x.offer(&c, x.aged(&x.signals), asyncclock.Window)
			}
			x.atomic(&c, t)
			x.add(c, op, op.Name, nil)
		}
	case traces.Send:
		x.send(op, t)
	case traces.Remove:
		x.remove(op)
	case traces.Begin:
		x.begin(op)
	case traces.End:
		x.end(op, t)
	case traces.ThreadEnd:
		if x.started() {
			c := x.po(t)
			x.offer(&c, t.th.ends, asyncclock.LoopEnd)
			if n := x.add(c, op, op.Task, nil); n >= 0 {
				x.ends[op.Task] = n
				if x.window > 0 {
					x.threadEnd.add(n, x.ts, traces.NoSym)
				}
			}
		}
		delete(x.tasks, op.Task)
	}
}

func (x *explainer) send(op *traces.Op, t *xTask) {
	e := &xEvent{
		id: op.Event, q: x.queues[op.Queue], kind: op.SendKind, async: op.Async, external: op.External,
		sender: op.Task, sendLine: x.line, sendEpoch: x.eng.Epoch(), sendTime: x.eng.Time(),
		sendNode: -1, endNode: -1, status: asyncclock.Pending,
	}
	if op.SendKind != traces.AtFront {
		e.time = op.Time
	}
	x.events[op.Event] = e
	if !x.started() {
		return
	}
	if op.Event == x.a || op.Event == x.b {
		x.dst = e // sent after the other finished
	}
	c := x.po(t)
	if op.External {
		x.offer(&c, x.external, asyncclock.External)
		x.atomic(&c, t)
	}
	if n := x.add(c, op, op.Event, e); n >= 0 {
		e.sendNode = n
		if op.External && (x.external < 0 || x.nodes.at(n).dist < x.nodes.at(x.external).dist) {
			x.external = n
		}
	}
}

func (x *explainer) remove(op *traces.Op) {
	e := x.events[op.Event]
	e.status, e.removeLine = asyncclock.Removed, x.line
	x.unresolved = append(x.unresolved, e)
	if !e.q.binder {
		e.q.unresolved = append(e.q.unresolved, e)
	}
}

// start begins the search at the finish of e, the first of a and b to
// finish.
func (x *explainer) start(e *xEvent) {
	x.src = e
	other := x.b
	if e.id == x.b {
		other = x.a
	}
	x.dst = x.events[other]
	if x.dst != nil && (x.dst.status == asyncclock.Running || x.dst.status == asyncclock.Ended || x.dst.resolved) {
		x.done = true // the other one started already: neither precedes the other
	}
}

func (x *explainer) begin(op *traces.Op) {
	e := x.events[op.Task]
	th := x.threads[op.Thread]
	e.th, e.status, e.beginLine, e.beginEpoch = th, asyncclock.Running, x.line, x.eng.Epoch()
	t := &xTask{id: op.Task, th: th, ev: e, best: -1}
	x.tasks[op.Task] = t
	now := x.eng.Time()
	if e == x.dst {
		x.dstStart, x.dstKnown = now, true
	}
	if !x.started() {
		return
	}
	c := unreached
	x.offer(&c, e.sendNode, asyncclock.Send)
	x.offer(&c, th.own.best, asyncclock.LoopBegin)
	if e.q.binder {
		x.ipc(&c, e, th)
	} else {
		// On a tie the first rule offered stays: the exact rules before
		// the window, and ATOMIC last (its premise needs another order).
		x.priority(&c, e)
		x.atFront(&c, e, now)
		if x.window > 0 {
			x.offer(&c, x.aged(&th.window), asyncclock.Window)
		}
		x.atomic(&c, t)
	}
	n := x.add(c, op, e.id, e)
	if e == x.dst {
		x.target = n
		x.done = true
	}
}

func (x *explainer) end(op *traces.Op, t *xTask) {
	e := t.ev
	e.status, e.endLine, e.endEpoch, e.endTS = asyncclock.Ended, x.line, x.eng.Epoch(), x.ts
	if e.kind != traces.AtFront && e.id != x.a && e.id != x.b {
		e.sendTime = asyncclock.Time{} // kept for ATFRONT, and for the explanation of a concurrency
	}
	delete(x.tasks, op.Task)
	x.recent = append(x.recent, e)
	if len(x.recent) >= 2*recentEvents {
		x.recent = slices.Clone(x.recent[len(x.recent)-recentEvents:])
	}
	switch {
	case !x.started() && (e.id == x.a || e.id == x.b):
		x.start(e)
		e.endNode = x.node(xNode{line: int32(x.line), pred: -1, kind: traces.End, task: e.id, aux: e.id, ev: e})
		x.reached(e)
	case x.started():
		if e.endNode = x.add(x.po(t), op, e.id, e); e.endNode >= 0 {
			x.reached(e)
		}
	}
	if e.id != x.a && e.id != x.b {
		// No later op names it: what the search may still pass
		// through is filed by distance (reached).
		delete(x.events, e.id)
	}
}

// recentEvents is how many of the latest events the explanation of a
// concurrency looks through for the predecessors of the second event.
const recentEvents = 1 << 10

// reached files event e, whose finish the search reached, where the rules
// that order it before later events look for it.
func (x *explainer) reached(e *xEvent) {
	d := x.nodes.at(e.endNode).dist
	if e.q.binder {
		if th := e.th; th != nil { // a removed binder event orders nothing
			th.byDist = x.addByDist(th.byDist, d, e)
			if th.ends < 0 || d < x.nodes.at(th.ends).dist { // LOOPEND holds for binder threads too
				th.ends = e.endNode
			}
		}
		return
	}
	e.q.byDist = x.addByDist(e.q.byDist, d, e)
	if e.kind == traces.AtFront {
		i := afterSend(e.q.atFront, e.sendLine)
		e.q.atFront = slices.Insert(e.q.atFront, i, e)
	}
	th := e.th
	if th == nil { // run(E) of a removed event: no ATOMIC, LOOPEND, WINDOW
		return
	}
	th.byDist = x.addByDist(th.byDist, d, e)
	if th.ends < 0 || d < x.nodes.at(th.ends).dist {
		th.ends = e.endNode
	}
	if th.kind == traces.Looper && x.window > 0 {
		th.window.add(e.endNode, e.endTS, traces.NoSym)
	}
}

func (x *explainer) addByDist(b [][]*xEvent, d int32, e *xEvent) [][]*xEvent {
	for int(d) >= len(b) {
		b = append(b, nil)
	}
	// The rules that look here scan the newest x.scan events of a
	// distance: older ones are dropped.
	if len(b[d]) >= 2*x.scan {
		b[d] = append(b[d][:0:0], b[d][len(b[d])-x.scan:]...)
	}
	b[d] = append(b[d], e)
	return b
}

// priority offers PRIORITY (Table 3.1) to the begin, or run, of looper
// event e: from the finished events of its queue sent before it.
func (x *explainer) priority(c *candidate, e *xEvent) {
	for d, evs := range e.q.byDist {
		if int32(d)+1 >= c.dist {
			break
		}
		for i, n := len(evs)-1, 0; i >= 0 && n < x.scan; i, n = i-1, n+1 {
			// A send that happens before e's is earlier in the trace:
			// the line rules most out before the vector is looked at.
			if p := evs[i]; p.sendLine < e.sendLine && e.sendTime.Covers(p.sendEpoch) && table31(p, e) {
				x.offer(c, p.endNode, asyncclock.Priority)
				break
			}
		}
	}
	for _, p := range e.q.unresolved {
		if p != e && p.sendLine < e.sendLine && e.sendTime.Covers(p.sendEpoch) && table31(p, e) {
			x.offer(c, x.runNode(p), asyncclock.Priority)
		}
	}
}

// atFront offers ATFRONT to the begin, or run, of looper event e, which
// starts at time start: an event sent at the front of its queue while e
// waited (send(e) ≺ send(E1) ≺ start) runs before e.
func (x *explainer) atFront(c *candidate, e *xEvent, start asyncclock.Time) {
	ok := func(p *xEvent) bool {
		return p != e && p.kind == traces.AtFront && p.sendTime.Covers(e.sendEpoch) && start.Covers(p.sendEpoch)
	}
	// Only events sent after e can be (send(e) ≺ send(E1)): a search
	// from the first, not a scan of every event sent at front so far.
	for _, p := range e.q.atFront[afterSend(e.q.atFront, e.sendLine):] {
		if ok(p) {
			x.offer(c, p.endNode, asyncclock.AtFront)
		}
	}
	for _, p := range e.q.unresolved {
		if p.sendLine > e.sendLine && ok(p) {
			x.offer(c, x.runNode(p), asyncclock.AtFront)
		}
	}
}

// afterSend returns the index of the first event of evs, sorted by send
// line, sent after line.
func afterSend(evs []*xEvent, line int) int {
	i, _ := slices.BinarySearchFunc(evs, line+1, func(p *xEvent, l int) int { return cmp.Compare(p.sendLine, l) })
	return i
}

// atomic offers ATOMIC to the current op of t, if t is an event of a
// looper thread at its begin or after it learned something: every event
// of the looper whose begin it knows has ended.
func (x *explainer) atomic(c *candidate, t *xTask) {
	if t == nil || t.ev == nil || t.th.kind != traces.Looper {
		return
	}
	now := x.eng.Time()
	for d, evs := range t.th.byDist {
		if int32(d)+1 >= c.dist {
			break
		}
		for i, n := len(evs)-1, 0; i >= 0 && n < x.scan; i, n = i-1, n+1 {
			if p := evs[i]; p != t.ev && now.Covers(p.beginEpoch) {
				x.offer(c, p.endNode, asyncclock.Atomic)
				break
			}
		}
	}
}

// aging holds reached nodes that the time window orders before what
// comes more than the window after them (docs/causality.md, "The time
// window"): the ends of a looper's events, and with the wide window
// signals and thread ends.
type aging struct {
	young []aged // not yet older than the window, in trace order
	old   int32  // the node of the least distance among the older ones, -1 if none
}

type aged struct {
	node   int32
	ts     float64    // the trace time at the node
	handle traces.Sym // of a signal, else NoSym
}

func (a *aging) add(n int32, ts float64, handle traces.Sym) {
	a.young = append(a.young, aged{n, ts, handle})
}

// aged returns the node of the least distance among those of a more than
// the window before now: where WINDOW reaches the current op from.
func (x *explainer) aged(a *aging) int32 {
	i := 0
	for ; i < len(a.young) && x.ts-a.young[i].ts > x.window; i++ {
		n := a.young[i].node
		if a.old < 0 || x.nodes.at(n).dist < x.nodes.at(a.old).dist {
			a.old = n
		}
		// A handle whose nearest signal is this old is reached as near
		// by WINDOW: its entry goes, so that handles used once do not
		// pile up over a long trace.
		if h := a.young[i].handle; h != traces.NoSym && x.handles[h] == n {
			delete(x.handles, h)
		}
	}
	a.young = a.young[i:]
	return a.old
}

// ipc offers IPCHANDLE and IPCASYNC to the begin of binder event e on th.
func (x *explainer) ipc(c *candidate, e *xEvent, th *xThread) {
	for d, evs := range th.byDist {
		if int32(d)+1 >= c.dist {
			break
		}
		for i, n := len(evs)-1, 0; i >= 0 && n < x.scan; i, n = i-1, n+1 {
			p := evs[i]
			if p.q != e.q {
				continue
			}
			if p.sendLine < e.sendLine && p.external == e.external && (!p.async || e.async) {
				x.offer(c, p.endNode, asyncclock.IPCHandle)
				break
			}
			if p.async && e.async && p.sender != traces.NoSym && p.sender == e.sender && e.sendTime.Covers(p.sendEpoch) {
				x.offer(c, p.endNode, asyncclock.IPCAsync)
				break
			}
		}
	}
}

// runNode returns a node for run(p), removed looper event p, if the search
// reaches it now (-1 if not): by SEND, PRIORITY, or (once the engine has
// resolved its time) ATFRONT.
func (x *explainer) runNode(p *xEvent) int32 {
	if p.endNode >= 0 {
		return p.endNode
	}
	if x.computing[p] {
		return -1
	}
	x.computing[p] = true
	defer delete(x.computing, p)
	c := unreached
	x.offer(&c, p.sendNode, asyncclock.Send)
	if !p.q.binder {
		x.priority(&c, p)
		if p.runKnown {
			x.atFront(&c, p, p.runTime)
		}
	}
	if c.pred < 0 {
		return -1
	}
	return x.node(xNode{line: int32(p.removeLine), dist: c.dist, pred: c.pred, rule: c.rule, aux: p.id, ev: p})
}

// resolved picks up the removed events the engine has resolved: run(E)'s
// time is known, all its predecessors have finished, and, if the search
// reaches it, it is filed like the end of an event.
func (x *explainer) resolved() {
	var batch []*xEvent
	n := 0
	for _, e := range x.unresolved {
		info, ok := x.eng.Event(e.id)
		if ok && info.Chain == 0 {
			x.unresolved[n] = e
			n++
			continue
		}
		// Resolved (or reclaimed, which only happens to what no later
		// event can need).
		e.resolved = true
		e.runTime, e.runKnown, e.endEpoch = info.Begin, ok, info.End
		if q := e.q; !q.binder {
			q.unresolved = slices.DeleteFunc(q.unresolved, func(p *xEvent) bool { return p == e })
		}
		batch = append(batch, e)
	}
	clear(x.unresolved[n:])
	x.unresolved = x.unresolved[:n]
	// Those resolved together in happens-before order: a run(E) another
	// one knows first.
	for len(batch) > 0 {
		i := slices.IndexFunc(batch, func(e *xEvent) bool {
			return !slices.ContainsFunc(batch, func(p *xEvent) bool {
				return p != e && p.endEpoch != 0 && e.runTime.Covers(p.endEpoch)
			})
		})
		e := batch[i]
		batch = slices.Delete(batch, i, i+1)
		x.settle(e)
		if e.id != x.a && e.id != x.b {
			// As at an end: no later op names it, and only an
			// at-front event's send time is asked again.
			delete(x.events, e.id)
			if e.kind != traces.AtFront {
				e.sendTime = asyncclock.Time{}
			}
			e.runTime = asyncclock.Time{}
		}
	}
}

// settle files removed event e, resolved.
func (x *explainer) settle(e *xEvent) {
	if !x.started() && (e.id == x.a || e.id == x.b) {
		x.start(e)
		e.endNode = x.node(xNode{line: int32(e.removeLine), pred: -1, aux: e.id, ev: e})
		x.reached(e)
		return
	}
	if e == x.dst {
		x.dstStart, x.dstKnown = e.runTime, e.runKnown
		x.done = x.started()
	}
	if !x.started() {
		return
	}
	if e.endNode = x.runNode(e); e.endNode >= 0 {
		x.reached(e)
		if e == x.dst {
			x.target = e.endNode
		}
	}
}

// table31 is Table 3.1 of docs/causality.md: whether E1, sent causally
// before E2 to the same looper queue, runs before it.
func table31(e1, e2 *xEvent) bool {
	timed := e2.kind != traces.AtFront
	switch {
	case e1.kind == traces.AtFront && e1.async:
		return timed
	case e1.kind == traces.AtFront:
		return timed && !e2.async
	case e2.kind != e1.kind:
		return false
	case e1.async:
		return e1.time <= e2.time
	}
	return !e2.async && e1.time <= e2.time
}

// RelationLimit is the most events [Relation] accepts: it prints a line
// for every pair of events, n(n−1)/2 of them (two million for 2000
// events), and keeps the times of all events.
const RelationLimit = 2000

// HBVersion is the version of the JSON forms of `licorice hb`
// ("licorice_hb"): an Explanation's, and the first line of Relation's.
const HBVersion = 1

// Relation prints how every pair of events of the trace r is ordered, as
// JSON lines: first {"licorice_hb":1,"trace":…,"window_ms":…,"events":N},
// then {"a":…,"b":…,"order":"before"|"after"|"concurrent"}, one line per
// pair, a sent before b, in send order. A trace of more than
// RelationLimit events is refused.
func Relation(ctx context.Context, r *traces.Reader, window time.Duration, w io.Writer) error {
	var ids []traces.Sym
	eng, err := asyncclock.Run(ctx, r, asyncclock.Config{Window: window, WideWindow: true, KeepEvents: true}, func(op *traces.Op, _ *asyncclock.Engine) error {
		if op.Kind != traces.Send {
			return nil
		}
		if len(ids) == RelationLimit {
			return fmt.Errorf("%s has more than %d events: the order of every pair would take over %d lines; name two events to explain one pair",
				r.Name(), RelationLimit, (RelationLimit+1)*RelationLimit/2)
		}
		ids = append(ids, op.Event)
		return nil
	})
	if err != nil {
		return err
	}
	syms := r.Symbols()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\"licorice_hb\":%d,\"trace\":%s,\"window_ms\":%d,\"events\":%d}\n", HBVersion, quoteJSON(r.Name()), window.Milliseconds(), len(ids))
	for i, a := range ids {
		qa := quoteJSON(syms.String(a))
		for _, b := range ids[i+1:] {
			o, err := eng.Order(a, b)
			if err != nil {
				return err
			}
			fmt.Fprintf(bw, "{\"a\":%s,\"b\":%s,\"order\":%q}\n", qa, quoteJSON(syms.String(b)), o.String())
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return bw.Flush()
}
