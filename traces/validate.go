package traces

import "fmt"

// Validator checks the rules of the trace contract that relate operations
// to each other: who may run an op, the life cycles of threads and events,
// queues and the threads that serve them, balanced calls and locks, unique
// allocations. (Syntax and field types are checked by the decoders.)
//
// Feed it every op in trace order. After an error it updates its state as if
// the op had been valid where that makes sense, so one mistake does not
// cascade into many reports.
//
// The rules, with the message each breach gives:
//
//   - an op's task must be running: a thread between thread_begin and
//     thread_end that is not running an event, or an event between begin
//     and end ("event E5 is not running", "thread T1 has ended", "thread L
//     is running event E2: the op belongs to the event");
//   - thread_begin: the id is new ("thread T1 began twice"), not an event;
//   - thread_end: no open call ("ends with an open call to h"), no lock held;
//   - fork: the child has not begun and was not forked before;
//   - join: the child is a thread that has ended;
//   - attach: by a looper or binder thread, not a worker; a looper's queue
//     is served by it alone, a binder queue only by binder threads;
//   - send: the queue is served by some thread; the event id is new;
//   - remove: the event was sent and is still pending;
//   - begin: the event was sent and is pending (not begun, not removed); the
//     thread is running, serves the event's queue, and runs no other event;
//   - end: no open call, no lock held;
//   - lock/unlock: a lock is held by one task at a time (re-entrantly);
//     unlock only what the task holds;
//   - call/ret: ret closes the innermost open call, of the same handler;
//   - alloc: an object is allocated once.
type Validator struct {
	syms *Symbols
	// tasks holds every task seen: a live one (forked or running thread,
	// pending or running event) as liveMark | its index in live, a
	// finished one as presentMark | line<<3 | state, so that long traces
	// stay cheap. One table read, without hashing, finds either.
	tasks   symValues
	live    []*taskInfo // live records, by index (a retired one keeps its index, for reuse)
	queues  map[Sym]*queueInfo
	locks   map[Sym]*lockInfo
	objects symValues // presentMark | the line of the alloc

	// last is the live record of task lastID, the task of a recent op that
	// was running, or nil: most ops belong to the task of the op before, so
	// this spares a table lookup per op. last is always the live record
	// of lastID: a record stops being live only when it is retired,
	// which clears last.
	lastID Sym
	last   *taskInfo

	free []*taskInfo // retired records, for new tasks to reuse
}

type taskState uint8

const (
	threadForked taskState = iota + 1 // forked, not begun
	threadRunning
	threadEnded
	eventPending // sent, not begun
	eventRunning
	eventEnded
	eventRemoved
)

type taskInfo struct {
	state  taskState
	kind   ThreadKind // threads
	queue  Sym        // events: the queue sent to
	thread Sym        // events: the thread running it; threads: the event it runs
	line   int        // line of the last change of state
	index  int        // in Validator.live
	calls  []Sym      // open handler calls, innermost last
	locks  []Sym      // locks held (once per acquisition)
}

func (t *taskInfo) isEvent() bool { return t.state >= eventPending }

// running reports whether the task may run an op now.
func (t *taskInfo) running() bool {
	return t.state == eventRunning || t.state == threadRunning && t.thread == NoSym
}

// lookup returns what is known of task id: its live record, a copy made
// from its compact record if it has finished, or nil if it is unknown.
func (v *Validator) lookup(id Sym) *taskInfo {
	p := v.tasks.get(id)
	switch {
	case p == 0:
		return nil
	case p&presentMark == 0:
		return v.live[p&^liveMark]
	}
	return &taskInfo{state: taskState(p & 7), line: int(p &^ presentMark >> 3)}
}

// liveTask returns the live record of task id, or nil if it has none
// (it is unknown or finished).
func (v *Validator) liveTask(id Sym) *taskInfo {
	if p := v.tasks.get(id); p != 0 && p&presentMark == 0 {
		return v.live[p&^liveMark]
	}
	return nil
}

// presentMark marks a value of a symValues as present, whatever the line
// (a task that finished at line 0 in state 0, an object allocated at
// line 0, as a Validator used without lines says).
const presentMark = 1 << 63

// liveMark marks a value of Validator.tasks as the index of a live
// record (presentMark is then clear).
const liveMark = 1 << 62

// retire moves a task that has finished (an ended thread, an ended or
// removed event) to the compact record.
func (v *Validator) retire(id Sym, t *taskInfo) {
	v.tasks.set(id, presentMark|uint64(t.line)<<3|uint64(t.state))
	if v.last == t {
		v.last = nil
	}
	v.free = append(v.free, t)
}

