package shuffle

import (
	"container/heap"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// taskState is what a thread is doing, as the scheduler sees it.
type taskState uint8

const (
	ready          taskState = iota // running, or able to run
	waitingMessage                  // a looper or binder thread with nothing to run
	sleeping                        // until a timer wakes it
	blocked                         // until another task wakes it (join, lock, wait)
	done                            // ended
)

// String says what a thread in the state is doing, for messages.
func (s taskState) String() string {
	switch s {
	case ready:
		return "busy"
	case waitingMessage:
		return "idle"
	case sleeping:
		return "sleeping"
	case blocked:
		return "blocked"
	}
	return "ended"
}

// task is one thread of the process, with its own goroutine. Exactly one
// goroutine runs app code at a time: the one whose task is rt.cur. A task
// gives the baton away by waking another task's goroutine and parking on
// its own wake channel.
type task struct {
	rt     *Runtime
	id     traces.Sym // unique: the name, with "#2", "#3"... for later threads of the same name
	name   traces.Sym
	kind   traces.ThreadKind
	state  taskState
	wake   chan struct{}
	exited chan struct{}

	looper   *Looper      // looper and binder threads: the queue they serve
	event    *Message     // the event the thread is running, if any
	calls    []traces.Sym // open handler calls, innermost last
	locks    []*Mutex     // locks held, once per acquisition
	waitsFor *Mutex       // the lock it is blocked on, if any
	joiners  []*task
	token    int // invalidates the timer of an earlier sleep
	signal   traces.Sym
}

// taskID is the trace's task of the thread's next op: the event it runs,
// or the thread itself.
func (t *task) taskID() traces.Sym {
	if t.event != nil {
		return t.event.id
	}
	return t.id
}

func (rt *Runtime) newTask(name string, kind traces.ThreadKind) *task {
	n := rt.syms.Intern(name)
	id := n
	if _, used := rt.threadNames[n]; used {
		rt.threadNames[n]++
		id = rt.syms.Intern(name + "#" + strconv.Itoa(rt.threadNames[n]))
	}
	rt.threadNames[id] = 1
	t := &task{rt: rt, id: id, name: n, kind: kind, state: ready}
	rt.tasks = append(rt.tasks, t)
	rt.all = append(rt.all, t)
	return t
}

// spawn starts t's goroutine, which waits for the baton before running
// body. When body returns, the thread has ended.
func (rt *Runtime) spawn(t *task, body func()) {
	t.wake = make(chan struct{}, 1)
	t.exited = make(chan struct{})
	go func() {
		defer close(t.exited)
		<-t.wake
		if rt.killing {
			return
		}
		body()
		t.state = done
		for _, j := range t.joiners {
			j.state = ready
		}
		t.joiners = nil
		t.switchAway()
	}()
}

// emitThreadStart records the start of thread t: thread_begin and, for
// looper and binder threads, the attach of their queue.
func (rt *Runtime) emitThreadStart(t *task) {
	op := rt.newOp(traces.ThreadBegin, t)
	op.ThreadKind = t.kind
	op.Name = t.name
	rt.emit(op)
	if t.looper != nil {
		op := rt.newOp(traces.Attach, t)
		op.Queue = t.looper.queue
		rt.emit(op)
	}
}

// isReady reports whether t can run now.
func (t *task) isReady(now time.Duration) bool {
	switch t.state {
	case ready:
		return true
	case waitingMessage:
		l := t.looper
		if l.quitting {
			return true
		}
		_, ok := l.q.Peek(int64(now))
		return ok
	}
	return false
}

// switchAway lets the scheduler pick the task to run next, t included if
// it is still ready: a preemption point, or t blocks, sleeps, waits for a
// message or has ended. It returns when t runs again.
func (t *task) switchAway() {
	next := t.rt.pick()
	if next == nil {
		t.park()
		return
	}
	if next != t {
		t.handoff(next)
	}
}

// handoff runs next and parks t until it is woken again.
func (t *task) handoff(next *task) {
	rt := t.rt
	rt.switches++
	rt.cur = next
	next.wake <- struct{}{}
	<-t.wake
	if rt.killing {
		runtime.Goexit()
	}
}

// park ends the run from t's goroutine: nothing can run any more.
func (t *task) park() {
	rt := t.rt
	if rt.killing {
		runtime.Goexit()
	}
	rt.cur = nil
	close(rt.finished)
	<-t.wake
	runtime.Goexit()
}

// pick chooses the next task to run, firing timers and advancing virtual
// time while no task is ready. It returns nil when the run is over.
func (rt *Runtime) pick() *task {
	for !rt.over {
		if err := rt.ctx.Err(); err != nil {
			rt.fail(err)
			break
		}
		rt.fireTimers()
		if rt.over {
			break
		}
		rt.readyBuf = rt.readyBuf[:0]
		live := rt.tasks[:0]
		for _, t := range rt.tasks {
			if t.state == done {
				continue
			}
			live = append(live, t)
			if t.isReady(rt.now) {
				rt.readyBuf = append(rt.readyBuf, t)
			}
		}
		clear(rt.tasks[len(live):])
		rt.tasks = live
		if n := len(rt.readyBuf); n > 0 {
			next := rt.readyBuf[0]
			if n > 1 {
				next = rt.readyBuf[rt.sched.IntN(n)]
			}
			rt.cur = next
			return next
		}
		at, ok := rt.nextWake()
		if !ok {
			rt.deadlock()
			break // nothing will ever happen again
		}
		rt.now = at
	}
	rt.over = true
	return nil
}

// deadlock records an error for the first thread blocked for good, if
// any, when nothing can happen any more: a self-evident failure (an app
// that hangs), not a correct execution.
func (rt *Runtime) deadlock() {
	for _, t := range rt.tasks {
		if t.state == blocked {
			rt.hang(t, "deadlock: thread "+rt.syms.String(t.id)+" waits forever")
			return
		}
	}
}

// hang ends the run with an error op msg by task t, which is stuck: the
// app hangs (a deadlock, a looper that stopped responding), so the run is
// not a correct execution. Unlike a crash, nothing is unwound: t's calls
// and locks stay open, as they are when a process hangs.
func (rt *Runtime) hang(t *task, msg string) {
	op := rt.newOp(traces.Error, t)
	op.Name = rt.syms.Intern(msg)
	rt.emit(op)
	if rt.crash == "" {
		rt.crash = msg
	}
	rt.over = true
}

// anrTimeout is how long a due message may wait for its looper before the
// app is not responding: Android's input dispatching timeout.
const anrTimeout = 5 * time.Second

// checkResponsive ends the run with an error, Android's "Application Not
// Responding", if a looper has left a message waiting longer than
// anrTimeout after it was due: its thread is stuck (blocked for good,
// or in an event that never ends), a failure the world can see even
// while other threads go on. Shuffle delays are slow senders, not stuck
// ones: the timeout grows with their mean. It reports whether the run
// ended.
func (rt *Runtime) checkResponsive() bool {
	limit := max(anrTimeout, 100*rt.opts.DelayMean)
	for _, t := range rt.tasks {
		l := t.looper
		if l == nil || l.quitting {
			continue
		}
		id, ok := l.q.Peek(int64(rt.now))
		if !ok {
			continue
		}
		m := l.pending[id]
		if waited := rt.now - m.due; waited > limit {
			rt.hang(t, fmt.Sprintf("ANR: event %s has waited %v for queue %s, whose thread %s is %s",
				rt.syms.String(m.id), waited.Round(time.Millisecond), rt.syms.String(l.queue), rt.syms.String(t.id), t.state))
			return true
		}
	}
	return false
}

// nextWake returns the earliest time at which something can happen: a
// timer, or a delayed message becoming due.
func (rt *Runtime) nextWake() (time.Duration, bool) {
	at, ok := time.Duration(0), false
	if len(rt.timers) > 0 {
		at, ok = rt.timers[0].at, true
	}
	for _, t := range rt.tasks {
		if t.state != waitingMessage {
			continue
		}
		if _, ready, wake := t.looper.q.Next(int64(rt.now)); !ready && wake >= 0 {
			if w := time.Duration(wake); !ok || w < at {
				at, ok = w, true
			}
		}
	}
	return at, ok
}

// protect runs fn, which is app code, and catches a crash: after an error
// op (or a panic of the app's Go code, which is also recorded as one), the
// task's locks and handler calls are unwound in the trace and the run ends.
// It reports whether fn crashed.
func (t *task) protect(fn func()) (crashedNow bool) {
	rt := t.rt
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if _, ok := r.(crashed); !ok {
			msg := fmt.Sprintf("panic: %v", r)
			op := rt.newOp(traces.Error, t)
			op.Name = rt.syms.Intern(msg)
			rt.emit(op)
			if rt.crash == "" {
				rt.crash = msg
			}
			rt.fail(fmt.Errorf("app code panicked in thread %s: %v\n%s", rt.syms.String(t.id), r, debug.Stack()))
		}
		for i := len(t.locks) - 1; i >= 0; i-- {
			m := t.locks[i]
			op := rt.newOp(traces.Unlock, t)
			op.Name = m.id
			rt.emit(op)
			m.holder, m.count = nil, 0
		}
		t.locks = nil
		for i := len(t.calls) - 1; i >= 0; i-- {
			op := rt.newOp(traces.Ret, t)
			op.Name = t.calls[i]
			rt.emit(op)
		}
		t.calls = t.calls[:0]
		rt.over = true
		crashedNow = true
	}()
	fn()
	return false
}

