package asyncclock

import (
	"slices"

	"github.com/licorice-dev/licorice/traces"
)

// externalTask returns the task that makes the sends coming from outside
// the program (external sends without "t"). Its chain orders them.
func (e *Engine) externalTask() *task {
	if e.extTask == nil {
		c := e.newChain(nil, true, 0)
		e.chains[c].last = 1
		e.extTask = &task{st: state{t: Time{top: MakeEpoch(c, 1)}}}
	}
	if e.extTask.published {
		e.tick(e.extTask)
	}
	return e.extTask
}

func (e *Engine) send(op *traces.Op) error {
	q := e.queues[op.Queue]
	if q == nil {
		return e.invalid(op, "send to queue %s, which no thread serves", e.name(op.Queue))
	}
	if _, dup := e.events[op.Event]; dup {
		return e.invalid(op, "event %s was sent twice", e.name(op.Event))
	}
	var t *task
	if op.Task == traces.NoSym {
		if !op.External {
			return e.invalid(op, "a send without a task must be external")
		}
		t = e.externalTask()
	} else {
		var err error
		if t, err = e.run(op); err != nil {
			return err
		}
	}
	if op.External { // EXTERNAL: every earlier external send happens before this one
		t.st.join(&e.ext)
		if err := e.atomicAt(t); err != nil {
			return err
		}
	}
	snap := t.st
	ev := &event{
		id:        op.Event,
		q:         q,
		cat:       catOf(op.SendKind, op.Async),
		external:  op.External,
		sender:    op.Task,
		status:    evPending,
		sendSeq:   e.seq,
		sendLine:  e.line,
		sendEpoch: snap.t.top,
		sendTime:  snap.t,
		snap:      snap,
	}
	if op.SendKind != traces.AtFront {
		ev.time = op.Time
	}
	e.events[ev.id] = ev
	e.stats.Events++
	e.stats.MaxTracked = max(e.stats.MaxTracked, len(e.events))
	if q.binder {
		p := ev.proc()
		q.bpend[p] = append(q.bpend[p], ev)
	} else {
		k := acKey(q.idx, snap.t.top.Chain())
		l := e.lists[k]
		if l == nil {
			l = &sendList{}
			e.lists[k] = l
		}
		l.trim(e)
		l.add(ev, snap.t.top.Clock())
		ev.refs++
		e.stats.ListEntries++
		if !ev.cat.timed() {
			e.pruneAtFront(q)
			q.af = append(q.af, ev)
			ev.refs++
		}
		e.prunePending(q)
		q.pending = append(q.pending, ev)
		// E's start must know its own send: the sender's chain is in the
		// AsyncClock of E's snapshot too.
		ev.snap.ac = ev.snap.ac.union(acSet{acKey(q.idx, snap.t.top.Chain())})
		t.st.ac = e.reduce(&t.st, q, ev)
	}
	if op.External {
		e.ext = t.st // with ev in its AsyncClock
	}
	e.at(t)
	t.published = true
	return nil
}

func (e *Engine) remove(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	ev := e.events[op.Event]
	if ev == nil || ev.status != evPending {
		return e.invalid(op, "remove of event %s, which is not pending", e.name(op.Event))
	}
	ev.status = evRemoved
	if ev.q.binder {
		// A removed binder event has no rule but SEND: its time is known now.
		e.unpendBinder(ev)
		w := walk{e: e, mode: final}
		if err := e.resolve(ev, &w); err != nil {
			return err
		}
		ev.refs++
		e.release(ev)
	}
	e.at(t)
	return nil
}

