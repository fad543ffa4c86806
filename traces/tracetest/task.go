package tracetest

import (
	"math"

	"github.com/licorice-dev/licorice/internal/msgqueue"
	"github.com/licorice-dev/licorice/traces"
)

// A task is a thread's own code or an event while it runs. Its body is a
// number of actions; an action is planned as a few steps, and each step
// emits one operation when the scheduler picks the task. A step takes its
// effect (on the heap, the queues, the locks) when it is emitted, so the
// trace always shows the state it changed.
type task struct {
	id       name
	th       *thread   // the thread it runs on
	ev       *event    // the event, or nil for the thread's own code
	home     int       // the class its data accesses prefer
	left     int       // actions left outside any frame
	frames   []frame   // open calls and locks, innermost last
	steps    []step    // planned steps, next first
	children []*thread // threads it forked, the most recent few
}

// A frame is an open handler call or a held lock, with the actions left
// before it is closed.
type frame struct {
	lock bool
	n    int // the handler or the lock
	left int
}

type stepKind uint8

const (
	sThreadBegin stepKind = iota + 1
	sAttach
	sThreadEnd
	sEnd
	sCall
	sRet
	sLock
	sUnlock
	sRead
	sWrite
	sAlloc
	sBranch
	sRelate
	sSend
	sRemove
	sSignal
	sWait
	sFork
	sJoin
	sError
)

type step struct {
	kind     stepKind
	loc      location
	loc2     location
	fixed    bool // sWrite: write v, not a random value
	v        val
	deref    bool
	cond     traces.BranchCond
	via      traces.RelateVia
	n        int // handler, lock, class; sSend: a timer's period (ms), 0 for other sends
	left     int // sCall, sLock: actions in the frame
	obj      int64
	q        *queue
	barrier  bool // sSend: place a sync barrier first
	external bool
	handle   name
	pooled   int   // sWait: the pooled handle, or -1
	until    int64 // sWait: blocks until then at most (µs); 0: does not block
	child    *thread
}

func (t *task) push(s step) { t.steps = append(t.steps, s) }

// pushFront makes s the next step.
func (t *task) pushFront(s step) {
	t.steps = append(t.steps, step{})
	copy(t.steps[1:], t.steps)
	t.steps[0] = s
}

// busy reports whether the task has anything left to do.
func (t *task) busy() bool { return len(t.steps) > 0 || len(t.frames) > 0 || t.left > 0 }

func (t *task) holdsLock() bool {
	for _, f := range t.frames {
		if f.lock {
			return true
		}
	}
	return false
}

// looper returns the looper thread t runs on, or nil.
func (t *task) looper() *thread {
	if t.th.kind == traces.Looper {
		return t.th
	}
	return nil
}

// stepTask emits t's next operation; false if it emitted none (the task
// went to sleep or its next step is blocked).
func (g *Generator) stepTask(t *task, op *traces.Op) bool {
	for {
		if len(t.steps) == 0 {
			if !g.plan(t) {
				return false
			}
			continue
		}
		if !g.ready(t) {
			return false
		}
		s := t.steps[0]
		copy(t.steps, t.steps[1:])
		t.steps = t.steps[:len(t.steps)-1]
		if g.exec(t, &s, op) {
			op.Task = g.in.sym(t.id)
			return true
		}
		if t.th.wake > g.now {
			return false // the step was skipped, and the task sleeps until its next action
		}
	}
}

// plan plans t's next action, or what closes its frames and ends it. It
// returns false if the task has nothing to do now (it went to sleep, or
// it is a looper's own code that is done for now).
func (g *Generator) plan(t *task) bool {
	if n := len(t.frames); n > 0 && t.frames[n-1].left == 0 {
		if t.frames[n-1].lock {
			t.push(step{kind: sUnlock})
		} else {
			t.push(step{kind: sRet})
		}
		return true
	}
	if len(t.frames) == 0 && t.left == 0 {
		switch {
		case t.ev != nil:
			t.push(step{kind: sEnd})
		case t.th.kind == traces.Worker:
			t.push(step{kind: sThreadEnd})
		default:
			return false // back to the event loop
		}
		return true
	}
	if t.th == g.input {
		return g.planInput(t)
	}
	if t.ev == nil && t.th.kind == traces.Worker && g.cfg.SleepMillis > 0 && !g.stopping &&
		!(g.cfg.ShortLocks && t.holdsLock()) && g.rng.IntN(4) == 0 {
		t.th.wake = g.now + 1 + int64(g.rng.ExpFloat64()*float64(g.cfg.SleepMillis)*1000)
		return false
	}
	left := &t.left
	if n := len(t.frames); n > 0 {
		left = &t.frames[n-1].left
	}
	*left--
	g.planAction(t, left)
	return true
}