// callHandler records the invocation of app handler name around fn.
func (t *task) callHandler(name, src traces.Sym, fn func()) {
	rt := t.rt
	op := rt.newOp(traces.Call, t)
	op.Name, op.Src = name, src
	rt.emit(op)
	t.calls = append(t.calls, name)
	rt.step()
	fn()
	t.calls = t.calls[:len(t.calls)-1]
	op = rt.newOp(traces.Ret, t)
	op.Name = name
	rt.emit(op)
	rt.step()
}

// sleepUntil blocks t until virtual time at, or until something else wakes
// it (see wakeSleeper).
func (t *task) sleepUntil(at time.Duration) {
	rt := t.rt
	t.state = sleeping
	t.token++
	tok := t.token
	rt.addTimer(at, func() {
		if t.token == tok && t.state == sleeping {
			t.state = ready
		}
	})
	t.switchAway()
	t.state = ready
}

// wakeSleeper ends t's sleep early.
func (t *task) wakeSleeper() {
	if t.state == sleeping {
		t.token++
		t.state = ready
	}
}

// block parks t until another task sets it ready.
func (t *task) block() {
	t.state = blocked
	t.switchAway()
	t.state = ready
}

// killAll ends every goroutine of the run, one at a time, after the run
// is over.
func (rt *Runtime) killAll() {
	rt.killing = true
	for _, t := range rt.all {
		select {
		case <-t.exited:
		default:
			t.wake <- struct{}{}
			<-t.exited
		}
	}
}

// timer is an action of the world, or the end of a task's sleep, at a
// virtual time.
type timer struct {
	at  time.Duration
	seq int64
	fn  func()
}

type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// addTimer runs fn at virtual time at (in the order of addition among
// equal times). fn runs as the world: it must not record task operations.
func (rt *Runtime) addTimer(at time.Duration, fn func()) {
	rt.seq++
	heap.Push(&rt.timers, timer{at: at, seq: rt.seq, fn: fn})
}

// fireTimers runs the timers that are due.
func (rt *Runtime) fireTimers() {
	if len(rt.timers) == 0 || rt.timers[0].at > rt.now {
		return
	}
	cur := rt.cur
	rt.cur = nil
	for len(rt.timers) > 0 && rt.timers[0].at <= rt.now && !rt.over {
		tm := heap.Pop(&rt.timers).(timer)
		tm.fn()
	}
	rt.cur = cur
}