func (e *Engine) beginOp(op *traces.Op) error {
	ev := e.events[op.Task]
	if ev == nil || ev.status != evPending {
		return e.invalid(op, "begin of event %s, which is not pending", e.name(op.Task))
	}
	th := e.threads[op.Thread]
	if th == nil || th.ended || th.running != nil || th.kind == traces.Worker {
		return e.invalid(op, "thread %s cannot run event %s now", e.name(op.Thread), e.name(op.Task))
	}
	ev.th, ev.beginLine = th, e.line
	st := ev.snap
	st.join(&th.own.st) // LOOPBEGIN: the thread's own ops so far
	th.own.published = true
	w := walk{e: e, target: ev, mode: strict, preds: e.scratch[:0]}
	if ev.q.binder {
		e.unpendBinder(ev)
		if err := w.ipc(th, &st); err != nil {
			return err
		}
	} else {
		if e.window > 0 {
			e.fold(th)
			st.join(&th.tc) // WINDOW: every old event of the thread
		}
		if err := w.priority(&ev.snap, &st); err != nil {
			return err
		}
		if err := w.fixpoint(th, &st); err != nil {
			return err
		}
	}
	c := e.place(ev, &st, th, w.preds)
	e.scratch = w.preds[:0]
	ch := &e.chains[c]
	k := ch.last + 1
	ch.last, ch.tail, ch.busy = k, ev, true
	st.t = st.t.with(MakeEpoch(c, k))
	st.ac = e.cleanAC(st.ac, st.t, true)
	ev.chain, ev.beginClock = c, k
	ev.begin = st.t
	ev.status = evRunning
	th.running, th.lastChain = ev, c
	t := &task{id: ev.id, st: st, th: th, ev: ev}
	e.tasks[ev.id] = t
	e.at(t)
	e.stats.MaxTimeLen = max(e.stats.MaxTimeLen, st.t.Len())
	if e.begins++; e.begins >= e.gcAt {
		e.collect()
	}
	return nil
}

func (e *Engine) endOp(op *traces.Op) error {
	t, err := e.run(op)
	if err != nil {
		return err
	}
	ev := t.ev
	if ev == nil {
		return e.invalid(op, "%s is a thread, not an event", e.name(op.Task))
	}
	th := t.th
	ev.end = t.st
	ev.snap = state{} // kept while it ran, in case the trace ends first (walk.through)
	ev.endClock = t.st.t.top.Clock()
	ev.endTS = e.ts
	ev.endLine = e.line
	ev.status = evEnded
	e.chains[ev.chain].busy = false
	e.at(t)
	e.forget(ev.id)
	th.running = nil
	if th.kind == traces.Looper {
		ch := &e.chains[ev.chain]
		ch.intervals = append(ch.intervals, interval{begin: ev.beginClock, end: ev.endClock, ev: ev})
		ev.refs++
	}
	th.recent = append(th.recent, ev)
	ev.refs++
	if e.window == 0 || th.kind != traces.Looper {
		if len(th.recent) >= 64 { // LOOPEND needs only their join
			for _, p := range th.recent {
				th.endJoin.join(&p.end)
				e.release(p)
			}
			clear(th.recent)
			th.recent = th.recent[:0]
		}
	} else if n := len(th.recent) - th.folded; n >= 64 {
		for _, p := range th.recent[th.folded:] {
			th.endJoin.join(&p.end)
		}
		th.folded = len(th.recent)
	}
	if ev.q.binder {
		e.endBinder(th, ev)
	}
	return nil
}

// fold applies the time window at a begin on looper th: the events that
// ended more than the window ago join its time-window clock, which every
// later event of th inherits, and are no longer needed one by one.
func (e *Engine) fold(th *thread) {
	n := 0
	for n < len(th.recent) && e.ts-th.recent[n].endTS > e.window {
		n++
	}
	if n == 0 {
		return
	}
	for _, p := range th.recent[:n] {
		th.tc.join(&p.end)
		p.absorbed = true
		e.stats.WindowFolded++
		e.dropInterval(p)
		if ch := &e.chains[p.chain]; ch.tail == p && !ch.fifo {
			th.free = append(th.free, p.chain)
		}
		e.release(p)
	}
	clear(th.recent[:n])
	th.recent = th.recent[n:]
	th.folded = max(0, th.folded-n)
	if cap(th.recent) > 64 && len(th.recent) < cap(th.recent)/4 {
		th.recent = slices.Clone(th.recent)
	}
	th.tc.ac = e.cleanAC(th.tc.ac, th.tc.t, false)
}

// dropInterval removes ev's ATOMIC interval from its chain.
func (e *Engine) dropInterval(ev *event) {
	ch := &e.chains[ev.chain]
	for i, iv := range ch.intervals {
		if iv.ev == ev {
			ch.intervals = append(ch.intervals[:i], ch.intervals[i+1:]...)
			e.release(ev)
			return
		}
	}
}

// release drops one of the engine's references to ev; with the last one,
// ev's metadata is reclaimed.
func (e *Engine) release(ev *event) {
	ev.refs--
	if ev.refs > 0 || !ev.finished() {
		return
	}
	e.stats.Reclaimed++
	ev.end.ac = nil
	ev.afJoin = nil
	ev.sendTime = Time{}
	if e.cfg.KeepEvents {
		return
	}
	ev.end = state{}
	if e.events[ev.id] == ev {
		delete(e.events, ev.id)
	}
}