// planInput plans the input thread: an external send now and then, until
// the generation winds down.
func (g *Generator) planInput(t *task) bool {
	if g.stopping {
		t.left = 0
		t.push(step{kind: sThreadEnd})
		return true
	}
	first := t.th.wake == 0
	t.th.wake = g.externalDelay(g.cfg.Send.ExternalTask)
	if first { // the first input comes after a while
		return false
	}
	if q := g.pickQueue(t); q != nil {
		t.push(step{kind: sSend, q: q, external: true}) // now, then sleep until the next
		return true
	}
	return false
}

// The actions, in the order of Mix's fields.
const (
	aRead = iota
	aWrite
	aAlloc
	aGuard
	aRelate
	aCall
	aLock
	aSend
	aRemove
	aSignal
	aWait
	aFork
	aJoin
)

// shortLock is the most actions a lock is held for with Config.ShortLocks.
const shortLock = 4

// planAction plans one action of t; left is the count of actions left in
// t's innermost frame, which a new frame takes some of.
func (g *Generator) planAction(t *task, left *int) {
	a := aRead
	if total := g.acts[len(g.acts)-1]; total > 0 {
		r := g.rng.IntN(total)
		for a = 0; g.acts[a] <= r; a++ {
		}
	}
	rng := g.rng
	h := &g.heap
	switch a {
	case aWrite:
		t.push(step{kind: sWrite, loc: h.pick(rng, t.home, false)})
		return
	case aAlloc:
		c := t.home
		if rng.IntN(2) == 0 {
			c = rng.IntN(g.cfg.Classes)
		}
		obj := g.nextObject
		g.nextObject++
		t.push(step{kind: sAlloc, obj: obj, n: c})
		t.push(step{kind: sWrite, loc: h.pick(rng, t.home, true), fixed: true, v: val{kind: traces.RefValue, bits: uint64(obj)}})
		return
	case aGuard:
		loc := h.pick(rng, t.home, true)
		t.push(step{kind: sRead, loc: loc})
		t.push(step{kind: sBranch, loc: loc, cond: traces.BranchCond(1 + rng.IntN(3))})
		return
	case aRelate:
		if len(h.objs) == 0 {
			break
		}
		la := h.pick(rng, t.home, false)
		lb := h.pickLike(rng, t.home, h.kind(la))
		via := traces.ViaCmp
		if numeric(h.kind(la)) && numeric(h.kind(lb)) && rng.IntN(2) == 0 {
			via = traces.ViaArith
		}
		t.push(step{kind: sRead, loc: la})
		t.push(step{kind: sRead, loc: lb})
		t.push(step{kind: sRelate, loc: la, loc2: lb, via: via})
		return
	case aCall:
		k := rng.IntN(*left + 1)
		*left -= k
		t.push(step{kind: sCall, n: rng.IntN(g.cfg.Handlers), left: k})
		return
	case aLock:
		if len(g.locks) == 0 {
			break
		}
		low := 0 // locks are taken in order: at least the highest one held
		for _, f := range t.frames {
			if f.lock {
				low = max(low, f.n)
			}
		}
		k := *left
		if g.cfg.ShortLocks {
			k = min(k, shortLock)
		}
		k = rng.IntN(k + 1)
		*left -= k
		t.push(step{kind: sLock, n: low + rng.IntN(len(g.locks)-low), left: k})
		return
	case aSend:
		q := g.pickQueue(t)
		if q == nil {
			break
		}
		n := 1 + rng.IntN(g.cfg.Send.Burst)
		barrier := q.looper != nil && rng.Float64() < g.cfg.Send.Barrier
		for i := range n {
			t.push(step{kind: sSend, q: q, barrier: barrier && i == 0})
		}
		return
	case aRemove:
		t.push(step{kind: sRemove})
		return
	case aSignal:
		t.push(step{kind: sSignal})
		return
	case aWait:
		t.push(g.planWait(t))
		return
	case aFork:
		t.push(step{kind: sFork})
		return
	case aJoin:
		if c := g.pickJoin(t); c != nil {
			t.push(step{kind: sJoin, child: c})
			return
		}
	}
	loc := h.pick(rng, t.home, false)
	t.push(step{kind: sRead, loc: loc, deref: h.kind(loc) == vPtr && rng.IntN(3) == 0})
}

