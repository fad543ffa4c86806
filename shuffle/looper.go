package shuffle

import (
	"slices"
	"time"

	"github.com/licorice-dev/licorice/internal/msgqueue"
	"github.com/licorice-dev/licorice/traces"
)

// Looper is a message queue and the thread(s) that serve it: a looper
// thread (the main thread, a HandlerThread) runs its events one at a time
// in the order of Android's MessageQueue; the process's binder queue is
// served by a pool of binder threads. Its Post methods are those of an
// Android Handler bound to the looper.
type Looper struct {
	rt      *Runtime
	queue   traces.Sym
	binder  bool
	q       msgqueue.Queue
	pending map[msgqueue.ID]*Message
	nextID  msgqueue.ID

	emptyWaiters []*task // senders whose shuffle delay ends when the queue empties
	quitting     bool
	prepared     bool
	preparer     *task // the task waiting in StartLooper
}

// Message is an event sent to a looper, until it has run or was removed.
type Message struct {
	l       *Looper
	id      traces.Sym
	qid     msgqueue.ID
	body    func(t *task)
	handler traces.Sym    // the handler it calls, if the app's
	due     time.Duration // when it may run at the earliest
	state   msgState
}

type msgState uint8

const (
	msgPending msgState = iota
	msgRunning
	msgDone
	msgRemoved
)

func (rt *Runtime) newLooper(name string, binder bool) *Looper {
	return &Looper{rt: rt, queue: rt.syms.Intern(name), binder: binder, pending: make(map[msgqueue.ID]*Message)}
}

// Name returns the looper's queue id.
func (l *Looper) Name() string { return l.rt.syms.String(l.queue) }

// StartLooper starts a new looper thread (Android's HandlerThread) and
// returns its looper once the thread has prepared it: the calling task
// waits for the new thread as getLooper() does, which the trace records as
// a signal by the new thread and a wait by the caller.
//
//go:noinline
func (rt *Runtime) StartLooper(name string) *Looper {
	c := appCaller()
	parent := rt.running("StartLooper")
	l := rt.newLooper(name, false)
	child := rt.newTask(name, traces.Looper)
	l.queue = child.id // unique, like the thread
	child.looper = l
	rt.emitFork(parent, child, c)
	h := rt.nextID("m", &rt.counter.handle)
	rt.spawn(child, func() {
		rt.emitThreadStart(child)
		rt.step()
		l.prepared = true
		if l.preparer != nil {
			l.preparer.state = ready
		}
		rt.emitSync(traces.Signal, child, h, caller{})
		child.loop()
	})
	rt.step()
	for !l.prepared {
		l.preparer = parent
		parent.block()
	}
	l.preparer = nil
	rt.emitSync(traces.Wait, parent, h, c)
	return l
}

// Post sends fn to run as an event on the looper, after the messages
// already due (Handler.post). The event calls fn as a handler named after
// it (see the package documentation). Post and its variants return the
// message, which can be removed while it is pending; they return nil if
// the looper has quit.
//
//go:noinline
func (l *Looper) Post(fn func()) *Message { return l.send(sendSpec{}, fn, appCaller()) }

// PostDelayed sends fn to run no earlier than d from now (rounded down to
// whole milliseconds, the unit of the trace).
//
//go:noinline
func (l *Looper) PostDelayed(fn func(), d time.Duration) *Message {
	return l.send(sendSpec{delay: d}, fn, appCaller())
}

// PostAtTime sends fn to run no earlier than the given uptime (rounded
// down to whole milliseconds).
//
//go:noinline
func (l *Looper) PostAtTime(fn func(), uptime time.Duration) *Message {
	return l.send(sendSpec{kind: traces.AtTime, at: uptime}, fn, appCaller())
}

// PostAtFront puts fn at the front of the queue (postAtFrontOfQueue).
//
//go:noinline
func (l *Looper) PostAtFront(fn func()) *Message {
	return l.send(sendSpec{kind: traces.AtFront}, fn, appCaller())
}

