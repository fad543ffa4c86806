package tracetest

import (
	"github.com/licorice-dev/licorice/traces"
)

// Measure counts the situations of a valid trace's operations (see
// [Situation]). It computes happens-before by the synchronous rules and
// ATOMIC with vector clocks over all tasks, so its time and memory grow
// with the number of events squared: use it on test-sized traces (up to
// some thousands of events). Operations that break the trace contract are
// skipped, not trusted.
func Measure(ops []traces.Op) Coverage {
	m := meter{
		tasks:   make(map[traces.Sym]int32),
		threads: make(map[traces.Sym]*threadInfo),
		queues:  make(map[traces.Sym]*queueInfo),
		events:  make(map[traces.Sym]*eventInfo),
		signals: make(map[traces.Sym]clock),
		forks:   make(map[traces.Sym]clock),
		ends:    make(map[traces.Sym]clock),
		locks:   make(map[traces.Sym]lockHeld),
		calls:   make(map[traces.Sym]int),
	}
	m.world = m.index(traces.NoSym)
	for i := range ops {
		m.observe(&ops[i])
	}
	m.finish()
	return m.cov
}

// clock is a vector clock indexed by task; missing entries are zero.
type clock []uint32

func (c clock) get(i int32) uint32 {
	if int(i) < len(c) {
		return c[i]
	}
	return 0
}

func (c *clock) join(o clock) {
	if len(o) > len(*c) {
		*c = append(*c, make(clock, len(o)-len(*c))...)
	}
	for i, x := range o {
		if x > (*c)[i] {
			(*c)[i] = x
		}
	}
}

func (c *clock) tick(i int32) uint32 {
	if int(i) >= len(*c) {
		*c = append(*c, make(clock, int(i)+1-len(*c))...)
	}
	(*c)[i]++
	return (*c)[i]
}

func (c clock) copy() clock { return append(clock(nil), c...) }

// epoch is an op: its task and its count in the task.
type epoch struct {
	task  int32
	count uint32
}

// before reports whether op e happens before the op whose clock is c.
func (e epoch) before(c clock) bool { return e.count > 0 && c.get(e.task) >= e.count }

type sendInfo struct {
	kind  traces.SendKind
	async bool
	time  int64
}

type eventInfo struct {
	sendInfo
	q        *queueInfo
	external bool
	sender   traces.Sym // the task of the send, or NoSym
	send     epoch
	line     int   // index of the send op
	sendAt   clock // the clock of the send, kept while needed
	task     int32
	end      uint32 // the count of end
	endAt    clock  // looper events: the clock of end
	thread   *threadInfo
	removed  bool
	resolved bool // began or was removed
	hasPred  bool // removed, with a PRIORITY predecessor
	counted  bool // counted as RemovedBetween
}

type queueInfo struct {
	looper  bool
	known   bool
	events  []*eventInfo // in send order
	threads map[*threadInfo]bool
}

type threadInfo struct {
	kind   traces.ThreadKind
	events []*eventInfo // run, in order
	queues map[*queueInfo]bool
	own    int   // own ops since the last event, beyond thread_begin and attach
	ends   clock // the join of the clocks at the ends of its events
}

type lockHeld struct {
	holder traces.Sym
	count  int
}

type meter struct {
	cov     Coverage
	tasks   map[traces.Sym]int32
	clocks  []clock // by task index
	world   int32   // the task of external sends without t
	ext     clock   // the clock of the last external send
	threads map[traces.Sym]*threadInfo
	queues  map[traces.Sym]*queueInfo
	events  map[traces.Sym]*eventInfo
	signals map[traces.Sym]clock
	forks   map[traces.Sym]clock // child: the clock of its fork
	ends    map[traces.Sym]clock // thread: the clock of its thread_end
	locks   map[traces.Sym]lockHeld
	calls   map[traces.Sym]int // open calls per task
	order   []*eventInfo       // every event, in send order
}

func (m *meter) index(y traces.Sym) int32 {
	if i, ok := m.tasks[y]; ok {
		return i
	}
	i := int32(len(m.clocks))
	m.tasks[y] = i
	m.clocks = append(m.clocks, nil)
	return i
}