// prunePending drops finished events from the front of q's pending list.
func (e *Engine) prunePending(q *queue) {
	n := 0
	for n < len(q.pending) {
		s := q.pending[n].status
		if s == evPending || s == evRemoved || s == evResolving {
			break
		}
		n++
	}
	if n > 0 {
		clear(q.pending[:n])
		q.pending = q.pending[n:]
	}
}

// pruneAtFront drops from q's at-front list the events that no pending
// event can have as an ATFRONT predecessor: those sent before every
// pending event of q.
func (e *Engine) pruneAtFront(q *queue) {
	e.prunePending(q)
	min := int64(1<<63 - 1)
	if len(q.pending) > 0 {
		min = q.pending[0].sendSeq
	}
	n := 0
	for n < len(q.af) && q.af[n].sendSeq < min {
		n++
	}
	for _, f := range q.af[:n] {
		e.release(f)
	}
	clear(q.af[:n])
	q.af = q.af[n:]
}

// reduce is the reduced-AsyncClock update at a send of ev to q (thesis
// §4.1.3, generalized to Table 3.1): the sender no longer needs to look at
// a chain j whose sends to q it knows are all either known to have
// finished, or of ev's very category and time — those happen before ev,
// and a later event ev does not precede, they do not precede either. The
// sender's own chain is always kept: ev is on it.
func (e *Engine) reduce(st *state, q *queue, ev *event) acSet {
	own := acKey(q.idx, st.t.top.Chain())
	lo, hi := st.ac.rangeOf(q.idx)
	if hi-lo == 1 && st.ac[lo] == own {
		return st.ac
	}
	keep := make(acSet, 0, hi-lo+1)
	keep = append(keep, own)
	for _, k := range st.ac[lo:hi] {
		if k != own && !e.covered(k, st, ev) {
			keep = append(keep, k)
		}
	}
	slices.Sort(keep)
	out := make(acSet, 0, len(st.ac)-(hi-lo)+len(keep))
	out = append(out, st.ac[:lo]...)
	out = append(out, keep...)
	return append(out, st.ac[hi:]...)
}

// coverLimit bounds the entries reduce and cleanAC look at per chain.
const coverLimit = 8

// covered reports whether the sends of list k known to st need no look by
// any event st sends later: each is absorbed, known to have finished, or
// (if like is not nil) of like's category and time.
func (e *Engine) covered(k uint64, st *state, like *event) bool {
	l := e.lists[k]
	if l == nil {
		return true
	}
	i := l.search(st.t.Get(Chain(uint32(k))))
	for n := 0; i >= 0; i, n = i-1, n+1 {
		if n == coverLimit {
			return false
		}
		p := l.entries[i].ev
		switch {
		case p.absorbed:
		case p.finished() && st.t.Covers(p.endEpoch()):
		case like != nil && p.cat.timed() && p.cat == like.cat && p.time == like.time:
		default:
			return false
		}
	}
	return true
}

// cleanAC drops the chains of ac whose lists hold nothing that t knows
// and may need; with known, also those whose known sends all have finished
// as far as t knows.
func (e *Engine) cleanAC(ac acSet, t Time, known bool) acSet {
	stale := func(k uint64) bool {
		l := e.lists[k]
		if l == nil || len(l.entries) == 0 || l.entries[0].clock > t.Get(Chain(uint32(k))) {
			return true
		}
		return known && e.covered(k, &state{t: t}, nil)
	}
	for i, k := range ac {
		if stale(k) {
			out := make(acSet, i, len(ac))
			copy(out, ac[:i])
			for _, k := range ac[i+1:] {
				if !stale(k) {
					out = append(out, k)
				}
			}
			return out
		}
	}
	return ac
}

// fits reports whether an event with time t can go next on chain c.
func (e *Engine) fits(c Chain, t Time) bool {
	ch := &e.chains[c]
	return !ch.busy && t.Get(c) >= ch.last
}

