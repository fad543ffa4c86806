package tracetest

import (
	"math/rand/v2"

	"github.com/licorice-dev/licorice/internal/msgqueue"
	"github.com/licorice-dev/licorice/traces"
)

// Generator produces a trace one operation at a time. Its state is
// bounded whatever the trace's length; so is its symbol table with
// [Generator.RecycleSymbols]. It is a discrete-event simulation of an event-driven program in virtual
// time:
//
//   - every thread and every running event is a task, a state machine that
//     emits one operation per step;
//   - a seeded scheduler picks one runnable task at a time, so threads
//     interleave; a task blocked on a lock, a join or a wait is not
//     runnable until what it waits for happened (or its wait timed out);
//   - a looper picks its next event with Android's MessageQueue order
//     (internal/msgqueue) at the current virtual time, across the queues
//     it serves, and runs it to its end before the next: events of one
//     looper never interleave. Binder threads take events from their
//     queue in FIFO order; the threads of one binder queue run its events
//     concurrently;
//   - when no task is runnable, virtual time jumps to the next thing due: a
//     delayed message, a worker waking up, a wait timing out, an external
//     input.
//
// A Generator is not safe for concurrent use.
type Generator struct {
	cfg    Config
	rng    *rand.Rand
	in     *interner
	header traces.Header
	limit  int // recycle the symbol table beyond this many symbols (0: never)

	now      int64 // virtual time, µs
	emitted  int64
	sent     int
	stopping bool
	done     bool

	threads []*thread // begun or about to begin, not ended
	main    *thread
	input   *thread
	lqueues []*queue         // looper queues
	bqueues []*queue         // binder queues
	events  map[int64]*event // events in looper queues, by number
	pending []*event         // the same, for picking one to remove
	ended   []*thread        // workers that ended and were not joined (the most recent few)
	fresh   []fresh          // fresh handles signaled recently (the most recent few)
	locks   []lockState
	handles []bool // pooled handles: signaled and not consumed
	heap    heap
	envAt   int64 // when the next external input without a task arrives (µs); -1: none

	nextEvent, nextObject, nextWorker, nextBarrier int64
	nextHandle                                     uint64
	liveWorkers                                    int

	cands []*thread // scratch
	acts  []int     // cumulative action weights
}

type thread struct {
	id      name
	kind    traces.ThreadKind
	begun   bool
	ended   bool
	joined  bool
	mayQuit bool // loopers and binder threads: end once the generation winds down (see canQuit)
	quitNow bool // loopers: end without running the messages still queued
	own     *task
	cur     *task // the event it runs
	queues  []*queue
	wake    int64 // asleep until then (µs)
}

type queue struct {
	id       name
	looper   *thread // nil for a binder queue
	attached bool
	closed   bool // its looper ended: nothing is sent to it any more
	mq       msgqueue.Queue
	fifo     []*event // binder queues: pending events, oldest first
	npending int
}

type event struct {
	num     int64
	q       *queue
	barrier int64 // the token of the sync barrier to remove when it runs or is removed; 0: none
	pos     int   // index in Generator.pending
	period  int   // a timer's event: its delay, in ms, with which it posts the next one; 0: none
}

type fresh struct {
	handle name
	looper *thread // the looper whose task signaled it, or nil
}

type lockState struct {
	holder *task
	count  int
}

// maxPending bounds the events pending in one queue: sends beyond it are
// skipped, which keeps memory bounded whatever the rates.
const maxPending = 256

const recentMax = 16 // entries kept in Generator.ended and Generator.fresh

// NewGenerator returns a generator of the trace that cfg describes.
func NewGenerator(cfg Config) *Generator {
	cfg = cfg.normalized()
	g := &Generator{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15)),
		in:      newInterner(traces.NewSymbols()),
		events:  make(map[int64]*event),
		locks:   make([]lockState, cfg.Locks),
		handles: make([]bool, cfg.Handles),
		heap:    newHeap(cfg.Classes, cfg.Objects),
		envAt:   -1,
		header: traces.Header{
			Version: traces.Version, Platform: "android", App: "tracetest", Run: cfg.Name,
			Seed: cfg.Seed, HasSeed: true,
		},
		nextEvent: 1, nextObject: 1, nextWorker: 1, nextBarrier: 1,
	}
	m := &cfg.Mix
	total := 0
	for _, w := range []int{m.Read, m.Write, m.Alloc, m.Guard, m.Relate, m.Call, m.Lock,
		m.Send, m.Remove, m.Signal, m.Wait, m.Fork, m.Join} {
		total += w
		g.acts = append(g.acts, total)
	}
	g.setUp()
	return g
}