// newTask adds the live record of task id, reusing a retired one and the
// room of its lists, so that a trace's many events cost no allocation
// each.
func (v *Validator) newTask(id Sym, t taskInfo) *taskInfo {
	var p *taskInfo
	if n := len(v.free); n > 0 {
		p = v.free[n-1]
		v.free = v.free[:n-1]
		t.calls, t.locks, t.index = p.calls[:0], p.locks[:0], p.index
	} else {
		p = new(taskInfo)
		t.index = len(v.live)
		v.live = append(v.live, p)
	}
	*p = t
	v.tasks.set(id, liveMark|uint64(t.index))
	return p
}

type queueInfo struct {
	looper  Sym   // the looper serving it, if any
	threads []Sym // all threads serving it
}

type lockInfo struct {
	holder Sym
	count  int
}

// NewValidator returns a validator for ops whose Syms come from syms.
func NewValidator(syms *Symbols) *Validator {
	return &Validator{
		syms:    syms,
		tasks:   symValues{},
		queues:  make(map[Sym]*queueInfo),
		locks:   make(map[Sym]*lockInfo),
		objects: symValues{},
	}
}

// Check validates op, which is at the given line. It returns a *LineError
// (not fatal) if op breaks a rule.
func (v *Validator) Check(op *Op, line int) error {
	if v.shortcut(op) {
		return nil
	}
	c := check{v: v, op: op, line: line}
	c.run()
	if c.err != nil {
		return c.err
	}
	return nil
}

// shortcut reports whether op is good for a reason Check can see at once,
// the common case: an op whose only rule is that its task is running, by
// the running task of a recent op.
func (v *Validator) shortcut(op *Op) bool {
	t := v.last
	return t != nil && op.Task == v.lastID && op.Kind < numKinds && runningOnly[op.Kind] && t.running()
}

// runningOnly marks the kinds whose only rule is that their task is
// running.
var runningOnly = [numKinds]bool{Signal: true, Wait: true, Read: true, Write: true, Relate: true, Branch: true, Error: true}

// check is the validation of one op; it keeps the first error.
type check struct {
	v    *Validator
	op   *Op
	line int
	err  *LineError
}

func (c *check) fail(format string, args ...any) {
	if c.err != nil {
		return
	}
	c.err = &LineError{Line: c.line, Op: c.op.Kind, Msg: Elide(fmt.Sprintf(format, args...), maxMsgBytes)}
	if c.op.Task != NoSym {
		c.err.Task = Elide(c.v.syms.String(c.op.Task), maxNameBytes)
	}
}

func (c *check) name(y Sym) string { return Elide(c.v.syms.String(y), maxNameBytes) }

// at says where an earlier change of state happened.
func at(line int) string {
	if line <= 0 {
		return ""
	}
	return fmt.Sprintf(" at line %d", line)
}

// runningTask checks that the op's task may run an op now and returns it.
func (c *check) runningTask() *taskInfo {
	id := c.op.Task
	if t := c.v.last; t != nil && id == c.v.lastID && t.running() {
		return t
	}
	t := c.v.lookup(id)
	switch {
	case t == nil:
		c.fail("task %s has not begun: no thread_begin or begin of it came before", c.name(id))
	case t.state == threadForked:
		c.fail("thread %s has not begun (it was forked%s)", c.name(id), at(t.line))
	case t.state == threadRunning && t.thread != NoSym:
		c.fail("thread %s is running event %s: the op belongs to the event", c.name(id), c.name(t.thread))
	case t.state == threadEnded:
		c.fail("thread %s has ended%s", c.name(id), at(t.line))
	case t.state == eventPending:
		c.fail("event %s is not running: it was sent%s and has not begun", c.name(id), at(t.line))
	case t.state == eventEnded:
		c.fail("event %s is not running: it ended%s", c.name(id), at(t.line))
	case t.state == eventRemoved:
		c.fail("event %s is not running: it was removed%s", c.name(id), at(t.line))
	default:
		c.v.lastID, c.v.last = id, t // a running task's record is live
		return t
	}
	return nil
}

func (c *check) run() {
	op := c.op
	switch op.Kind {
	case ThreadBegin:
		c.threadBegin()
		return
	case Begin: // the event is not running yet
		c.begin()
		return
	case Send:
		if op.Task == NoSym { // an external event from outside the program
			c.send()
			return
		}
	}
	t := c.runningTask()
	if t == nil {
		return
	}
	switch op.Kind {
	case ThreadEnd:
		c.threadEnd(t)
	case Fork:
		c.fork()
	case Join:
		c.join()
	case Attach:
		c.attach(t)
	case Send:
		c.send()
	case Remove:
		c.remove()
	case End:
		c.end(t)
	case Lock:
		c.lock(t)
	case Unlock:
		c.unlock(t)
	case Call:
		t.calls = append(t.calls, op.Name)
	case Ret:
		c.ret(t)
	case Alloc:
		if first := c.v.objects.get(op.Loc.Obj); first != 0 {
			c.fail("object %s was allocated twice (first at line %d)", c.name(op.Loc.Obj), first&^presentMark)
			return
		}
		c.v.objects.set(op.Loc.Obj, presentMark|uint64(c.line))
	}
}