func (m *meter) observe(op *traces.Op) {
	c := &m.cov
	if op.HasTS {
		c.n[TS]++
	}
	if op.Src != traces.NoSym {
		c.n[Src]++
	}
	if op.Kind == traces.Send && op.Task == traces.NoSym {
		m.externalSend(op)
		return
	}
	i := m.index(op.Task)
	clk := &m.clocks[i]
	th := m.threads[op.Task]
	switch op.Kind {
	case traces.ThreadBegin:
		th = &threadInfo{kind: op.ThreadKind, queues: make(map[*queueInfo]bool)}
		m.threads[op.Task] = th
		clk.join(m.forks[op.Task])
		delete(m.forks, op.Task)
	case traces.Begin:
		m.begin(op, i)
		return
	case traces.Wait:
		if s, ok := m.signals[op.Name]; ok {
			clk.join(s)
			c.n[SignalWait]++
			m.atomic(op.Task, clk, AtomicMidEvent)
		} else {
			c.n[WaitUnsignaled]++
		}
	case traces.Join:
		if e, ok := m.ends[op.Thread]; ok {
			clk.join(e)
			c.n[Join]++
			m.atomic(op.Task, clk, AtomicMidEvent)
		}
	case traces.ThreadEnd:
		if th != nil {
			clk.join(th.ends)
			c.n[LoopEnd] += len(th.events)
		}
	case traces.Send:
		if op.External {
			clk.join(m.ext)
			m.atomic(op.Task, clk, AtomicMidEvent)
		}
	}
	count := clk.tick(i)
	if th != nil && op.Kind != traces.ThreadBegin && op.Kind != traces.Attach {
		th.own++
	}
	switch op.Kind {
	case traces.ThreadEnd:
		m.ends[op.Task] = clk.copy()
	case traces.Fork:
		m.forks[op.Thread] = clk.copy()
		if m.events[op.Task] != nil {
			c.n[ForkFromEvent]++
		} else {
			c.n[ForkFromThread]++
		}
	case traces.Attach:
		if th != nil {
			if q := m.queue(op.Queue); !q.known {
				q.known, q.looper = true, th.kind == traces.Looper
			}
		}
	case traces.Signal:
		s := m.signals[op.Name]
		s.join(*clk)
		m.signals[op.Name] = s
	case traces.Send:
		m.send(op, epoch{i, count}, *clk)
	case traces.Remove:
		if e := m.events[op.Event]; e != nil && !e.resolved {
			e.removed = true
			m.resolve(e, nil)
		}
	case traces.End:
		m.end(op.Task, i, count)
	default:
		m.form(op)
	}
}

func (m *meter) queue(y traces.Sym) *queueInfo {
	q := m.queues[y]
	if q == nil {
		q = &queueInfo{threads: make(map[*threadInfo]bool)}
		m.queues[y] = q
	}
	return q
}

// externalSend observes a send from outside the program: a task of its
// own, ordered after every earlier external send.
func (m *meter) externalSend(op *traces.Op) {
	clk := &m.clocks[m.world]
	clk.join(m.ext)
	count := clk.tick(m.world)
	m.send(op, epoch{m.world, count}, *clk)
}

func (m *meter) send(op *traces.Op, at epoch, clk clock) {
	c := &m.cov
	if op.External {
		if m.ext != nil {
			c.n[ExternalOrdered]++
		}
		m.ext = clk.copy()
		if op.Task == traces.NoSym {
			c.n[ExternalWithoutTask]++
		} else {
			c.n[ExternalWithTask]++
		}
	}
	if m.events[op.Event] != nil {
		return // sent twice: invalid
	}
	q := m.queue(op.Queue)
	e := &eventInfo{
		sendInfo: sendInfo{kind: op.SendKind, async: op.Async, time: op.Time},
		q:        q, external: op.External, sender: op.Task, send: at,
		line: len(m.order), sendAt: clk.copy(), task: -1,
	}
	m.events[op.Event] = e
	q.events = append(q.events, e)
	m.order = append(m.order, e)
}

func (m *meter) begin(op *traces.Op, i int32) {
	c := &m.cov
	e := m.events[op.Task]
	th := m.threads[op.Thread]
	if e == nil || e.resolved || th == nil {
		return
	}
	clk := &m.clocks[i]
	clk.join(e.sendAt)
	clk.join(m.clocks[m.index(op.Thread)]) // LOOPBEGIN
	e.task, e.thread = i, th
	m.atomic(op.Task, clk, AtomicAtBegin)
	clk.tick(i)
	if th.own > 0 {
		if len(th.events) == 0 {
			c.n[LoopBeginSetup]++
		} else {
			c.n[LoopBeginIdle]++
		}
	}
	th.own = 0
	if e.q.looper {
		m.atFront(e, *clk)
	} else {
		m.binder(e, th)
	}
	m.resolve(e, th)
	th.events = append(th.events, e)
	th.queues[e.q] = true
	e.q.threads[th] = true
}

// resolve counts the PRIORITY situations of e, which began on th or was
// removed (th nil), with every event of its queue sent before it.
func (m *meter) resolve(e *eventInfo, th *threadInfo) {
	e.resolved = true
	if !e.q.looper {
		return
	}
	c := &m.cov
	for _, p := range e.q.events {
		if p == e {
			break
		}
		if !p.send.before(e.sendAt) {
			continue
		}
		holds := priority(&p.sendInfo, &e.sendInfo)
		c.n[PrioritySituation(p.kind, p.async, e.kind, e.async, holds)]++
		if !holds {
			continue
		}
		if e.removed {
			e.hasPred = true
		}
		if p.removed && p.hasPred && !p.counted {
			p.counted = true
			c.n[RemovedBetween]++
		}
	}
	if e.kind != traces.AtFront {
		e.sendAt = nil // only ATFRONT looks at it later
	}
}