// pickQueue returns a queue for t (nil: from outside) to send to, or nil
// if there is none.
func (g *Generator) pickQueue(t *task) *queue {
	rng := g.rng
	if len(g.bqueues) > 0 && rng.Float64() < g.cfg.Send.Binder {
		if q := g.bqueues[rng.IntN(len(g.bqueues))]; q.attached {
			return q
		}
	}
	if t != nil && t.looper() != nil && rng.Float64() < g.cfg.Send.Self {
		qs := t.looper().queues
		if q := qs[rng.IntN(len(qs))]; q.attached && !q.closed {
			return q
		}
	}
	for range 4 {
		if q := g.lqueues[rng.IntN(len(g.lqueues))]; q.attached && !q.closed {
			return q
		}
	}
	return nil
}

// planWait plans a wait of t. Events wait without blocking (a looper is
// not held up); other tasks block until the handle is signaled or a
// timeout. An event on a looper mostly waits on a handle that an earlier
// event of the same looper signaled: a handoff that exercises ATOMIC.
func (g *Generator) planWait(t *task) step {
	rng := g.rng
	s := step{kind: sWait, pooled: -1}
	blocking := t.ev == nil && t.th.kind == traces.Worker && !t.holdsLock() && !g.stopping
	if l := t.looper(); l != nil && t.ev != nil && rng.IntN(5) < 3 {
		for i := len(g.fresh) - 1; i >= 0; i-- {
			if g.fresh[i].looper == l {
				s.handle = g.fresh[i].handle
				return s
			}
		}
	}
	switch r := rng.IntN(10); {
	case r < 4 && len(g.fresh) > 0:
		s.handle = g.fresh[rng.IntN(len(g.fresh))].handle
		return s // signaled already
	case r < 8 && len(g.handles) > 0:
		s.pooled = rng.IntN(len(g.handles))
		s.handle = mkName(nHandle, uint64(s.pooled))
	default: // a handle nobody signals
		s.handle = mkName(nHandle, freshHandle|g.nextHandle)
		g.nextHandle++
	}
	if blocking {
		s.until = g.now + 1000 + int64(rng.ExpFloat64()*float64(max(g.cfg.SleepMillis, 1))*1000)
	}
	return s
}

