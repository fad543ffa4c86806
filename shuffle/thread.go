package shuffle

import (
	"fmt"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// Thread is a worker thread started by [Runtime.Go].
type Thread struct {
	t *task
}

// Go starts a worker thread named name that runs fn as a handler named
// after fn (an AsyncTask's doInBackground, a loader, a network thread).
// The trace records the fork by the calling task.
//
//go:noinline
func (rt *Runtime) Go(name string, fn func()) *Thread {
	parent := rt.running("Go")
	child := rt.newTask(name, traces.Worker)
	rt.emitFork(parent, child, appCaller())
	hname, hsrc := rt.names.handler(fn)
	rt.spawn(child, func() {
		rt.emitThreadStart(child)
		rt.step()
		if child.protect(func() { child.callHandler(hname, hsrc, fn) }) {
			rt.emit(rt.newOp(traces.ThreadEnd, child))
			return
		}
		rt.emit(rt.newOp(traces.ThreadEnd, child))
		rt.step()
	})
	rt.step()
	return &Thread{t: child}
}

// Call calls fn as a nested handler named after it: a framework method
// dispatching to an app callback (performTraversals calling onLayout).
func (rt *Runtime) Call(fn func()) {
	t := rt.running("Call")
	name, src := rt.names.handler(fn)
	t.callHandler(name, src, fn)
}

// emitFork records that parent forks child, the app's call c.
func (rt *Runtime) emitFork(parent, child *task, c caller) {
	op := rt.newOp(traces.Fork, parent)
	op.Thread = child.id
	op.Src = rt.srcAt(c)
	rt.emit(op)
}

// Join waits until the thread has ended (Thread.join).
//
//go:noinline
func (th *Thread) Join() {
	c := appCaller()
	rt := th.t.rt
	t := rt.running("Join")
	for th.t.state != done {
		th.t.joiners = append(th.t.joiners, t)
		t.block()
	}
	op := rt.newOp(traces.Join, t)
	op.Thread = th.t.id
	op.Src = rt.srcAt(c)
	rt.emit(op)
	rt.step()
}

// Sleep makes the running task take d of virtual time, computing or
// sleeping; other tasks run meanwhile. A looper event that sleeps keeps
// its looper busy, as a slow handler does.
func (rt *Runtime) Sleep(d time.Duration) {
	t := rt.running("Sleep")
	if d > 0 {
		t.sleepUntil(rt.now + d)
	}
}

// Handle is a synchronization handle of the trace: a Signal happens
// before every later Wait. It models what orders two tasks without a
// queue: listener registration (Signal) and invocation (Wait), lifecycle
// enabling, a notification that a thread has prepared something.
type Handle struct {
	rt       *Runtime
	m        traces.Sym
	signaled bool
}

// NewHandle returns a fresh handle.
func (rt *Runtime) NewHandle() *Handle {
	return &Handle{rt: rt, m: rt.nextID("m", &rt.counter.handle)}
}

// Signal records signal(m) by the running task.
//
//go:noinline
func (h *Handle) Signal() {
	t := h.rt.running("Signal")
	h.signaled = true
	h.rt.emitSync(traces.Signal, t, h.m, appCaller())
}

// Wait records wait(m) by the running task: the task goes on causally
// after every Signal of the handle so far. Wait does not block; it is for
// code that runs because of the signal (a listener invoked after its
// registration). Waiting on a handle never signaled records nothing.
//
//go:noinline
func (h *Handle) Wait() {
	t := h.rt.running("Wait")
	if h.signaled {
		h.rt.emitSync(traces.Wait, t, h.m, appCaller())
	}
}

// emitSync records signal or wait by the app's call c (none: the
// framework's).
func (rt *Runtime) emitSync(k traces.Kind, t *task, m traces.Sym, c caller) {
	op := rt.newOp(k, t)
	op.Name = m
	op.Src = rt.srcAt(c)
	rt.emit(op)
	rt.step()
}

// Mutex is a lock (a Java monitor, a ReentrantLock). Locks give mutual
// exclusion only: the causality model orders nothing by them.
type Mutex struct {
	rt      *Runtime
	id      traces.Sym
	holder  *task
	count   int
	waiters []*task
}

// NewMutex returns a new, unlocked lock.
func NewMutex(in Env) *Mutex {
	rt := in.Runtime()
	return &Mutex{rt: rt, id: rt.nextID("L", &rt.counter.lock)}
}

// Lock acquires the lock, waiting while another thread holds it. It is
// re-entrant.
//
//go:noinline
func (m *Mutex) Lock() { m.lock(appCaller()) }

// lock is Lock by the app's call c.
func (m *Mutex) lock(c caller) {
	rt := m.rt
	t := rt.running("Lock")
	for m.holder != nil && m.holder != t {
		if cycle := m.cycle(t); cycle != "" {
			rt.hang(t, "deadlock: "+cycle)
		}
		m.waiters = append(m.waiters, t)
		t.waitsFor = m
		t.block()
		t.waitsFor = nil
	}
	m.holder = t
	m.count++
	t.locks = append(t.locks, m)
	op := rt.newOp(traces.Lock, t)
	op.Name = m.id
	op.Src = rt.srcAt(c)
	rt.emit(op)
	rt.step()
}

// cycle describes the deadlock t would enter by waiting for m, if the
// holders of the locks form a cycle back to t; "" if not.
func (m *Mutex) cycle(t *task) string {
	rt := m.rt
	l, n := m, 0
	for l.holder != t {
		if l = l.holder.waitsFor; l == nil || l.holder == nil || n > len(rt.tasks) {
			return ""
		}
		n++
	}
	var b strings.Builder
	b.WriteString("thread " + rt.syms.String(t.id))
	for l := m; ; l = l.holder.waitsFor {
		fmt.Fprintf(&b, " waits for lock %s, held by thread %s", rt.syms.String(l.id), rt.syms.String(l.holder.id))
		if l.holder == t {
			return b.String()
		}
		b.WriteString(", which")
	}
}

// Unlock releases the lock once.
//
//go:noinline
func (m *Mutex) Unlock() { m.unlock(appCaller()) }

// unlock is Unlock by the app's call c.
func (m *Mutex) unlock(c caller) {
	rt := m.rt
	t := rt.running("Unlock")
	if m.holder != t {
		panic("shuffle: Unlock of a lock the running task does not hold")
	}
	for i := len(t.locks) - 1; i >= 0; i-- {
		if t.locks[i] == m {
			t.locks = append(t.locks[:i], t.locks[i+1:]...)
			break
		}
	}
	op := rt.newOp(traces.Unlock, t)
	op.Name = m.id
	op.Src = rt.srcAt(c)
	rt.emit(op)
	if m.count--; m.count == 0 {
		m.holder = nil
		if len(m.waiters) > 0 {
			m.waiters[0].state = ready
			m.waiters = m.waiters[1:]
		}
	}
	rt.step()
}

// Cond is a condition of a lock (Object.wait / notify).
type Cond struct {
	L       *Mutex
	waiters []*task
}

// NewCond returns a condition of lock l.
func NewCond(l *Mutex) *Cond { return &Cond{L: l} }

// Wait releases the lock, which the running task must hold (once), waits
// for a Signal or Broadcast, and takes the lock again. The trace records
// unlock, then wait(m) for the handle of the notification, then lock.
//
//go:noinline
func (c *Cond) Wait() {
	at := appCaller()
	rt := c.L.rt
	t := rt.running("Cond.Wait")
	c.L.unlock(at)
	c.waiters = append(c.waiters, t)
	t.signal = traces.NoSym
	for t.signal == traces.NoSym {
		t.block()
	}
	m := t.signal
	t.signal = traces.NoSym
	rt.emitSync(traces.Wait, t, m, at)
	c.L.lock(at)
}

// Signal wakes the longest-waiting task, if any (notify).
//
//go:noinline
func (c *Cond) Signal() { c.notify(1, appCaller()) }

// Broadcast wakes every waiting task (notifyAll).
//
//go:noinline
func (c *Cond) Broadcast() { c.notify(len(c.waiters), appCaller()) }

// notify wakes n waiting tasks, by the app's call at.
func (c *Cond) notify(n int, at caller) {
	rt := c.L.rt
	t := rt.running("Cond.Signal")
	if n == 0 || len(c.waiters) == 0 {
		return
	}
	m := rt.nextID("m", &rt.counter.handle)
	for _, w := range c.waiters[:n] {
		w.signal = m
		w.state = ready
	}
	c.waiters = c.waiters[n:]
	rt.emitSync(traces.Signal, t, m, at)
}