func (c *check) threadBegin() {
	id := c.op.Task
	t := c.v.lookup(id)
	switch {
	case t == nil:
		c.v.newTask(id, taskInfo{state: threadRunning, kind: c.op.ThreadKind, line: c.line})
	case t.state == threadForked:
		t.state, t.kind, t.line = threadRunning, c.op.ThreadKind, c.line
	case t.isEvent():
		c.fail("%s is an event (sent%s), not a thread", c.name(id), at(t.line))
	default:
		c.fail("thread %s began twice (first%s)", c.name(id), at(t.line))
	}
}

// closeTask checks what a task must have released when it ends.
func (c *check) closeTask(t *taskInfo, what string) {
	if n := len(t.calls); n > 0 {
		c.fail("%s %s ends with an open call to %s", what, c.name(c.op.Task), c.name(t.calls[n-1]))
	}
	if n := len(t.locks); n > 0 {
		c.fail("%s %s ends holding lock %s", what, c.name(c.op.Task), c.name(t.locks[n-1]))
		for _, l := range t.locks {
			delete(c.v.locks, l)
		}
	}
	t.calls, t.locks = t.calls[:0], t.locks[:0]
}

func (c *check) threadEnd(t *taskInfo) {
	if t.isEvent() {
		c.fail("%s is an event: it ends with \"end\", not \"thread_end\"", c.name(c.op.Task))
		return
	}
	c.closeTask(t, "thread")
	t.state, t.line = threadEnded, c.line
	c.v.retire(c.op.Task, t)
}

func (c *check) fork() {
	id := c.op.Thread
	t := c.v.lookup(id)
	switch {
	case t == nil:
		c.v.newTask(id, taskInfo{state: threadForked, line: c.line})
	case t.isEvent():
		c.fail("fork of %s, which is an event", c.name(id))
	case t.state == threadForked:
		c.fail("thread %s was forked twice (first%s)", c.name(id), at(t.line))
	default:
		c.fail("fork of thread %s after it began%s", c.name(id), at(t.line))
	}
}

func (c *check) join() {
	id := c.op.Thread
	t := c.v.lookup(id)
	switch {
	case t == nil:
		c.fail("join of thread %s, which never began", c.name(id))
	case t.isEvent():
		c.fail("join of %s, which is an event", c.name(id))
	case t.state != threadEnded:
		c.fail("join of thread %s before it ended", c.name(id))
	}
}

func (c *check) attach(t *taskInfo) {
	op := c.op
	if t.isEvent() {
		c.fail("event %s cannot attach a queue: only looper and binder threads serve queues", c.name(op.Task))
		return
	}
	if t.kind == Worker {
		c.fail("worker thread %s cannot attach a queue: only looper and binder threads serve queues", c.name(op.Task))
		return
	}
	q := c.v.queues[op.Queue]
	if q == nil {
		q = &queueInfo{}
		c.v.queues[op.Queue] = q
	}
	for _, th := range q.threads {
		if th == op.Task {
			c.fail("thread %s already serves queue %s", c.name(op.Task), c.name(op.Queue))
			return
		}
	}
	switch {
	case q.looper != NoSym:
		c.fail("queue %s is served by looper thread %s alone", c.name(op.Queue), c.name(q.looper))
		return
	case t.kind == Looper && len(q.threads) > 0:
		c.fail("queue %s is served by binder threads; looper thread %s cannot serve it too", c.name(op.Queue), c.name(op.Task))
		return
	}
	if t.kind == Looper {
		q.looper = op.Task
	}
	q.threads = append(q.threads, op.Task)
}

func (c *check) send() {
	op := c.op
	if c.v.queues[op.Queue] == nil {
		c.fail("send to queue %s, which no thread serves (no attach of it came before)", c.name(op.Queue))
	}
	if t := c.v.lookup(op.Event); t != nil {
		if t.isEvent() {
			c.fail("event %s was sent twice (first at line %d)", c.name(op.Event), t.line)
		} else {
			c.fail("send of %s, which is a thread", c.name(op.Event))
		}
		return
	}
	c.v.newTask(op.Event, taskInfo{state: eventPending, queue: op.Queue, line: c.line})
}