// PostAsync sends fn as an asynchronous message, which sync barriers do
// not hold back, after delay d (0 for none).
//
//go:noinline
func (l *Looper) PostAsync(fn func(), d time.Duration) *Message {
	return l.send(sendSpec{delay: d, async: true}, fn, appCaller())
}

// sendSpec is how a message is placed in its queue.
type sendSpec struct {
	kind    traces.SendKind
	delay   time.Duration
	at      time.Duration
	async   bool
	handler traces.Sym // the handler posted, if the app's
}

// send is a post of handler fn by the running task, the app's call c.
func (l *Looper) send(s sendSpec, fn func(), c caller) *Message {
	name, src := l.rt.names.handler(fn)
	s.handler = name
	return l.sendBody(s, func(et *task) { et.callHandler(name, src, fn) }, c)
}

// sendBody is a send by the running task of an event that runs body, by
// the app's call c (none: the framework's send).
func (l *Looper) sendBody(s sendSpec, body func(t *task), c caller) *Message {
	rt := l.rt
	t := rt.running("Post")
	if l.quitting {
		return nil
	}
	if rt.opts.Shuffle {
		delay := rt.shuf.Float64() < shuffleShare
		if d, far := rt.farPostpone(rt.firstSend, s.handler); far {
			t.sleepUntil(rt.now + d)
		} else if delay {
			t.shuffleDelay(l)
		}
		if l.quitting {
			return nil
		}
	}
	m := l.newMessage(body)
	m.handler = s.handler
	op := rt.newOp(traces.Send, t)
	op.Src = rt.srcAt(c)
	l.enqueue(op, m, s)
	rt.step()
	return m
}

// sendExternal is a send by the outside world (no task): body runs as the
// event.
func (l *Looper) sendExternal(body func(t *task)) *Message {
	rt := l.rt
	m := l.newMessage(body)
	op := rt.newOp(traces.Send, nil)
	op.External = true
	l.enqueue(op, m, sendSpec{})
	return m
}

func (l *Looper) newMessage(body func(t *task)) *Message {
	rt := l.rt
	l.nextID++
	rt.events++
	return &Message{l: l, id: rt.nextID("E", &rt.counter.event), qid: l.nextID, body: body}
}

// enqueue records the send op and puts m in the queue.
func (l *Looper) enqueue(op *traces.Op, m *Message, s sendSpec) {
	rt := l.rt
	op.Queue, op.Event, op.SendKind, op.Async = l.queue, m.id, s.kind, s.async
	m.due = rt.now
	switch s.kind {
	case traces.Delayed:
		op.Time = max(int64(s.delay/time.Millisecond), 0)
		m.due += time.Duration(op.Time) * time.Millisecond
		l.q.Post(m.qid, int64(m.due), s.async)
	case traces.AtTime:
		op.Time = max(int64(s.at/time.Millisecond), 0)
		m.due = time.Duration(op.Time) * time.Millisecond
		l.q.Post(m.qid, int64(m.due), s.async)
	case traces.AtFront:
		l.q.PostAtFront(m.qid, s.async)
	}
	l.pending[m.qid] = m
	rt.emit(op)
}

// Remove removes the message if it is still pending (Handler.removeMessages
// for this one message) and reports whether it did. It may be called on a
// nil message.
//
//go:noinline
func (m *Message) Remove() bool {
	if m == nil || m.state != msgPending {
		return false
	}
	l := m.l
	rt := l.rt
	t := rt.running("Remove")
	l.remove(m, t, appCaller())
	rt.step()
	return true
}

// remove removes m by task t, the app's call c.
func (l *Looper) remove(m *Message, t *task, c caller) {
	rt := l.rt
	l.q.Remove(m.qid)
	delete(l.pending, m.qid)
	m.state = msgRemoved
	op := rt.newOp(traces.Remove, t)
	op.Event = m.id
	op.Src = rt.srcAt(c)
	rt.emit(op)
	l.checkEmpty()
}

// Pending reports whether the message is still waiting in its queue.
func (m *Message) Pending() bool { return m != nil && m.state == msgPending }

