package asyncclock

import (
	"fmt"
	"slices"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// DefaultWindow is the time window licorice uses unless told otherwise
// (thesis §4.2.1: two minutes lost no harmful race in its evaluation).
const DefaultWindow = 2 * time.Minute

// Config configures an [Engine]. The zero Config computes the exact
// relation of docs/causality.md.
type Config struct {
	// Window turns on the time-window approximation: two events of one
	// looper thread are taken to be ordered when the first ended more
	// than Window of trace time ("ts") before the second began. It keeps
	// memory flat on long traces. 0 computes the exact relation.
	Window time.Duration

	// KeepEvents keeps the times of every event for the whole run, so
	// that [Engine.Event] and [Engine.Order] answer for any event after
	// the run, not only for the events still tracked. Memory then grows
	// with the number of events: use it for small traces (licorice hb).
	KeepEvents bool

	// WideWindow extends the window approximation (only with Window on)
	// beyond a looper's own events: a signal more than Window before a
	// wait (on any handle), and a thread's end more than Window before
	// another thread's begin, are taken as ordered too. Then handles
	// whose last signal is older than the window are let go, and a new
	// thread takes the chain of one that ended long ago, so that memory
	// and the width of clocks stay flat on long traces that keep making
	// new handles and threads. [NewGraphConfig] makes the same
	// assumptions. licorice's analyses turn it on with every window
	// (docs/causality.md, "The time window").
	WideWindow bool

	// GCEvery is the number of event begins between two garbage
	// collections of reclaimable entries; 0 means a default that adapts to
	// the amount of metadata held.
	GCEvery int
}

// Engine is the AsyncClock happens-before engine: it reads the operations
// of one trace in order and gives each a logical time. See the package
// documentation for how to use it.
type Engine struct {
	cfg    Config
	window float64 // ms; 0: exact
	wide   bool    // Config.WideWindow, with the window on
	syms   *traces.Symbols
	file   string

	tasks symTable[task] // running tasks: threads' own tasks and running events
	// Every thread begun, kept for good: a map, not a symTable, as their
	// ids spread over all of a trace's Syms (a table would keep a page
	// for most of them), and only begins and joins look them up.
	threads map[traces.Sym]*thread
	// The threads a collection looks at: those running, and ended ones
	// that still hold ended events to join or IPCASYNC entries. A long
	// trace ends tens of thousands of threads (aarddict, 1M events: 28,501
	// workers), and a look at each at every collection was a quarter of
	// the engine's time.
	collecting []*thread
	events     symTable[event] // tracked events
	queues     symTable[queue]
	queueOrder []*queue // the queues in the order they were made (queue.idx − 1)
	handles    symTable[handle]
	forks      map[traces.Sym]Time // forked threads that have not begun
	chains     []chain             // by Chain; chains[0] is unused
	tips       []chainTip          // by Chain: its last clock and whether it runs (see chainTip)
	spans      []span              // by Chain: where its ATOMIC intervals are (see span)
	tails      []tail              // by Chain: its last ATOMIC intervals (see tail)
	ext        Time                // the last external send
	extTask    *task               // sends from outside the program (no "t")

	binderChains []Chain // the chains of binder events, oldest first (a looper's are in its thread)
	// The blocks of chain numbers that new chains take (see newChain):
	// binder events', threads' own, and loopers' first chains.
	binderRange, ownRange, looperRange chainRange
	maxChain                           Chain // the largest chain taken
	numChains                          int   // chains taken

	// With the wide window: the signals not yet older than the window, in
	// trace order, and the join of those that are (every later wait knows
	// them).
	signals    stampedQueue
	oldSignals lazyJoin
	// Likewise the ends of threads, which every later thread_begin knows
	// once they are older than the window: a new thread may then take
	// the chain of one that ended long ago, and chains stop growing with
	// thread churn.
	threadEnds    stampedQueue
	oldThreadEnds Time

	seq  int64   // the number of the current op (1-based)
	line int     // its line
	ts   float64 // trace time: the largest "ts" so far

	opTime  Time
	opEpoch Epoch

	lastID traces.Sym
	last   *task

	begins        int // event begins since the last collection
	gcAt          int
	pool          []*builder
	atomicScratch []*event
	spare         []*event     // reclaimed events, which no structure of the engine holds, for the next sends (recycle)
	atomicSnaps   []atomicSnap // by block: walk.atomic's start as it last scanned it, for the one walk that applies ATOMIC at a time
	atomicWalks   uint64       // walks that kept snapshots for ATOMIC (atomicSnap.walk)
	beginWalk     walk         // the walk of the begin being stepped, or of ATOMIC in the middle of an event (atomicAt), kept so that it is not allocated per step
	checkWalks    bool         // tests: check every begin's PRIORITY walk, and every use of a memo, against the lists (checkPriority, checkMemo)
	checkAtomic   bool         // tests: check every start ATOMIC was applied to against every interval (checkAtomic)
	atomicFound   int64        // tests, with checkAtomic: events ATOMIC found
	resolvedRefs  int64        // tests, with checkWalks: PRIORITY walks reduced against a removed, resolved event
	foldEvery     int          // tests: fold a lazyJoin (window clock, old signals) once it holds this many aged points (0: foldAged)
	recycled      func(*event) // tests: called with each event recycle would put on the spare list, instead of it
	recentBatch   int          // tests: how many ended events a thread holds before it joins and releases them (0: recentBatch)
	handlePoints  int          // tests: the most earlier signals' times a handle keeps apart (0: maxHandlePoints)
	stats         Stats
	err           error // sticky
	finished      bool
}

// Stats are counts about a run, for benchmarks and curiosity.
type Stats struct {
	Ops          int64 // operations stepped (Engine.seq)
	Events       int64 // events sent
	Chains       int   // chains created
	Tracked      int   // events whose metadata is held now
	MaxTracked   int   // the most events tracked at once
	ListEntries  int   // entries of async-before lists held now
	Reclaimed    int64 // events whose metadata was released
	Recycled     int64 // sends that took a reclaimed event's memory rather than a new one
	Collections  int   // garbage collections run
	MaxTimeLen   int   // the most chains an event's begin time mentioned (sampled)
	Resolved     int64 // removed events whose time was resolved
	WalkSteps    int64 // async-before list entries visited
	MemoWalks    int64 // list walks at begins done by a memo of an earlier walk instead
	PredsJoined  int64 // predecessor end times joined at begins
	WindowFolded int64 // events folded into a time-window clock
	SignalsAged  int64 // signals that became older than the window (with Config.WideWindow)
	LiveHandles  int   // signal handles held now
	Threads      int   // threads begun
}

// New returns an engine for a trace whose Syms come from syms (used in
// error messages and to name events).
func New(syms *traces.Symbols, cfg Config) *Engine {
	e := &Engine{
		cfg:     cfg,
		window:  float64(cfg.Window) / float64(time.Millisecond),
		wide:    cfg.Window > 0 && cfg.WideWindow,
		syms:    syms,
		threads: make(map[traces.Sym]*thread),
		forks:   make(map[traces.Sym]Time),
		chains:  make([]chain, 1, 64),
		tips:    make([]chainTip, 1, 64),
		spans:   make([]span, 1, 64),
		tails:   make([]tail, 1, 64),
		gcAt:    4096,
	}
	if cfg.GCEvery > 0 {
		e.gcAt = cfg.GCEvery
	}
	return e
}

// SetFile sets the file name that errors carry.
func (e *Engine) SetFile(name string) { e.file = name }

// handle is a signal handle: what a wait on it learns, the join of t,
// last and pts.
//
// A signal's time is the time of a point, its top (signal publishes its
// clock as it is last): a time that covers the top knows all of it. So a
// handle keeps its signals' times apart, leaving out those a later one
// knows, rather than joining each into the handle's time as it comes: a
// signal joins nothing (it drops the points it covers), and a wait skips
// each point it covers with one look, comparing blocks only for the
// points it learns from. Most handles are signaled by tasks that know the
// earlier signals, and hold only their last. Past maxHandlePoints, the
// points are joined into t.
type handle struct {
	last Time    // the last signal's
	pts  []Time  // earlier signals' that last does not know, oldest first; none knows another's top
	t    Time    // signals joined (the zero Time: none)
	ts   float64 // the trace time of its last signal
}

// maxHandlePoints is the most earlier signals' times a handle keeps apart.
const maxHandlePoints = 8

// stamped is a time with the trace time it was taken at: a signal's, or
// a thread end's, not yet older than the window.
type stamped struct {
	t  Time
	ts float64
}

// stampedQueue is a queue of stamped times in trace order, dropped from
// the front as they age. It keeps its array: once the array is full and
// its first half was dropped, the times move to its front (fewer than
// were dropped since they last moved), so that a queue that stays about
// as long allocates nothing. (A slice cut from the front and appended
// to was copied whole every few thousand signals: 27 MB of the 374 MB
// app 300k allocated.)
type stampedQueue struct {
	buf  []stamped // buf[head:] are the queue's times
	head int
}

// times returns the queue's times, oldest first, until the next push or
// drop.
func (q *stampedQueue) times() []stamped { return q.buf[q.head:] }

// push adds s, the newest.
func (q *stampedQueue) push(s stamped) {
	if len(q.buf) == cap(q.buf) && q.head >= len(q.buf)/2 && q.head > 0 {
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	q.buf = append(q.buf, s)
}

// drop drops the oldest n times. A queue down to a quarter of its array
// moves to a smaller one.
func (q *stampedQueue) drop(n int) {
	clear(q.buf[q.head : q.head+n])
	q.head += n
	if cap(q.buf) > 64 && len(q.buf)-q.head < cap(q.buf)/4 {
		q.buf, q.head = slices.Clone(q.buf[q.head:]), 0
	}
}

// task is a running thread (its own operations) or a running event.
type task struct {
	id        traces.Sym
	st        Time
	th        *thread // the thread, or the thread running the event
	ev        *event  // the event, for an event's task
	published bool    // its current clock was made known to others: tick before its next op
}

// learn makes task t know what u knows.
// It reports whether t learned something (or, rarely, may have).
func (e *Engine) learn(t *task, u Time) bool {
	var grew bool
	t.st, grew = e.joinIn(t.st, u, true)
	return grew
}

// joinTimes returns t ⊔ u (see Time.join) with a builder of the pool.
func (e *Engine) joinTimes(t, u Time) Time {
	r, _ := e.joinIn(t, u, false)
	return r
}

// joinIn is Time.joinIn with a builder of the pool.
func (e *Engine) joinIn(t, u Time, point bool) (Time, bool) {
	b := e.builder()
	r, grew := t.joinIn(b, u, point)
	e.putBuilder(b)
	return r, grew
}

// thread is a thread of the trace.
type thread struct {
	id      traces.Sym
	kind    traces.ThreadKind
	own     *task
	ended   bool
	final   Time   // at thread_end, for joins
	running *event // the event it runs now

	// Ended events, in end order, not yet folded into the time-window
	// clock (with the window, on a looper) or into endJoin.
	recent []*event
	// recentFrom is the end time (endTS) of recent's first event, if any:
	// fold tells whether any event aged out of the window without a look
	// at the event, which it would read at every begin of the looper.
	recentFrom float64
	// The time-window clock, what every later event of the thread knows:
	// the ends of the events that became older than the window (see
	// Engine.fold).
	window  lazyJoin
	endJoin Time // ends of events, for LOOPEND (with window and recent)

	chains      []Chain    // looper: the chains of its events, oldest first
	chainRange  chainRange // looper: the numbers its next chains take, once it took sharedLooperChains
	chainsTaken int        // looper: the chains it took

	atomicChains []Chain       // looper: its chains that hold ATOMIC intervals
	atomicBlocks []atomicBlock // the same, by block of chains
	closed       Time          // looper: the start of its last begin, to which ATOMIC was applied (see walk.atomic)

	binder   map[uint64]*binderList // IPCHANDLE: events it ran, by queue, process and syncness
	ipcAsync map[ipcKey]ipcLast     // IPCASYNC: the last async event of each sender it ran
}

// chain is one chain of the decomposition.
type chain struct {
	owner     *thread // the thread whose events (or own operations) it holds; nil for removed binder events
	own       bool    // a thread's own chain (or the external world's)
	atomic    bool    // in its owner's atomicChains
	intervals []interval
}

// chainTip is where a chain stands: the last clock used, and whether its
// task (an event, or a thread) runs now. The tips of all chains sit
// together, apart from the chains, as spans do: place looks at the tips
// of a looper's chains one after another at every begin.
type chainTip struct {
	last Clock
	busy bool
}

// span is the clocks of a chain its ATOMIC intervals cover, from the
// first one's begin to the last one's end (both 0 if it has none): a point
// whose clock of the chain is outside knows of no event there that began
// and has not ended. The spans of all chains sit together, apart from the
// chains, so that ATOMIC rules most chains out without touching them.
type span struct{ lo, hi Clock }

// tail is the clocks of a chain's last ATOMIC intervals, latest first
// (the rest zero), in which most points' clocks of the chain inside its
// span fall: on tracetest.App, 96% in the last seven, and 99% of them at
// an interval's end, outside it. The tails of all chains sit together
// too, so that ATOMIC searches a chain's intervals only for the other
// clocks.
type tail [tailLen]clocks

// tailLen is the number of intervals a tail holds: 56 bytes.
const tailLen = 7

// clocks is an interval's clocks, [begin, end).
type clocks struct{ begin, end Clock }

// setSpan updates c's span and tail after its intervals changed.
func (e *Engine) setSpan(c Chain) {
	ivs := e.chains[c].intervals
	e.spans[c], e.tails[c] = span{}, tail{}
	if len(ivs) == 0 {
		return
	}
	e.spans[c] = span{ivs[0].begin, ivs[len(ivs)-1].end}
	for i := range min(tailLen, len(ivs)) {
		iv := &ivs[len(ivs)-1-i]
		e.tails[c][i] = clocks{iv.begin, iv.end}
	}
}

// appendInterval appends iv to chain c's intervals, after all of them,
// and updates c's span and tail as setSpan would, without going over
// them again.
func (e *Engine) appendInterval(c Chain, iv interval) {
	ch := &e.chains[c]
	ch.intervals = append(ch.intervals, iv)
	sp := &e.spans[c]
	if len(ch.intervals) == 1 {
		sp.lo = iv.begin
	}
	sp.hi = iv.end
	t := &e.tails[c]
	copy(t[1:], t[:tailLen-1])
	t[0] = clocks{iv.begin, iv.end}
}

// mayHold reports whether clock k of the tail's chain, inside the chain's
// span, may be inside one of its intervals (k in [begin, end)): it is
// exact when it says no, and when it says yes for a k in one of the
// tail's intervals. It says yes for a k before them, which only the
// chain's intervals can tell.
func (t *tail) mayHold(k Clock) bool {
	// Intervals are sorted and disjoint. A k below the begin of every
	// interval of the tail and at or above the end of the one before (zero
	// if there is none) is between the two, inside none.
	for i := range t {
		if iv := &t[i]; k >= iv.end {
			return false
		} else if k >= iv.begin {
			return true
		}
	}
	return true
}

// interval is an ended looper event on its chain, for ATOMIC: a point
// whose clock of the chain is in [begin, end) knows the event began but
// not that it ended.
type interval struct {
	begin, end Clock
	ev         *event
}

// queue is an event queue.
type queue struct {
	id      traces.Sym
	idx     uint32
	binder  bool
	looper  *thread
	heads   []listHead  // looper: the async-before lists of the chains that sent to it
	af      []*event    // looper: events sent at front, in send order (ATFRONT)
	pending []*event    // looper: events sent and not yet begun or resolved, in send order (pruned lazily)
	kept    int         // len(pending) after its last compaction
	bpend   [2][]*event // binder: pending events by process (0 app, 1 external), in send order

	lastBegun *begunTable // looper: the last events begun or resolved of delayed categories and times (reducer)
	// sends holds, by block of chains, their lists of sends to the
	// queue (looper; nil: none of the block's chains has one).
	sends []*sendBlock
}

// evStatus is where an event is in its life.
type evStatus uint8

const (
	evPending   evStatus = iota + 1 // sent, not begun
	evRunning                       // begun, not ended
	evEnded                         // ended
	evRemoved                       // removed; its run time is not resolved yet
	evResolved                      // removed; run(E) is resolved
	evResolving                     // removed; its run time is being resolved
	evSpare                         // reclaimed, on the engine's spare list for the next send (recycle)
)

// event is an event of the trace. Events are 64-byte aligned (their
// size class is 384 bytes), and their fields are in this order so that
// two readers of many cold events touch one cache line each
// (TestEventFieldsShareLines):
//   - a PRIORITY walk's reference looks at candidates it has not read
//     lately (walk.reference: cat, time, status, sendSeq, sendEpoch,
//     send.top), in the first line;
//   - fold reads of an event that aged out of the window, long after its
//     end, refs, absorbed, afJoin, end and endTS, in the fourth.
type event struct {
	cat       cat
	status    evStatus
	external  bool
	id        traces.Sym
	time      int64 // Table 3.1's time: the delay, or the absolute time
	sendSeq   int64
	sendEpoch Epoch
	send      Time // what send(E) knew; kept until E is reclaimed (reducer's references, ATFRONT)

	q        *queue
	sender   traces.Sym // the sending task, or NoSym
	listIdx  int32      // its index in list.entries when it was added (sendList.index)
	list     *sendList  // the async-before list it is on (looper queues)
	sendLine int
	pre      Time // removed, not resolved yet: what run(E) is known to know already
	th       *thread
	begin    Time // at begin(E), or run(E)

	refs     int32   // the engine's structures that hold it
	absorbed bool    // folded into its thread's time-window clock
	queued   bool    // on its queue's pending list, which holds it without a reference: not recycled while there
	interval bool    // a looper's event that ended with an ATOMIC interval on its chain (see endOp)
	afJoin   *Time   // at-front events: the join of the ends of the same list's at-front events up to this one
	end      Time    // at end(E), or run(E)
	endTS    float64 // trace time at its end, or when run(E) was resolved

	chain      Chain
	beginClock Clock
	endClock   Clock // for a removed event, the clock of run(E) (= beginClock)
	beginLine  int
	endLine    int

	run task // its task while it runs, allocated with it
}

func (ev *event) async() bool { return ev.cat.async() }

// unstarted reports whether ev has neither begun nor got its run(E) time.
func (ev *event) unstarted() bool {
	return ev.status == evPending || ev.status == evRemoved || ev.status == evResolving
}

// settled reports whether ev has ended or was removed: it will not begin.
func (ev *event) settled() bool { return ev.status >= evEnded }

func (ev *event) finished() bool { return ev.status == evEnded || ev.status == evResolved }

func (ev *event) endEpoch() Epoch { return MakeEpoch(ev.chain, ev.endClock) }

// proc is the "process" of the send (IPCHANDLE): 1 for the outside world.
func (ev *event) proc() int {
	if ev.external {
		return 1
	}
	return 0
}

func (e *Engine) name(y traces.Sym) string {
	if e.syms == nil || int(y) >= e.syms.Len() {
		return fmt.Sprintf("#%d", y)
	}
	return e.syms.String(y)
}

// invalid reports an operation that breaks the trace contract (a trace
// that was not validated).
func (e *Engine) invalid(op *traces.Op, format string, args ...any) error {
	le := &traces.LineError{File: e.file, Line: e.line, Op: op.Kind, Msg: fmt.Sprintf(format, args...), Fatal: true}
	if op.Task != traces.NoSym {
		le.Task = e.name(op.Task)
	}
	return le
}

// Step processes the next operation of the trace, which is at the given
// line. Operations must come in trace order and obey the trace contract
// (a validating [traces.Reader] guarantees it; the engine reports
// breaches it notices, but does not check everything). It returns a
// *[ConflictError] if the trace contradicts the causality model, and
// then refuses further steps. After Step, [Engine.Time] and
// [Engine.Epoch] give the operation's logical time.
func (e *Engine) Step(op *traces.Op, line int) error {
	if e.err != nil {
		return e.err
	}
	if e.finished {
		return fmt.Errorf("asyncclock: Step after Finish")
	}
	e.seq++
	e.line = line
	if op.HasTS && op.TS > e.ts {
		e.ts = op.TS
	}
	var err error
	switch op.Kind {
	case traces.ThreadBegin:
		err = e.threadBegin(op)
	case traces.ThreadEnd:
		err = e.threadEnd(op)
	case traces.Fork:
		err = e.fork(op)
	case traces.Join:
		err = e.join(op)
	case traces.Attach:
		err = e.attach(op)
	case traces.Send:
		err = e.send(op)
	case traces.Remove:
		err = e.remove(op)
	case traces.Begin:
		err = e.beginOp(op)
	case traces.End:
		err = e.endOp(op)
	case traces.Signal:
		err = e.signal(op)
	case traces.Wait:
		err = e.wait(op)
	default: // operations that order nothing: most of a trace's
		if t := e.last; op.Task == e.lastID && t != nil && !t.published {
			e.at(t) // the task of the last op, at the same clock: run's fast path
			return nil
		}
		var t *task
		if t, err = e.run(op); err == nil {
			e.at(t)
		}
	}
	if err != nil {
		e.err = err
	}
	return err
}

// Time returns the logical time of the operation last stepped.
func (e *Engine) Time() Time { return e.opTime }

// Epoch returns the epoch of the operation last stepped: its chain and
// clock. An earlier operation with epoch a happens before a later one with
// time b exactly when b.Covers(a).
func (e *Engine) Epoch() Epoch { return e.opEpoch }

// Line returns the line of the operation last stepped.
func (e *Engine) Line() int { return e.line }

// NumChains returns one more than the largest Chain used so far, for
// tables indexed by Chain.
func (e *Engine) NumChains() int { return int(e.maxChain) + 1 }

// Stats returns counts about the run so far.
func (e *Engine) Stats() Stats {
	s := e.stats
	s.Ops = e.seq
	s.Chains = e.numChains
	s.Tracked = e.events.len()
	s.LiveHandles = e.handles.len()
	s.Threads = len(e.threads)
	return s
}

// TaskTime returns the current time of a running task (a thread, or an
// event while it runs).
func (e *Engine) TaskTime(id traces.Sym) (Time, bool) {
	t := e.tasks.get(id)
	if t == nil {
		return Time{}, false
	}
	return t.st, true
}

// at records the time of the current op, done by t.
func (e *Engine) at(t *task) {
	e.opTime, e.opEpoch = t.st, t.st.top
}

// run returns the task of op, which is about to execute an op: if its
// last op made its clock known, it moves to a new clock first.
func (e *Engine) run(op *traces.Op) (*task, error) {
	t := e.last
	if op.Task != e.lastID || t == nil {
		t = e.tasks.get(op.Task)
		if t == nil {
			return nil, e.invalid(op, "task %s is not running", e.name(op.Task))
		}
		e.lastID, e.last = op.Task, t
	}
	if t.published {
		e.tick(t)
	}
	return t, nil
}

// tick moves t to the next clock of its chain.
func (e *Engine) tick(t *task) {
	c := t.st.top.Chain()
	k := t.st.top.Clock() + 1
	t.st.top = MakeEpoch(c, k)
	e.tips[c].last = k
	t.published = false
}

func (e *Engine) forget(id traces.Sym) {
	e.tasks.delete(id)
	if e.lastID == id {
		e.last = nil
	}
}

func (e *Engine) newChain(owner *thread, own bool) Chain {
	r := &e.ownRange
	switch {
	case owner != nil && (!own || owner.kind == traces.Looper):
		r = &e.looperRange
		if owner.chainsTaken >= sharedLooperChains {
			r = &owner.chainRange
		}
		owner.chainsTaken++
	case !own:
		r = &e.binderRange
	}
	if r.next == r.end {
		// The next whole block: e.chains ends with a block, but at first
		// (it holds chain 0 only, unused).
		start := len(e.chains) &^ (chunkSize - 1)
		end := start + chunkSize
		r.next, r.end = Chain(max(start, 1)), Chain(end)
		e.chains = append(e.chains, make([]chain, end-len(e.chains))...)
		e.tips = append(e.tips, make([]chainTip, end-len(e.tips))...)
		e.spans = append(e.spans, make([]span, end-len(e.spans))...)
		e.tails = append(e.tails, make([]tail, end-len(e.tails))...)
	}
	c := r.next
	r.next++
	e.chains[c] = chain{owner: owner, own: own}
	e.tips[c] = chainTip{}
	e.maxChain = max(e.maxChain, c)
	e.numChains++
	return c
}

// chainRange is a block of chain numbers (a block of a vector clock's,
// chunk) that new chains of one kind take in order: a looper's (its own
// and its events'), binder events', or other threads' own. A begin raises
// mostly chains of its own looper (LOOPBEGIN, its PRIORITY predecessors'
// ends, ATOMIC), and its sender's; with a looper's chains in blocks of
// their own, it changes fewer blocks.
type chainRange struct{ next, end Chain }

// sharedLooperChains is how many chains a looper takes from the block its
// first chains share with other loopers' before it takes blocks of its
// own. A looper with few chains would leave most of its block unused, and
// a trace with thousands of short-lived loopers (licorice record's
// mytracks, 60,000 actions: 16,004 threads) then numbered 22,806 chains
// up to 512,289, and every table by Chain and every clock's vector grew
// with the numbers (8.7 GB of heap). With 8, at most 31 numbers are
// unused per looper of more than 8 chains, fewer than 4 per chain: the
// numbers stay below 4.5 times the chains (plus the partial blocks).
const sharedLooperChains = 8

func (e *Engine) threadBegin(op *traces.Op) error {
	id := op.Task
	if _, ok := e.threads[id]; ok {
		return e.invalid(op, "thread %s began twice", e.name(id))
	}
	th := &thread{id: id, kind: op.ThreadKind}
	st := e.forks[id]
	delete(e.forks, id)
	if e.wide {
		e.oldThreadEnds = e.age(&e.threadEnds, e.oldThreadEnds)
		st = e.joinTimes(st, e.oldThreadEnds) // WINDOW
	}
	// The chain of a thread that ended before this one began, if any
	// (greedy chain decomposition); else a new chain.
	c := Chain(0)
	for ep := range st.All() {
		if ch, tip := &e.chains[ep.Chain()], e.tips[ep.Chain()]; ch.own && !tip.busy && ch.owner != nil && ep.Clock() == tip.last {
			c = ep.Chain()
			break
		}
	}
	if c == 0 {
		c = e.newChain(th, true)
	}
	e.chains[c].owner = th
	tip := &e.tips[c]
	tip.last++
	tip.busy = true
	st = st.with(MakeEpoch(c, tip.last))
	th.own = &task{id: id, st: st, th: th}
	e.threads[id] = th
	e.collecting = append(e.collecting, th)
	e.tasks.set(id, th.own)
	e.at(th.own)
	return nil
}

func (e *Engine) threadEnd(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	if t.ev != nil {
		return e.invalid(op, "%s is an event, not a thread", e.name(op.Task))
	}
	th := t.th
	// LOOPEND: every event the thread ran ends before it does.
	e.foldLazy(&th.window)
	e.learn(t, th.window.tc)
	e.learn(t, th.endJoin)
	t.st = e.joinEnds(t.st, th.recent)
	th.ended = true
	th.final = t.st
	if e.wide {
		e.threadEnds.push(stamped{t: t.st, ts: e.ts})
	}
	e.tips[t.st.top.Chain()].busy = false
	e.at(t)
	e.forget(op.Task)
	return nil
}

func (e *Engine) fork(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	e.forks[op.Thread] = t.st
	e.at(t)
	t.published = true
	return nil
}

func (e *Engine) join(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	th := e.threads[op.Thread]
	if th == nil || !th.ended {
		return e.invalid(op, "join of thread %s, which has not ended", e.name(op.Thread))
	}
	if e.learn(t, th.final) { // else t's time, to which ATOMIC was applied, is the same
		if err := e.atomicAt(t); err != nil {
			return err
		}
	}
	e.at(t)
	return nil
}

func (e *Engine) signal(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	h := e.handles.get(op.Name)
	if h == nil {
		h = &handle{}
		e.handles.set(op.Name, h)
	}
	if h.t.at != 0 && t.st.Covers(h.t.at) {
		h.t = Time{} // t knows it: it covers its point (a waiter's that learned it: see wait)
	}
	// The points t covers: t knows them.
	pts := h.pts[:0]
	for _, u := range h.pts {
		if !t.st.Covers(u.top) {
			pts = append(pts, u)
		}
	}
	clear(h.pts[len(pts):])
	if h.last.top != 0 && !t.st.Covers(h.last.top) {
		if len(pts) == maxHandlePoints || e.handlePoints > 0 && len(pts) == e.handlePoints {
			h.t = e.joinPoints(h.t, len(pts), func(i int) Time { return pts[i] })
			clear(pts)
			pts = pts[:0]
		}
		pts = append(pts, h.last)
	}
	h.pts, h.last = pts, t.st
	h.ts = e.ts
	if e.wide {
		e.signals.push(stamped{t: t.st, ts: e.ts})
	}
	e.at(t)
	t.published = true
	return nil
}

func (e *Engine) wait(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	learned := false
	if h := e.handles.get(op.Name); h != nil {
		if !t.st.Covers(h.last.top) && e.learn(t, h.last) {
			learned = true // else t's time, to which ATOMIC was applied, is the same
		}
		for _, u := range h.pts {
			if !t.st.Covers(u.top) && e.learn(t, u) {
				learned = true
			}
		}
		if h.t.vector() && e.learn(t, h.t) {
			learned = true
		}
		// t's time at its clock, published only as it is last, knows
		// h.t now: a later waiter or signaller that covers it needs not
		// compare h.t (Time.at; a handle's joined time is its own copy).
		// Its points need no such help: a time that covers t's covers
		// their tops.
		if h.t.at == 0 && h.t.vector() {
			h.t.at = t.st.top
		}
	}
	if e.wide {
		// WINDOW: every signal older than the window happens before the wait.
		e.ageSignals()
		if e.learnLazy(t, &e.oldSignals) {
			learned = true
		}
	}
	if learned {
		if err := e.atomicAt(t); err != nil {
			return err
		}
	}
	e.at(t)
	return nil
}

// age joins into old the times of recent that are more than the window
// older than now, drops them from recent and returns the new join.
func (e *Engine) age(recent *stampedQueue, old Time) Time {
	r := recent.times()
	n := e.aged(r)
	if n == 0 {
		return old
	}
	old = e.joinPoints(old, n, func(i int) Time { return r[i].t })
	recent.drop(n)
	return old
}

// aged returns how many of the times of recent, in trace order, are more
// than the window older than now.
func (e *Engine) aged(recent []stamped) int {
	n := 0
	for n < len(recent) && e.ts-recent[n].ts > e.window {
		n++
	}
	return n
}

// ageSignals moves the signals older than the window to oldSignals.
func (e *Engine) ageSignals() {
	r := e.signals.times()
	n := e.aged(r)
	for _, s := range r[:n] {
		e.addLazy(&e.oldSignals, s.t)
	}
	e.stats.SignalsAged += int64(n)
	e.signals.drop(n)
}

// forgetOldHandles drops, with the wide window, the handles whose last signal
// is older than the window: oldSignals, which every wait learns, knows
// what they hold.
func (e *Engine) forgetOldHandles() {
	e.ageSignals()
	for id, h := range e.handles.all() {
		if e.ts-h.ts > e.window {
			e.handles.delete(id)
		}
	}
}

func (e *Engine) attach(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	if t.ev != nil || t.th.kind == traces.Worker {
		return e.invalid(op, "only looper and binder threads attach queues")
	}
	q := e.queues.get(op.Queue)
	if q == nil {
		q = &queue{id: op.Queue, idx: uint32(len(e.queueOrder) + 1), binder: t.th.kind == traces.Binder}
		e.queues.set(op.Queue, q)
		e.queueOrder = append(e.queueOrder, q)
	}
	if !q.binder {
		q.looper = t.th
	}
	e.at(t)
	return nil
}

// atomicAt applies ATOMIC after task t learned something in the middle of
// an event: the events of its looper whose begin it now knows have ended.
func (e *Engine) atomicAt(t *task) error {
	if t.ev == nil || t.th.kind != traces.Looper {
		return nil
	}
	b := e.builder()
	defer e.putBuilder(b)
	b.start(t.st)
	w := &e.beginWalk // no begin is being stepped
	*w = walk{e: e, target: t.ev, mode: strict, b: b}
	defer func() { *w = walk{} }()
	changed, err := w.atomic(t.th)
	if changed {
		t.st = b.timeOf(t.st.top)
	}
	return err
}