// pendingEvent checks that id names an event that is pending.
func (c *check) pendingEvent(id Sym, what string) *taskInfo {
	t := c.v.lookup(id)
	switch {
	case t == nil:
		c.fail("%s of event %s, which never was sent", what, c.name(id))
	case !t.isEvent():
		c.fail("%s of %s, which is a thread, not an event", what, c.name(id))
	case t.state == eventRunning || t.state == eventEnded:
		if what == "begin" {
			c.fail("event %s began twice (first%s)", c.name(id), at(t.line))
		} else {
			c.fail("%s of event %s, which is not pending: it began%s", what, c.name(id), at(t.line))
		}
	case t.state == eventRemoved:
		c.fail("%s of event %s, which was removed%s", what, c.name(id), at(t.line))
	default:
		return t
	}
	return nil
}

func (c *check) remove() {
	if e := c.pendingEvent(c.op.Event, "remove"); e != nil {
		e.state, e.line = eventRemoved, c.line
		c.v.retire(c.op.Event, e)
	}
}

func (c *check) begin() {
	op := c.op
	e := c.pendingEvent(op.Task, "begin")
	th := c.v.lookup(op.Thread)
	usable := false
	switch {
	case th == nil:
		c.fail("thread %s has not begun", c.name(op.Thread))
	case th.isEvent():
		c.fail("%s is an event, not a thread: events run on looper or binder threads", c.name(op.Thread))
	case th.state == threadForked:
		c.fail("thread %s has not begun (it was forked%s)", c.name(op.Thread), at(th.line))
	case th.state == threadEnded:
		c.fail("thread %s has ended%s", c.name(op.Thread), at(th.line))
	case th.thread != NoSym:
		c.fail("thread %s is still running event %s", c.name(op.Thread), c.name(th.thread))
	default:
		usable = true
	}
	if e != nil && usable && !c.v.serves(op.Thread, e.queue) {
		c.fail("thread %s does not serve queue %s of event %s", c.name(op.Thread), c.name(e.queue), c.name(op.Task))
	}
	// Recover: treat the event as running, so its ops are not errors too.
	if e == nil {
		if t := c.v.liveTask(op.Task); t == nil {
			e = c.v.newTask(op.Task, taskInfo{})
		} else if t.isEvent() && t.state != eventRunning {
			e = t
		}
	}
	if e != nil {
		e.state, e.thread, e.line = eventRunning, op.Thread, c.line
	}
	if usable {
		th.thread = op.Task
	}
}

// serves reports whether thread th serves queue q.
func (v *Validator) serves(th, q Sym) bool {
	if qi := v.queues[q]; qi != nil {
		for _, t := range qi.threads {
			if t == th {
				return true
			}
		}
	}
	return false
}

func (c *check) end(t *taskInfo) {
	if !t.isEvent() {
		c.fail("%s is a thread: it ends with \"thread_end\", not \"end\"", c.name(c.op.Task))
		return
	}
	c.closeTask(t, "event")
	if th := c.v.liveTask(t.thread); th != nil && th.thread == c.op.Task {
		th.thread = NoSym
	}
	t.state, t.line = eventEnded, c.line
	c.v.retire(c.op.Task, t)
}

func (c *check) lock(t *taskInfo) {
	l := c.op.Name
	li := c.v.locks[l]
	if li == nil {
		c.v.locks[l] = &lockInfo{holder: c.op.Task, count: 1}
	} else if li.holder != c.op.Task {
		c.fail("lock %s is held by task %s", c.name(l), c.name(li.holder))
		return
	} else {
		li.count++
	}
	t.locks = append(t.locks, l)
}

func (c *check) unlock(t *taskInfo) {
	l := c.op.Name
	li := c.v.locks[l]
	if li == nil || li.holder != c.op.Task {
		c.fail("unlock of lock %s, which task %s does not hold", c.name(l), c.name(c.op.Task))
		return
	}
	if li.count--; li.count == 0 {
		delete(c.v.locks, l)
	}
	for i := len(t.locks) - 1; i >= 0; i-- {
		if t.locks[i] == l {
			t.locks = append(t.locks[:i], t.locks[i+1:]...)
			break
		}
	}
}

func (c *check) ret(t *taskInfo) {
	n := len(t.calls)
	switch {
	case n == 0:
		c.fail("ret from %s without its call", c.name(c.op.Name))
	case t.calls[n-1] != c.op.Name:
		c.fail("ret from %s, but the open call is to %s", c.name(c.op.Name), c.name(t.calls[n-1]))
		t.calls = t.calls[:n-1]
	default:
		t.calls = t.calls[:n-1]
	}
}