// pickJoin returns a thread for t to join, or nil: one of its own
// children (if t may block), or a worker that has ended.
func (g *Generator) pickJoin(t *task) *thread {
	mayBlock := !t.holdsLock()
	var cands [recentMax]*thread
	n := 0
	for _, c := range t.children {
		if !c.joined && (c.ended || mayBlock) {
			cands[n] = c
			n++
		}
	}
	if n == 0 {
		for _, c := range g.ended {
			if !c.joined {
				cands[n] = c
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	c := cands[g.rng.IntN(n)]
	c.joined = true
	return c
}

// exec emits the operation of step s of task t; false if the step turned
// out to have nothing to do (e.g. a send once the generation winds down).
func (g *Generator) exec(t *task, s *step, op *traces.Op) bool {
	in := g.in
	switch s.kind {
	case sThreadBegin:
		t.th.begun = true
		op.Kind, op.ThreadKind = traces.ThreadBegin, t.th.kind
		op.Name = in.sym(mkName(nThreadName, t.id.number()))
	case sAttach:
		s.q.attached = true
		op.Kind, op.Queue = traces.Attach, in.sym(s.q.id)
		g.startTimers(t, s.q)
	case sThreadEnd:
		g.threadEnd(t.th)
		op.Kind = traces.ThreadEnd
	case sEnd:
		t.th.cur = nil
		if t.th.kind == traces.Looper && g.rng.IntN(8) == 0 {
			t.th.own.left = 1 + g.rng.IntN(2) // an idle handler runs on the looper's own code
		}
		op.Kind = traces.End
	case sCall:
		t.frames = append(t.frames, frame{n: s.n, left: s.left})
		op.Kind, op.Name = traces.Call, in.sym(g.handler(t, s.n))
	case sRet:
		f := t.frames[len(t.frames)-1]
		t.frames = t.frames[:len(t.frames)-1]
		op.Kind, op.Name = traces.Ret, in.sym(g.handler(t, f.n))
	case sLock:
		l := &g.locks[s.n]
		l.holder = t
		l.count++
		t.frames = append(t.frames, frame{lock: true, n: s.n, left: s.left})
		op.Kind, op.Name = traces.Lock, in.sym(mkName(nLock, uint64(s.n)))
	case sUnlock:
		f := t.frames[len(t.frames)-1]
		t.frames = t.frames[:len(t.frames)-1]
		l := &g.locks[f.n]
		if l.count--; l.count == 0 {
			l.holder = nil
		}
		op.Kind, op.Name = traces.Unlock, in.sym(mkName(nLock, uint64(f.n)))
	case sRead:
		g.read(t, s, op)
	case sWrite:
		g.write(s, op)
	case sAlloc:
		g.heap.alloc(s.obj, s.n)
		op.Kind = traces.Alloc
		op.Loc.Obj = in.sym(mkName(nObject, uint64(s.obj)))
		op.Type = in.sym(mkName(nClass, uint64(s.n)))
		op.Site = in.sym(mkName(nSite, uint64(t.home)<<16|uint64(1+g.rng.IntN(20))))
	case sBranch:
		g.branch(t, s, op)
	case sRelate:
		op.Kind, op.Via = traces.Relate, s.via
		op.Loc, op.Loc2 = g.location(g.heap.resolve(s.loc)), g.location(g.heap.resolve(s.loc2))
	case sSend:
		return g.send(t, s, op)
	case sRemove:
		return g.remove(op)
	case sSignal:
		g.signal(t, op)
	case sWait:
		if s.pooled >= 0 && s.until > 0 && g.handles[s.pooled] {
			g.handles[s.pooled] = false // a blocking waiter consumes the signal
		}
		op.Kind, op.Name = traces.Wait, in.sym(s.handle)
	case sFork:
		if s.child == nil { // else a thread of the start, forked by main
			if g.stopping || g.liveWorkers >= g.cfg.MaxWorkers {
				return false
			}
			s.child = g.newWorker()
			t.children = appendRecent(t.children, s.child)
		}
		g.threads = append(g.threads, s.child)
		op.Kind, op.Thread = traces.Fork, in.sym(s.child.id)
	case sJoin:
		op.Kind, op.Thread = traces.Join, in.sym(s.child.id)
	case sError:
		op.Kind, op.Name = traces.Error, in.sym(mkName(nError, uint64(s.n)))
	}
	return true
}

// handler is the name of handler n of t's class.
func (g *Generator) handler(t *task, n int) name {
	return mkName(nHandler, uint64(t.home)<<16|uint64(n))
}

// location is loc in the trace's terms.
func (g *Generator) location(loc location) traces.Location {
	obj, field := g.heap.names(loc)
	return traces.Location{Obj: g.in.sym(obj), Field: g.in.sym(field), Static: loc.static}
}

// value is v in the trace's terms.
func (g *Generator) value(v val) traces.Value {
	switch v.kind {
	case traces.NullValue:
		return traces.Null()
	case traces.RefValue:
		return traces.Ref(g.in.sym(mkName(nObject, v.bits)))
	case traces.IntValue:
		return traces.Int(int64(v.bits))
	case traces.FloatValue:
		return traces.Float(math.Float64frombits(v.bits))
	case traces.BoolValue:
		return traces.Bool(v.bits != 0)
	case traces.StringValue:
		return traces.String(g.in.sym(mkName(nString, v.bits)))
	}
	return traces.Value{}
}

// recorded returns the value as the trace shows it: sometimes absent.
func (g *Generator) recorded(v val) traces.Value {
	if g.cfg.AbsentValues > 0 && g.rng.Float64() < g.cfg.AbsentValues {
		return traces.Value{}
	}
	return g.value(v)
}

func (g *Generator) read(t *task, s *step, op *traces.Op) {
	h := &g.heap
	s.loc = h.resolve(s.loc)
	v := h.get(s.loc)
	op.Kind, op.Loc = traces.Read, g.location(s.loc)
	op.Val = g.recorded(v)
	if s.deref && h.kind(s.loc) == vPtr {
		switch {
		case v.kind == traces.RefValue:
			op.Deref = true
		case g.cfg.Errors: // a use of null: the program fails
			op.Deref = true
			t.pushFront(step{kind: sError})
		}
	}
}

func (g *Generator) write(s *step, op *traces.Op) {
	h := &g.heap
	s.loc = h.resolve(s.loc)
	v := s.v
	if !s.fixed {
		v = h.randomVal(g.rng, h.kind(s.loc), h.get(s.loc))
	}
	h.set(s.loc, v)
	op.Kind, op.Loc = traces.Write, g.location(s.loc)
	op.Val = g.recorded(v)
}

// branch emits a pointer test; where the test lets the code go on to use
// the pointer, the use is the next step.
func (g *Generator) branch(t *task, s *step, op *traces.Op) {
	h := &g.heap
	s.loc = h.resolve(s.loc)
	v := h.get(s.loc)
	isNull := v.kind != traces.RefValue
	op.Kind, op.Loc, op.Cond = traces.Branch, g.location(s.loc), s.cond
	switch s.cond {
	case traces.CondNull: // if (x == null) jump over the use
		op.Taken = isNull
	case traces.CondNonNull: // if (x != null) jump to the use
		op.Taken = !isNull
	case traces.CondEq: // if (x == y) ...
		op.Taken = g.rng.IntN(2) == 0
	}
	if g.rng.IntN(4) != 0 {
		op.PC = int64(0x1000 + t.home*0x100 + g.rng.IntN(64)*4)
		op.Target = op.PC + int64(8+g.rng.IntN(16)*4)
	}
	if !isNull {
		t.pushFront(step{kind: sRead, loc: s.loc, deref: true})
	}
}

// send emits a send of a new event to s.q by t (nil: from outside the
// program); false if nothing may be sent now.
func (g *Generator) send(t *task, s *step, op *traces.Op) bool {
	q := s.q
	if g.stopping || q.closed || !q.attached || q.npending >= maxPending {
		return false
	}
	rng := g.rng
	send := &g.cfg.Send
	ev := &event{num: g.nextEvent, q: q}
	g.nextEvent++
	op.Kind = traces.Send
	op.Async = rng.Float64() < send.Async
	nowMs := g.now / 1000
	if q.looper == nil {
		q.fifo = append(q.fifo, ev)
	} else {
		switch u := rng.Float64(); {
		case s.n > 0: // a timer's next tick: a plain delayed post
			ev.period = s.n
			op.Async = false
			op.Time = int64(s.n)
			q.mq.Post(msgqueue.ID(ev.num), nowMs+op.Time, false)
		case s.barrier:
			// A sync barrier, and the async message whose run removes it
			// (as a view traversal does). Messages due later that are sync
			// wait behind it; async ones may overtake them.
			ev.barrier = g.nextBarrier
			g.nextBarrier++
			q.mq.PostBarrier(msgqueue.ID(-ev.barrier), nowMs)
			op.Async = true
			if ds := send.Delays; len(ds) > 0 { // no delay, or one of the few
				if i := rng.IntN(len(ds) + 1); i > 0 {
					op.Time = int64(ds[i-1])
				}
			} else {
				op.Time = int64(rng.IntN(send.MaxDelay + 1))
			}
			q.mq.Post(msgqueue.ID(ev.num), nowMs+op.Time, true)
		case u < send.AtFront:
			op.SendKind = traces.AtFront
			q.mq.PostAtFront(msgqueue.ID(ev.num), op.Async)
		case u < send.AtFront+send.AtTime:
			op.SendKind = traces.AtTime
			// From MaxDelay ago (run at once) to 4*MaxDelay ahead, or now
			// and then much later, so that later sends may come first.
			off := rng.IntN(5*send.MaxDelay+1) - send.MaxDelay
			if rng.IntN(4) == 0 {
				off += 10 * send.MaxDelay
			}
			op.Time = max(0, nowMs+int64(off))
			q.mq.Post(msgqueue.ID(ev.num), op.Time, op.Async)
		default:
			if rng.Float64() >= send.ZeroDelay {
				if len(send.Delays) > 0 {
					op.Time = int64(send.Delays[rng.IntN(len(send.Delays))])
				} else {
					op.Time = 1 + int64(rng.IntN(send.MaxDelay))
				}
			}
			q.mq.Post(msgqueue.ID(ev.num), nowMs+op.Time, op.Async)
		}
		g.events[ev.num] = ev
		ev.pos = len(g.pending)
		g.pending = append(g.pending, ev)
	}
	q.npending++
	g.sent++
	op.Queue, op.Event = g.in.sym(q.id), g.in.sym(mkName(nEvent, uint64(ev.num)))
	op.External = s.external
	return true
}

// startTimers makes t, the thread that has just attached q, post the
// first tick of the timers that run on q.
func (g *Generator) startTimers(t *task, q *queue) {
	for i := range g.cfg.Timers {
		if g.lqueues[i%len(g.lqueues)] != q {
			continue
		}
		period := g.cfg.Send.MaxDelay
		if ds := g.cfg.Send.Delays; len(ds) > 0 {
			period = ds[i%len(ds)]
		}
		t.pushFront(step{kind: sSend, q: q, n: period})
	}
}

// remove emits the removal of a random pending looper event (not a
// timer's).
func (g *Generator) remove(op *traces.Op) bool {
	if len(g.pending) == 0 {
		return false
	}
	ev := g.pending[g.rng.IntN(len(g.pending))]
	if ev.period > 0 {
		return false // timers run until the generation winds down
	}
	ev.q.mq.Remove(msgqueue.ID(ev.num))
	ev.q.npending--
	g.unpend(ev)
	op.Kind, op.Event = traces.Remove, g.in.sym(mkName(nEvent, uint64(ev.num)))
	return true
}

// signal emits a signal of a pooled handle or of a fresh one, which later
// waits may pick up.
func (g *Generator) signal(t *task, op *traces.Op) {
	var h name
	if len(g.handles) > 0 && g.rng.IntN(2) == 0 {
		i := g.rng.IntN(len(g.handles))
		g.handles[i] = true
		h = mkName(nHandle, uint64(i))
	} else {
		h = mkName(nHandle, freshHandle|g.nextHandle)
		g.nextHandle++
		f := fresh{handle: h}
		if t.ev != nil {
			f.looper = t.looper()
		}
		g.fresh = appendRecent(g.fresh, f)
	}
	op.Kind, op.Name = traces.Signal, g.in.sym(h)
}

// appendRecent appends x, dropping the oldest element beyond recentMax.
func appendRecent[T any](s []T, x T) []T {
	if len(s) == recentMax {
		copy(s, s[1:])
		s = s[:len(s)-1]
	}
	return append(s, x)
}

// threadEnd ends th: a worker becomes joinable; a looper's queues close.
func (g *Generator) threadEnd(th *thread) {
	th.ended = true
	for _, q := range th.queues {
		if q.looper == th {
			q.closed = true
		}
	}
	if th.kind == traces.Worker && th != g.input {
		g.liveWorkers--
		if !th.joined {
			g.ended = appendRecent(g.ended, th)
		}
	}
	g.threads = deleteThread(g.threads, th)
}

func deleteThread(ts []*thread, th *thread) []*thread {
	for i, x := range ts {
		if x == th {
			copy(ts[i:], ts[i+1:])
			ts[len(ts)-1] = nil
			return ts[:len(ts)-1]
		}
	}
	return ts
}