// setUp creates the threads that exist from the start: the main looper
// (which forks the other loopers and some workers), the binder threads,
// the other workers, and the input thread.
func (g *Generator) setUp() {
	cfg := &g.cfg
	for i := range cfg.Loopers {
		nq := cfg.LooperQueues
		if i > 0 {
			nq = 1 + g.rng.IntN(cfg.LooperQueues)
		}
		th := &thread{id: mkName(nThread, looperID(i)), kind: traces.Looper, mayQuit: i > 0, quitNow: g.rng.IntN(2) == 0}
		for k := range nq {
			q := &queue{id: mkName(nQueue, looperQueueID(i, k)), looper: th}
			th.queues = append(th.queues, q)
			g.lqueues = append(g.lqueues, q)
		}
		th.own = g.newThreadTask(th)
		if i == 0 {
			g.main = th
			g.threads = append(g.threads, th)
		}
	}
	// Main forks the other loopers first thing.
	for _, q := range g.lqueues {
		if th := q.looper; th != g.main && q == th.queues[0] {
			g.main.own.push(step{kind: sFork, child: th})
		}
	}
	for b := range cfg.BinderQueues {
		q := &queue{id: mkName(nQueue, binderQueueID(b))}
		g.bqueues = append(g.bqueues, q)
		for i := range cfg.BinderThreads {
			th := &thread{id: mkName(nThread, binderID(b, i)), kind: traces.Binder, queues: []*queue{q}, mayQuit: i%2 == 1}
			th.own = g.newThreadTask(th)
			g.threads = append(g.threads, th)
		}
	}
	for range cfg.Workers {
		th := g.newWorker()
		if g.rng.IntN(2) == 0 {
			g.main.own.push(step{kind: sFork, child: th})
			g.main.own.children = appendRecent(g.main.own.children, th)
		} else {
			g.threads = append(g.threads, th)
		}
	}
	if cfg.ExternalEvery > 0 {
		if cfg.Send.ExternalTask > 0 {
			th := &thread{id: mkName(nThread, threadInput), kind: traces.Worker}
			th.own = g.newThreadTask(th)
			th.own.left = 1 // it sends until the generation winds down
			g.input = th
			g.threads = append(g.threads, th)
		}
		g.envAt = g.externalDelay(1 - cfg.Send.ExternalTask)
	}
	g.updateStopping()
}

// newWorker makes a worker thread that has not begun.
func (g *Generator) newWorker() *thread {
	th := &thread{id: mkName(nThread, workerID(g.nextWorker)), kind: traces.Worker}
	g.nextWorker++
	g.liveWorkers++
	th.own = g.newThreadTask(th)
	th.own.left = g.actions(g.cfg.WorkerActions)
	return th
}

// newThreadTask makes the task of a thread's own code: it begins the
// thread, attaches its queues, and for loopers does some set-up work.
func (g *Generator) newThreadTask(th *thread) *task {
	t := &task{id: th.id, th: th, home: g.rng.IntN(g.cfg.Classes)}
	t.push(step{kind: sThreadBegin})
	for _, q := range th.queues {
		t.push(step{kind: sAttach, q: q})
	}
	if th.kind == traces.Looper {
		t.left = g.rng.IntN(4)
	}
	return t
}

// actions draws the number of actions of a body with the given mean.
func (g *Generator) actions(mean int) int {
	if mean <= 0 {
		return 0
	}
	return 1 + g.rng.IntN(2*mean)
}

// externalDelay draws the time until the next external input of a source
// that makes the given fraction of them, or -1 if it makes none.
func (g *Generator) externalDelay(fraction float64) int64 {
	if fraction <= 0 || g.cfg.ExternalEvery <= 0 {
		return -1
	}
	mean := float64(g.cfg.ExternalEvery) * 1000 / fraction
	return g.now + 1 + int64(g.rng.ExpFloat64()*mean)
}

// Header returns the header of the trace.
func (g *Generator) Header() *traces.Header { return &g.header }

// Symbols returns the table the operations' Syms come from.
func (g *Generator) Symbols() *traces.Symbols { return g.in.syms }

// Count returns the number of operations emitted so far.
func (g *Generator) Count() int64 { return g.emitted }

// RecycleSymbols makes the generator empty its symbol table whenever it
// holds more than limit strings (0, the default: never). The Syms of an
// operation are then valid only until the next call of Next: use it when
// every operation is consumed at once (written, counted), never when
// operations or their Syms are kept. It keeps memory flat on traces of
// any length; the operations are the same as without it.
func (g *Generator) RecycleSymbols(limit int) { g.limit = max(limit, 0) }