// place chooses the chain of an event that starts with state st (thesis
// §4.2.2): its FIFO chain — the chain of the events its sender's chain
// sent to its queue — if that fits, else a chain whose last event
// happens before it (greedy), else a new chain. runner is the thread that
// runs it (nil for a removed event).
func (e *Engine) place(ev *event, st *state, runner *thread, preds []*event) Chain {
	q := ev.q
	parent := ev.sendEpoch.Chain()
	if lvl := e.chains[parent].level; lvl < maxFIFOLevel {
		key := uint64(parent)<<32 | uint64(q.idx)
		c, ok := e.fifo[key]
		if !ok {
			c = e.newChain(q.looper, false, lvl+1)
			e.chains[c].fifo = true
			e.fifo[key] = c
			return c
		}
		if e.fits(c, st.t) {
			return c
		}
	}
	owner := runner
	if owner == nil {
		owner = q.looper
	}
	greedy := func(c Chain) bool {
		ch := &e.chains[c]
		return c != 0 && !ch.fifo && !ch.own && ch.owner == owner && e.fits(c, st.t)
	}
	for _, p := range preds {
		if e.chains[p.chain].tail == p && greedy(p.chain) {
			return p.chain
		}
	}
	if owner != nil {
		if greedy(owner.lastChain) {
			return owner.lastChain
		}
		for len(owner.free) > 0 {
			c := owner.free[len(owner.free)-1]
			owner.free = owner.free[:len(owner.free)-1]
			if greedy(c) {
				return c
			}
		}
	}
	return e.newChain(owner, false, maxFIFOLevel)
}

// resolve computes run(E) for a removed event (docs/causality.md,
// "Removed events"): what its begin would have known, by SEND, PRIORITY
// and ATFRONT, as one point that stands for its begin and its end.
func (e *Engine) resolve(p *event, outer *walk) error {
	p.status = evResolving
	w := walk{e: e, target: p, mode: outer.mode, outer: outer}
	st := p.snap
	if !p.q.binder {
		err := w.priority(&p.snap, &st)
		if err == nil {
			err = w.fixpoint(nil, &st)
		}
		if err != nil {
			p.status = evRemoved
			return err
		}
	}
	c := e.place(p, &st, nil, w.preds)
	ch := &e.chains[c]
	k := ch.last + 1
	ch.last, ch.tail = k, p
	st.t = st.t.with(MakeEpoch(c, k))
	st.ac = e.cleanAC(st.ac, st.t, false)
	p.chain, p.beginClock, p.endClock = c, k, k
	p.begin, p.end = st.t, st
	p.snap = state{}
	p.status = evResolved
	e.stats.Resolved++
	return nil
}

func (e *Engine) unpendBinder(ev *event) {
	l := &ev.q.bpend[ev.proc()]
	i, ok := slices.BinarySearchFunc(*l, ev.sendSeq, func(x *event, s int64) int {
		switch {
		case x.sendSeq < s:
			return -1
		case x.sendSeq > s:
			return 1
		}
		return 0
	})
	if ok {
		*l = slices.Delete(*l, i, i+1)
	}
}

// pendingBetween reports whether a binder event of q from process proc,
// sent strictly between the ops numbered a and b, is pending.
func (q *queue) pendingBetween(proc int, a, b int64) bool {
	l := q.bpend[proc]
	i, _ := slices.BinarySearchFunc(l, a+1, func(x *event, s int64) int {
		switch {
		case x.sendSeq < s:
			return -1
		case x.sendSeq > s:
			return 1
		}
		return 0
	})
	return i < len(l) && l[i].sendSeq < b
}

// binderList holds, for one binder thread, queue, process and syncness,
// the events the thread ran (in begin order) that a later event may still
// need as an IPCHANDLE predecessor.
type binderList struct {
	entries []binderEntry
}

type binderEntry struct {
	seq int64 // the number of its send op
	ev  *event
}

func binderKey(q uint32, proc int, async bool) uint64 {
	k := uint64(q)<<2 | uint64(proc)<<1
	if async {
		k |= 1
	}
	return k
}

type ipcKey struct {
	q      uint32
	sender traces.Sym
}

type ipcLast struct {
	seq int64
	ev  *event
}

// endBinder records a binder event that ended on th for IPCHANDLE. An
// earlier entry x it supersedes (sent before it, so x ≺ ev) is dropped
// unless a pending event sent between the two could still need x.
func (e *Engine) endBinder(th *thread, ev *event) {
	if th.binder == nil {
		th.binder = make(map[uint64]*binderList)
	}
	key := binderKey(ev.q.idx, ev.proc(), ev.async())
	l := th.binder[key]
	if l == nil {
		l = &binderList{}
		th.binder[key] = l
	}
	kept := l.entries[:0]
	for _, x := range l.entries {
		if x.seq < ev.sendSeq && !ev.q.pendingBetween(ev.proc(), x.seq, ev.sendSeq) {
			e.release(x.ev)
			continue
		}
		kept = append(kept, x)
	}
	clear(l.entries[len(kept):])
	l.entries = append(kept, binderEntry{seq: ev.sendSeq, ev: ev})
	ev.refs++
}