// atFront counts the ATFRONT situations of e, which begins with clock
// begin: events sent at front after e was sent, whose send happens after
// e's and before e's begin.
func (m *meter) atFront(e *eventInfo, begin clock) {
	for _, f := range e.q.events[e.indexIn():] {
		if f.kind == traces.AtFront && f != e && f.sendAt != nil &&
			e.send.before(f.sendAt) && f.send.before(begin) {
			m.cov.n[AtFront]++
		}
	}
}

// indexIn returns the index of e in its queue's events.
func (e *eventInfo) indexIn() int {
	for i, x := range e.q.events {
		if x == e {
			return i
		}
	}
	return len(e.q.events)
}

// binder counts the IPCHANDLE and IPCASYNC situations of e, which begins
// on binder thread th, with the events th ran before.
func (m *meter) binder(e *eventInfo, th *threadInfo) {
	c := &m.cov
	for _, p := range th.events {
		if p.q != e.q || p.line > e.line {
			continue
		}
		if p.external == e.external && (!p.async || e.async) {
			c.n[IPCHandle]++
		} else {
			c.n[IPCHandleNot]++
		}
		if p.async && e.async && p.sender == e.sender && p.sender != traces.NoSym && p.send.before(e.sendAt) {
			c.n[IPCAsync]++
		}
	}
}

// atomic applies ATOMIC to an op of event y whose clock is clk: every
// event of y's looper whose begin happens before the op has its end happen
// before the op too. Each edge this adds (the op knew the begin, not the
// end) counts as situation s.
func (m *meter) atomic(y traces.Sym, clk *clock, s Situation) {
	e := m.events[y]
	if e == nil || e.thread == nil || e.thread.kind != traces.Looper {
		return
	}
	for changed := true; changed; {
		changed = false
		for _, p := range e.thread.events {
			if p == e || p.endAt == nil {
				continue
			}
			if n := clk.get(p.task); n >= 1 && n < p.end {
				clk.join(p.endAt)
				m.cov.n[s]++
				changed = true
			}
		}
	}
}

// end records the end of event y, with count count in its task i.
func (m *meter) end(y traces.Sym, i int32, count uint32) {
	e := m.events[y]
	if e == nil || e.thread == nil {
		return
	}
	e.end = count
	clk := m.clocks[i]
	e.thread.ends.join(clk)
	if e.thread.kind == traces.Looper {
		e.endAt = clk.copy()
	}
	m.clocks[i] = nil // the event runs no more ops
}

// form counts the forms of ops that order nothing.
func (m *meter) form(op *traces.Op) {
	c := &m.cov
	switch op.Kind {
	case traces.Read:
		c.n[ReadValue+Situation(op.Val.Kind())]++
		if op.Deref {
			c.n[Deref]++
		}
	case traces.Write:
		c.n[WriteValue+Situation(op.Val.Kind())]++
	case traces.Relate:
		if op.Via == traces.ViaArith {
			c.n[RelateArith]++
		} else {
			c.n[RelateCmp]++
		}
	case traces.Branch:
		if op.Cond >= traces.CondNull && op.Cond <= traces.CondEq {
			s := Branch + 2*Situation(op.Cond-1)
			if op.Taken {
				s++
			}
			c.n[s]++
		}
	case traces.Call:
		if m.calls[op.Task] > 0 {
			c.n[NestedCall]++
		}
		m.calls[op.Task]++
	case traces.Ret:
		if m.calls[op.Task] > 0 {
			m.calls[op.Task]--
		}
	case traces.Lock:
		l := m.locks[op.Name]
		switch {
		case l.count > 0 && l.holder == op.Task:
			c.n[ReentrantLock]++
		case m.holds(op.Task):
			c.n[NestedLock]++
		}
		if l.count == 0 {
			l.holder = op.Task
		}
		l.count++
		m.locks[op.Name] = l
	case traces.Unlock:
		if l := m.locks[op.Name]; l.count > 1 {
			l.count--
			m.locks[op.Name] = l
		} else {
			delete(m.locks, op.Name)
		}
	case traces.Alloc:
		c.n[Alloc]++
	case traces.Error:
		c.n[ErrorOp]++
	}
}

// holds reports whether task y holds a lock.
func (m *meter) holds(y traces.Sym) bool {
	for _, l := range m.locks {
		if l.holder == y {
			return true
		}
	}
	return false
}

// finish counts what is known at the end of the trace.
func (m *meter) finish() {
	c := &m.cov
	for _, e := range m.order {
		if !e.resolved {
			c.n[Pending]++
		}
	}
	for _, th := range m.threads {
		if th.kind == traces.Looper && len(th.queues) > 1 {
			c.n[LooperQueues]++
		}
	}
	for _, q := range m.queues {
		if !q.looper && len(q.threads) > 1 {
			c.n[BinderThreads]++
		}
	}
}