// Next emits the next operation into op; it returns false at the end of
// the trace.
func (g *Generator) Next(op *traces.Op) bool {
	if g.done {
		return false
	}
	if g.limit > 0 && g.in.syms.Len() > g.limit {
		g.in.reset()
	}
	for {
		g.updateStopping()
		cands := g.cands[:0]
		for _, th := range g.threads {
			if g.runnable(th) {
				cands = append(cands, th)
			}
		}
		g.cands = cands
		env := g.envAt >= 0 && g.envAt <= g.now
		n := len(cands)
		if env {
			n++
		}
		if n == 0 {
			if at, ok := g.nextTimer(); ok {
				g.now = at
				continue
			}
			if !g.stopping && g.kick() {
				continue
			}
			g.done = true
			return false
		}
		*op = traces.Op{}
		var ok bool
		if i := g.rng.IntN(n); i < len(cands) {
			ok = g.stepThread(cands[i], op)
		} else {
			ok = g.stepEnv(op)
		}
		if ok {
			g.finish(op)
			return true
		}
	}
}

// finish adds the optional fields to op and lets virtual time pass.
func (g *Generator) finish(op *traces.Op) {
	if g.cfg.Timestamps > 0 && g.rng.Float64() < g.cfg.Timestamps {
		op.TS, op.HasTS = float64(g.now)/1000, true
	}
	if g.cfg.Sources > 0 && g.rng.Float64() < g.cfg.Sources {
		op.Src = g.in.sym(mkName(nSrc, uint64(g.rng.IntN(g.cfg.Classes))<<16|uint64(1+g.rng.IntN(400))))
	}
	g.emitted++
	if g.cfg.OpMicros > 0 {
		g.now += 1 + int64(g.rng.IntN(2*g.cfg.OpMicros))
	}
}

// updateStopping starts winding down once the trace is big enough.
func (g *Generator) updateStopping() {
	if g.stopping {
		return
	}
	cfg := &g.cfg
	switch {
	case cfg.Events == 0 && cfg.Ops == 0,
		cfg.Events > 0 && g.sent >= cfg.Events,
		cfg.Ops > 0 && g.emitted+g.drainEstimate() >= int64(cfg.Ops),
		cfg.Ops == 0 && g.emitted >= g.opsCap():
		g.stopping = true
		g.envAt = -1
	}
}

// opsCap is the size in ops at which a trace sized by events winds down
// even if it has not sent that many events: about four times the
// expected size. Only a program that rarely sends (and whose threads are
// never all idle, so that main's idle handler never posts) reaches it.
func (g *Generator) opsCap() int64 {
	cfg := &g.cfg
	return int64(cfg.Events) * int64(4*(3*cfg.EventActions+cfg.WorkerActions+16))
}

// drainEstimate guesses how many operations the events already sent will
// emit, from the operations per event so far.
func (g *Generator) drainEstimate() int64 {
	if g.sent == 0 {
		return 0
	}
	n := int64(len(g.pending))
	for _, q := range g.bqueues {
		n += int64(len(q.fifo))
	}
	return n * g.emitted / int64(g.sent)
}

// kick gives the program something to do when nothing is runnable and
// nothing is due: main's idle handler posts a message. It reports whether
// it did.
func (g *Generator) kick() bool {
	m := g.main
	if m.cur != nil || m.own.busy() {
		return false
	}
	q := m.queues[g.rng.IntN(len(m.queues))]
	if !q.attached || q.npending >= maxPending {
		return false
	}
	m.own.push(step{kind: sSend, q: q})
	return true
}

// runnable reports whether th can emit an operation now.
func (g *Generator) runnable(th *thread) bool {
	if th.wake > g.now {
		return false
	}
	if t := th.active(); t != nil {
		return g.ready(t)
	}
	return g.hasReady(th) || g.canQuit(th)
}

// active returns the task th runs now: its event, its own code, or nil if
// it is a looper or binder thread waiting for its next event.
func (th *thread) active() *task {
	if th.cur != nil {
		return th.cur
	}
	if th.own.busy() || th.kind == traces.Worker {
		return th.own
	}
	return nil
}

// ready reports whether t's next step can run now.
func (g *Generator) ready(t *task) bool {
	if len(t.steps) == 0 {
		return true
	}
	s := &t.steps[0]
	switch s.kind {
	case sLock:
		l := &g.locks[s.n]
		return l.holder == nil || l.holder == t
	case sJoin:
		return s.child.ended
	case sWait:
		return s.until <= g.now || (s.pooled >= 0 && g.handles[s.pooled])
	}
	return true
}

// isReady reports whether q has an event that may run now.
func (g *Generator) isReady(q *queue) bool {
	if !q.attached {
		return false
	}
	if q.looper == nil {
		return len(q.fifo) > 0
	}
	_, ok := q.mq.Peek(g.now / 1000)
	return ok
}