// PostSyncBarrier places a sync barrier in the queue as of now and returns
// its token: until it is removed and while it is at the head of the queue,
// only asynchronous messages run. Barriers are not operations of the trace.
func (l *Looper) PostSyncBarrier() int64 {
	l.rt.running("PostSyncBarrier")
	l.nextID++
	l.q.PostBarrier(l.nextID, int64(l.rt.now))
	return int64(l.nextID)
}

// RemoveSyncBarrier removes the barrier with the given token and reports
// whether it was there.
func (l *Looper) RemoveSyncBarrier(token int64) bool {
	l.rt.running("RemoveSyncBarrier")
	return l.q.RemoveBarrier(msgqueue.ID(token))
}

// Quit stops a looper thread started by StartLooper: its pending messages
// are removed (recorded as removes by the calling task), the event it runs
// finishes, and the thread ends. Later posts to it are dropped.
//
//go:noinline
func (l *Looper) Quit() {
	c := appCaller()
	rt := l.rt
	t := rt.running("Quit")
	if l.quitting || l == rt.main || l.binder {
		return
	}
	ids := make([]msgqueue.ID, 0, len(l.pending))
	for id := range l.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		m, ok := l.pending[id]
		if !ok {
			continue // the looper took it meanwhile (rt.step lets it run)
		}
		l.remove(m, t, c)
		rt.step()
	}
	l.quitting = true
	rt.step()
}

// loop is the body of a looper or binder thread: run events until the
// looper quits.
func (t *task) loop() {
	for {
		m := t.nextMessage()
		if m == nil {
			break
		}
		t.runEvent(m)
	}
	op := t.rt.newOp(traces.ThreadEnd, t)
	t.rt.emit(op)
}

// nextMessage waits until a message of t's queue may run and takes it
// out; nil when the looper has quit.
func (t *task) nextMessage() *Message {
	l := t.looper
	rt := t.rt
	for {
		if l.quitting {
			return nil
		}
		if id, ok, _ := l.q.Next(int64(rt.now)); ok {
			// A binder thread starts out waiting for a message: it
			// is running now, and must stay runnable while its event
			// runs, whatever its queue holds.
			t.state = ready
			m := l.pending[id]
			delete(l.pending, id)
			l.checkEmpty()
			return m
		}
		t.state = waitingMessage
		t.switchAway()
		t.state = ready
	}
}

// runEvent runs message m as an event of thread t.
func (t *task) runEvent(m *Message) {
	rt := t.rt
	m.state = msgRunning // taken: no longer removable
	if d, far := rt.farPostpone(rt.firstRun, m.handler); far && !t.looper.binder {
		t.sleepUntil(rt.now + d) // a slow looper thread (Options.Reach)
	}
	t.event = m
	op := rt.newOp(traces.Begin, t)
	op.Thread = t.id
	rt.emit(op)
	rt.step()
	crashedNow := t.protect(func() { m.body(t) })
	rt.emit(rt.newOp(traces.End, t))
	t.event = nil
	m.state = msgDone
	if crashedNow {
		t.switchAway()
		return
	}
	rt.step()
}

// checkEmpty ends the shuffle delays waiting for the queue to empty.
func (l *Looper) checkEmpty() {
	if len(l.emptyWaiters) == 0 || !l.q.Empty() {
		return
	}
	for _, w := range l.emptyWaiters {
		w.wakeSleeper()
	}
	l.emptyWaiters = l.emptyWaiters[:0]
}

// shuffleDelay delays the running task before it sends to l, by an
// exponential time, cut short when l's queue is or becomes empty
// (thesis §5.3.4).
func (t *task) shuffleDelay(l *Looper) {
	rt := t.rt
	d := time.Duration(rt.shuffleDelay.Rand())
	if d <= 0 || l.q.Empty() {
		return
	}
	l.emptyWaiters = append(l.emptyWaiters, t)
	t.sleepUntil(rt.now + d)
	if i := slices.Index(l.emptyWaiters, t); i >= 0 {
		l.emptyWaiters = slices.Delete(l.emptyWaiters, i, i+1)
	}
}