// hasReady reports whether a queue of th has an event that may run now.
func (g *Generator) hasReady(th *thread) bool {
	for _, q := range th.queues {
		if g.isReady(q) {
			return true
		}
	}
	return false
}

// readyQueue returns a random queue of th with an event that may run now,
// or nil.
func (g *Generator) readyQueue(th *thread) *queue {
	var ready [16]*queue
	n := 0
	for _, q := range th.queues {
		if g.isReady(q) {
			ready[n] = q
			n++
		}
	}
	switch n {
	case 0:
		return nil
	case 1:
		return ready[0]
	}
	return ready[g.rng.IntN(n)]
}

// canQuit reports whether th, a looper or binder thread between events,
// ends now. Once the generation winds down, a looper that may quit does so
// either at once, leaving its queued messages pending (Looper.quit), or
// once none is due (Looper.quitSafely); a binder thread once its queue is
// empty.
func (g *Generator) canQuit(th *thread) bool {
	return g.stopping && th.mayQuit && th.begun && (th.quitNow || !g.hasReady(th))
}

// nextTimer returns the earliest time after now at which something is
// due. Once the generation winds down, messages due later do not count:
// the recording ends when the threads are idle, and they stay pending.
func (g *Generator) nextTimer() (int64, bool) {
	best := int64(-1)
	due := func(at int64) {
		if at > g.now && (best < 0 || at < best) {
			best = at
		}
	}
	if g.envAt >= 0 {
		due(g.envAt)
	}
	for _, th := range g.threads {
		if th.wake > g.now {
			due(th.wake)
			continue
		}
		if t := th.active(); t != nil {
			if len(t.steps) > 0 && t.steps[0].kind == sWait {
				due(t.steps[0].until)
			}
			continue
		}
		if g.stopping {
			continue
		}
		for _, q := range th.queues {
			if q.looper != nil && q.attached {
				if _, ok, wake := q.mq.Next(g.now / 1000); !ok && wake >= 0 {
					due(wake * 1000)
				}
			}
		}
	}
	return best, best >= 0
}

// stepThread lets th emit its next operation; false if it emitted none
// (it went to sleep or blocked).
func (g *Generator) stepThread(th *thread, op *traces.Op) bool {
	if t := th.active(); t != nil {
		return g.stepTask(t, op)
	}
	if g.canQuit(th) {
		th.own.push(step{kind: sThreadEnd})
		return g.stepTask(th.own, op)
	}
	g.begin(th, g.readyQueue(th), op) // runnable: a queue is ready
	return true
}

// begin starts the next event of q on th.
func (g *Generator) begin(th *thread, q *queue, op *traces.Op) {
	var ev *event
	if q.looper == nil {
		ev = q.fifo[0]
		q.fifo[0] = nil
		q.fifo = q.fifo[1:]
	} else {
		id, _, _ := q.mq.Next(g.now / 1000)
		ev = g.events[int64(id)]
		g.unpend(ev)
	}
	q.npending--
	t := &task{id: mkName(nEvent, uint64(ev.num)), th: th, ev: ev, home: g.rng.IntN(g.cfg.Classes)}
	t.left = g.actions(g.cfg.EventActions)
	if ev.period > 0 { // a timer posts its next tick first thing
		t.push(step{kind: sSend, q: q, n: ev.period})
	}
	if g.rng.IntN(10) != 0 { // most events run a handler
		t.push(step{kind: sCall, n: g.rng.IntN(g.cfg.Handlers), left: t.left})
		t.left = 0
	}
	th.cur = t
	op.Kind, op.Task, op.Thread = traces.Begin, g.in.sym(t.id), g.in.sym(th.id)
}

// unpend takes a looper event out of the pending lists and releases its
// barrier.
func (g *Generator) unpend(ev *event) {
	delete(g.events, ev.num)
	last := g.pending[len(g.pending)-1]
	g.pending[ev.pos] = last
	last.pos = ev.pos
	g.pending[len(g.pending)-1] = nil
	g.pending = g.pending[:len(g.pending)-1]
	if ev.barrier != 0 {
		ev.q.mq.RemoveBarrier(msgqueue.ID(-ev.barrier))
	}
}

// stepEnv emits an external input from outside the program (no task).
func (g *Generator) stepEnv(op *traces.Op) bool {
	g.envAt = g.externalDelay(1 - g.cfg.Send.ExternalTask)
	q := g.pickQueue(nil)
	if q == nil {
		return false
	}
	s := step{kind: sSend, q: q, external: true}
	return g.send(nil, &s, op)
}
