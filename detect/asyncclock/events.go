package asyncclock

import (
	"errors"
	"slices"

	"github.com/licorice-dev/licorice/traces"
)

// externalTask returns the task that makes the sends coming from outside
// the program (external sends without "t"). Its chain orders them.
func (e *Engine) externalTask() *task {
	if e.extTask == nil {
		c := e.newChain(nil, true)
		e.tips[c].last = 1
		e.extTask = &task{st: Time{top: MakeEpoch(c, 1)}}
	}
	if e.extTask.published {
		e.tick(e.extTask)
	}
	return e.extTask
}

func (e *Engine) send(op *traces.Op) error {
	q := e.queues.get(op.Queue)
	if q == nil {
		return e.invalid(op, "send to queue %s, which no thread serves", e.name(op.Queue))
	}
	if e.events.get(op.Event) != nil {
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
		if e.learn(t, e.ext) { // else t's time, to which ATOMIC was applied, is the same
			if err := e.atomicAt(t); err != nil {
				return err
			}
		}
	}
	snap := t.st
	ev := e.newEvent() // zero: filled field by field, as a literal for *ev is built aside and copied
	ev.id, ev.q, ev.cat, ev.external, ev.sender = op.Event, q, catOf(op.SendKind, op.Async), op.External, op.Task
	ev.status, ev.sendSeq, ev.sendLine = evPending, e.seq, e.line
	ev.sendEpoch, ev.send = snap.top, snap
	if op.SendKind != traces.AtFront {
		ev.time = op.Time
	}
	e.events.set(ev.id, ev)
	e.stats.Events++
	e.stats.MaxTracked = max(e.stats.MaxTracked, e.events.len())
	if q.binder {
		p := ev.proc()
		q.bpend[p] = append(q.bpend[p], ev)
	} else {
		l := e.list(q, snap.top.Chain())
		l.add(ev, snap.top.Clock())
		ev.list = l
		ev.refs++
		e.stats.ListEntries++
		if !ev.cat.timed() {
			e.pruneAtFront(q)
			q.af = append(q.af, ev)
			ev.refs++
		}
		e.prunePending(q)
		q.pending = append(q.pending, ev)
		ev.queued = true
	}
	if op.External {
		e.ext = t.st
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
	ev := e.events.get(op.Event)
	if ev == nil || ev.status != evPending {
		return e.invalid(op, "remove of event %s, which is not pending", e.name(op.Event))
	}
	ev.status = evRemoved
	if ev.list != nil {
		ev.list.moved()
	}
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
	ev := e.events.get(op.Task)
	if ev == nil || ev.status != evPending {
		return e.invalid(op, "begin of event %s, which is not pending", e.name(op.Task))
	}
	th := ev.q.looper // a looper queue's events run on its looper, mostly
	if th == nil || th.id != op.Thread {
		th = e.threads[op.Thread]
	}
	if th == nil || th.ended || th.running != nil || th.kind == traces.Worker {
		return e.invalid(op, "thread %s cannot run event %s now", e.name(op.Thread), e.name(op.Task))
	}
	ev.th, ev.beginLine = th, e.line
	b := e.builder()
	defer e.putBuilder(b)
	b.start(ev.send)
	// LOOPBEGIN: the thread's own ops so far. A start that knows the own
	// task's clock knows all its time: a task's time at a clock is
	// published (by a send, fork, signal, begin or end) only as it is
	// last, as the task moves to a new clock before it learns more.
	if own := th.own.st; !b.covers(own.top) {
		b.learn(own)
	}
	th.own.published = true
	w := &e.beginWalk
	*w = walk{e: e, target: ev, mode: strict, b: b}
	defer func() { *w = walk{} }()
	if ev.q.binder {
		e.unpendBinder(ev)
		if err := w.ipc(th); err != nil {
			return err
		}
	} else {
		if e.window > 0 {
			e.fold(th)
		}
		e.prunePending(ev.q)
		if err := w.pendingPreds(); err != nil {
			return err
		}
		var err error
		if prev := w.reducer(); prev != nil {
			err = w.reducedPriority(ev.send, prev)
		} else {
			err = w.priority(ev.send)
		}
		if err != nil {
			return err
		}
		// WINDOW: every old event of the thread, learned after the
		// PRIORITY walks, as the ends they join often cover a point that
		// learned the window clock (lazyJoin.known), which is then not
		// compared. The order does not change the start: what the start
		// knows only lets the walks skip what it covers already (and the
		// predecessors the window clock holds, which it learns here),
		// and ATOMIC comes after both.
		if e.window > 0 {
			th.window.learnInto(b, 0)
		}
		if err := w.fixpoint(th); err != nil {
			return err
		}
	}
	c := e.place(ev, b)
	tip := &e.tips[c]
	k := tip.last + 1
	tip.last, tip.busy = k, true
	st := b.timeOf(MakeEpoch(c, k))
	if !ev.q.binder && e.window > 0 {
		th.window.learned(st.top)
	}
	ev.chain, ev.beginClock = c, k
	ev.begin = st
	if th.kind == traces.Looper {
		th.closed = st
	}
	ev.status = evRunning
	th.running = ev
	t := &ev.run
	*t = task{id: ev.id, st: st, th: th, ev: ev}
	e.tasks.set(ev.id, t)
	e.at(t)
	if e.begins++; e.begins&255 == 1 {
		e.stats.MaxTimeLen = max(e.stats.MaxTimeLen, st.Len())
	}
	if e.begins >= e.gcAt {
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
	ev.end = t.st // its send time stays until it is reclaimed: later sends of its list are walked from it (reducedPriority)
	ev.endClock = t.st.top.Clock()
	ev.endTS = e.ts
	ev.endLine = e.line
	ev.status = evEnded
	if ev.list != nil {
		ev.list.finished(ev)
	}
	e.tips[ev.chain].busy = false
	e.at(t)
	e.forget(ev.id)
	ev.run = task{} // its time is ev.end's, which goes when ev is reclaimed
	th.running = nil
	// ATOMIC: the event's interval, unless it is empty. An event that
	// published none of its clocks before its end (no send, signal or fork)
	// ends at its begin's clock, and its time there is published only as
	// its end's: a time that knows its begin knows its end, and ATOMIC
	// has nothing to find (a third of app's looper events).
	if th.kind == traces.Looper && ev.beginClock < ev.endClock {
		ch := &e.chains[ev.chain]
		e.appendInterval(ev.chain, interval{begin: ev.beginClock, end: ev.endClock, ev: ev})
		ev.interval = true
		ev.refs++
		if !ch.atomic {
			ch.atomic = true
			th.atomicChains = append(th.atomicChains, ev.chain)
			th.addAtomic(ev.chain)
		}
	}
	if ev.q.binder {
		// Before the recent events' references may go (below), as ev may
		// be one of them: its binder list's reference keeps it.
		e.endBinder(th, ev)
	}
	if len(th.recent) == 0 {
		th.recentFrom = ev.endTS
	}
	th.recent = append(th.recent, ev)
	ev.refs++
	// LOOPEND needs only the join of the ended events. With the window, a
	// looper's recent events wait to be folded into its window clock,
	// which LOOPEND learns with those not folded yet (threadEnd).
	if (e.window == 0 || th.kind != traces.Looper) && len(th.recent) >= e.recentLimit() {
		th.endJoin = e.joinEnds(th.endJoin, th.recent)
		for _, p := range th.recent {
			e.release(p)
		}
		clear(th.recent)
		th.recent = th.recent[:0]
	}
	return nil
}

// foldAged is how many aged points a lazyJoin keeps apart from its tc
// before it folds them in (tests fold sooner: Engine.foldEvery). A fold
// makes a new tc, which a learner compares block by block until it
// covers a point that learned it (lazyJoin.known); kept apart, an aged
// point costs a learner one look at its top. At app 100k, 128 compares
// 16% fewer blocks in all than 32 (window clocks and old signals 266k
// → 154k, the folds' own joins fewer too); 256 saves fewer misses than
// its longer scans of tops cost (docs/performance.md, tenth round).
const foldAged = 128

// fold applies the time window at a begin on looper th: the events that
// ended more than the window ago join its time-window clock, which every
// later event of th inherits, and are no longer needed one by one.
func (e *Engine) fold(th *thread) {
	if len(th.recent) == 0 || e.ts-th.recentFrom <= e.window {
		return
	}
	n := 1
	for n < len(th.recent) && e.ts-th.recent[n].endTS > e.window {
		n++
	}
	if n < len(th.recent) {
		th.recentFrom = th.recent[n].endTS // read by the loop above
	}
	for _, p := range th.recent[:n] {
		e.addLazy(&th.window, p.end)
	}
	for _, p := range th.recent[:n] {
		p.absorbed = true
		e.stats.WindowFolded++
		if p.interval {
			e.dropInterval(p)
		}
		e.release(p)
	}
	clear(th.recent[:n])
	th.recent = th.recent[n:]
	if cap(th.recent) > 64 && len(th.recent) < cap(th.recent)/4 {
		th.recent = slices.Clone(th.recent)
	}
}

// lazyJoin is the join of many point times that most of those who learn
// it know already: a looper's window clock (the ends of its events older
// than the window) and the wide window's old signals. It is tc joined
// with aged, the points added since tc was last folded: a learner skips
// an aged point whose top it covers (an end's or a signal's time is its
// top's) with one look, so they are folded into tc only in batches. A
// learner that covers a point that learned tc as it is (tc's own, or one
// of known) does not compare tc either, nor the aged points that one
// learned. tc and aged change whenever a point ages, so a single point
// of tc seldom lasts; kept apart, they do.
type lazyJoin struct {
	tc   Time
	aged []Time
	// tops holds aged's tops: a learner looks at every one and joins
	// few, so it reads 8 bytes a point, not a Time's 40.
	tops  []Epoch
	known [4]windowPoint // the last points that learned tc as it is, newest first, one per chain
}

// windowPoint is a point whose time learned a lazyJoin's tc as it is, and
// its first aged points.
type windowPoint struct {
	p    Epoch
	aged int
}

// addLazy adds u, the time of a point (its top), to l.
func (e *Engine) addLazy(l *lazyJoin, u Time) {
	l.aged = append(l.aged, u)
	l.tops = append(l.tops, u.top)
	if len(l.aged) >= foldAged || e.foldEvery > 0 && len(l.aged) >= e.foldEvery {
		e.foldLazy(l)
	}
}

// foldLazy folds l's aged points into tc.
func (e *Engine) foldLazy(l *lazyJoin) {
	if len(l.aged) == 0 {
		return
	}
	l.tc = e.joinPoints(l.tc, len(l.aged), func(i int) Time { return l.aged[i] })
	l.known = [len(l.known)]windowPoint{}
	clear(l.aged)
	l.aged, l.tops = l.aged[:0], l.tops[:0]
}

// learned records that p, a point no time knows yet (it is published only
// as it is last), learned l as it is: p's time knows tc and every aged
// point. The first such point since tc changed is tc's point; the last
// few, one per chain (a later point on a chain knows what an earlier one
// does), as likely known, are kept too.
func (l *lazyJoin) learned(p Epoch) {
	if l.tc.at == 0 && l.tc.vector() {
		l.tc.at = p
	}
	i := 0
	for i < len(l.known)-1 && l.known[i].p != 0 && l.known[i].p.Chain() != p.Chain() {
		i++
	}
	copy(l.known[1:i+1], l.known[:i])
	l.known[0] = windowPoint{p, len(l.aged)}
}

// coversApart reports whether b, with top, a component it holds apart (0:
// none), covers x.
func coversApart(b *builder, top, x Epoch) bool {
	return top != 0 && x.Chain() == top.Chain() && x.Clock() <= top.Clock() || b.covers(x)
}

// knownBy returns how many of l's aged points b (with top apart, see
// learnInto) knows for sure with tc, as it covers a point that learned
// them, or -1 if it may not know tc.
func (l *lazyJoin) knownBy(b *builder, top Epoch) int {
	for _, k := range l.known {
		if k.p == 0 {
			break
		}
		if coversApart(b, top, k.p) {
			return k.aged // the newest it covers, which learned the most
		}
	}
	return -1
}

// learnInto makes b know l: tc, and the aged points whose top b does not
// cover. top, if not 0, is a component b holds apart (a task's own clock,
// when b holds only its vector). It reports whether b grew (or, rarely,
// may have).
func (l *lazyJoin) learnInto(b *builder, top Epoch) bool {
	grew := false
	n := l.knownBy(b, top)
	if n < 0 {
		grew = b.learn(l.tc)
		n = 0
	}
	for i := n; i < len(l.tops); i++ {
		// coversApart, in line (it is over the inlining budget), b's
		// clock first: most learners know most aged points.
		if x := l.tops[i]; b.covers(x) || top != 0 && x.Chain() == top.Chain() && x.Clock() <= top.Clock() {
			continue
		}
		if b.learn(l.aged[i]) {
			grew = true
		}
	}
	return grew
}

// learnLazy makes task t know l; it reports whether t learned something
// (or, rarely, may have).
func (e *Engine) learnLazy(t *task, l *lazyJoin) bool {
	b := e.builder()
	defer e.putBuilder(b)
	b.startVector(t.st) // its top stays apart, as in Time.joinIn
	grew := l.learnInto(b, t.st.top)
	if grew {
		t.st = b.timeOf(t.st.top)
	}
	l.learned(t.st.top)
	return grew
}

// recentBatch is how many ended events a thread holds (thread.recent)
// before it joins their ends into its end join and releases them.
const recentBatch = 64

// recentLimit is recentBatch, or what a test set instead.
func (e *Engine) recentLimit() int {
	if e.recentBatch > 0 {
		return e.recentBatch
	}
	return recentBatch
}

// dropInterval removes ev's ATOMIC interval from its chain. ev has ended
// and not been reclaimed: its chain is its end's, which is in the cache
// line fold reads (ev.chain, in another, was a miss per aged event).
func (e *Engine) dropInterval(ev *event) {
	c := ev.end.top.Chain()
	ch := &e.chains[c]
	ivs := ch.intervals
	if len(ivs) > 0 && ivs[0].ev == ev {
		// The chain's oldest, as an event that ages out mostly is: the
		// intervals after it stay where they are (shifting them, about 250
		// a chain with the window full, was the most of fold's work), and
		// the span and tail lose it without a look at the others.
		ivs[0] = interval{}
		ev.interval = false
		ivs = ivs[1:]
		ch.intervals = ivs
		if len(ivs) == 0 {
			e.spans[c], e.tails[c] = span{}, tail{}
		} else {
			e.spans[c].lo = ivs[0].begin
			if len(ivs) < tailLen {
				e.tails[c][len(ivs)] = clocks{}
			}
		}
		e.release(ev)
		return
	}
	for i, iv := range ivs {
		if iv.ev == ev {
			ch.intervals = append(ivs[:i], ivs[i+1:]...)
			ivs[len(ivs)-1] = interval{}
			e.setSpan(c)
			ev.interval = false
			e.release(ev)
			return
		}
	}
}

// release drops one of the engine's references to ev; with the last one,
// ev's metadata is reclaimed.
func (e *Engine) release(ev *event) {
	ev.refs--
	// An absorbed event has finished: absorbed is in refs' cache line,
	// status in another, which compact's release of an absorbed entry
	// would read for nothing (62k last-level misses at app 100k).
	if ev.refs > 0 || !ev.absorbed && !ev.finished() {
		return
	}
	e.stats.Reclaimed++
	ev.afJoin = nil
	if e.cfg.KeepEvents {
		ev.send = Time{}
		return
	}
	ev.end = Time{} // afJoin and end are in refs' line
	if e.events.get(ev.id) == ev {
		e.events.delete(ev.id)
	}
	e.recycle(ev)
}

// recycle puts ev, just reclaimed, on the spare list, so that a later
// send fills it rather than a new allocation (and writes to lines that
// release has just touched, not to memory that left the caches long
// ago), unless a structure still holds it. The engine's structures hold
// an event with a reference (refs), but for two: its queue's pending
// list, which drops it lazily (queued; such an event is left to the
// garbage collector), and the rings of events begun (recentBegun), whose
// readers check the send number they noted against the event's, and its
// status. TestRecycledEventsUnreachable checks that nothing else does.
//
// An event on the spare list keeps what its send, begin and list were
// until newEvent clears it: those are in two lines of the event that
// release does not touch otherwise, and clearing them here wrote those
// lines for nothing (at app 100k, 205k D1 write misses), as newEvent
// writes every line again. (Their blocks stay alive that long: about 10
// MB more at the peak at app 1M.)
func (e *Engine) recycle(ev *event) {
	if ev.queued || e.recycled != nil {
		ev.send = Time{} // what it holds that would otherwise stay alive with it
		if !ev.queued {
			e.recycled(ev)
		}
		return
	}
	ev.status, ev.absorbed = evSpare, false // neither absorbed nor finished: a stray second release returns at once, and a ring's reader does not take it
	e.spare = append(e.spare, ev)
}

// newEvent returns a zero event for a send to fill: the last one
// recycled, or a new one.
func (e *Engine) newEvent() *event {
	n := len(e.spare)
	if n == 0 {
		return new(event)
	}
	e.stats.Recycled++
	ev := e.spare[n-1]
	e.spare[n-1] = nil
	e.spare = e.spare[:n-1]
	*ev = event{}
	return ev
}

// prunePending drops the events that began or were resolved from the
// front of q's pending list, and from all of it whenever it has doubled
// since it was last compacted (an event due late holds the front).
func (e *Engine) prunePending(q *queue) {
	n := 0
	for n < len(q.pending) && !q.pending[n].unstarted() {
		q.pending[n].queued = false
		n++
	}
	if n > 0 {
		clear(q.pending[:n])
		q.pending = q.pending[n:]
	}
	if len(q.pending) >= 64 && len(q.pending) >= 2*q.kept {
		kept := q.pending[:0]
		for _, ev := range q.pending {
			if ev.unstarted() {
				kept = append(kept, ev)
			} else {
				ev.queued = false
			}
		}
		clear(q.pending[len(kept):])
		q.pending = kept
		q.kept = len(kept)
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

// place chooses the chain of an event whose start b holds: by first fit,
// the oldest of its looper's chains (of the binder events' chains, for a
// binder queue) whose last event the start knows has ended; else a new
// chain. Chains are per looper so that ATOMIC finds a looper's intervals
// on its own chains.
//
// First fit keeps the chains, and so the width of every clock, close to
// the width of the order: the oldest chains take most events, and the
// newer ones keep old tails that later events know. On
// tracetest.App(100000, 1) the loopers' events take 362 chains, where no
// decomposition into per-looper chains can take fewer than 304 (the
// widths of the loopers' orders, summed); FIFO chain decomposition (thesis
// §4.2.2: the events one chain sends to one queue on a chain of their
// own) with a greedy fallback took 423 (docs/performance.md, "Width of
// the happens-before order").
func (e *Engine) place(ev *event, b *builder) Chain {
	owner := ev.q.looper // nil for binder queues: ATOMIC does not look at their chains
	list := &e.binderChains
	if owner != nil {
		list = &owner.chains
	}
	for _, c := range *list {
		if tip := e.tips[c]; !tip.busy && b.get(c) >= tip.last {
			return c
		}
	}
	c := e.newChain(owner, false)
	*list = append(*list, c)
	return c
}

// resolve computes run(E) for a removed event (docs/causality.md,
// "Removed events"): what its begin would have known, by SEND, PRIORITY
// and ATFRONT, as one point that stands for its begin and its end.
func (e *Engine) resolve(p *event, outer *walk) error {
	p.status = evResolving
	b := e.builder()
	defer e.putBuilder(b)
	b.start(p.send)
	b.learn(p.pre)
	w := walk{e: e, target: p, mode: outer.mode, outer: outer, b: b}
	if !p.q.binder {
		err := w.removedPriority()
		if err == nil {
			err = w.fixpoint(nil)
		}
		if err == nil && w.incomplete {
			err = errNotYet
		}
		if err != nil {
			if errors.Is(err, errNotYet) {
				// What it learned holds: keep it, as the predecessors it
				// joined may be reclaimed before it can be resolved.
				p.pre = b.time(0)
			}
			p.status = evRemoved
			return err
		}
	}
	c := e.place(p, b)
	k := e.tips[c].last + 1
	e.tips[c].last = k
	st := b.timeOf(MakeEpoch(c, k))
	p.chain, p.beginClock, p.endClock = c, k, k
	p.begin, p.end = st, st
	p.endTS = e.ts
	p.pre = Time{}
	p.status = evResolved
	// A later event of its category and time may reduce its walk against
	// it (reducer), which needs its send (released with the event): most
	// removed events' references were sent long before them (app 100k:
	// 46k ops, against 13k for a begin's), and a removed event often
	// follows another of its kind (app 100k: 420,512 walk steps →
	// 403,232; 400,559 with removed events not resolved yet as references
	// too; removed events' reduced walks 109k → 90k).
	if recent := p.q.recent(p); recent != nil {
		recent.add(p)
	}
	if p.list != nil {
		p.list.finished(p)
	}
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

// list returns the async-before list of chain c's sends to q.
func (e *Engine) list(q *queue, c Chain) *sendList {
	if l := q.list(c); l != nil {
		return l
	}
	l := &sendList{q: q, chain: c, head: len(q.heads)}
	i := int(c >> chunkBits)
	for len(q.sends) <= i {
		q.sends = append(q.sends, nil)
	}
	sb := q.sends[i]
	if sb == nil {
		sb = new(sendBlock)
		q.sends[i] = sb
	}
	sb.lists[c&(chunkSize-1)] = l
	sb.listed |= 1 << (c & (chunkSize - 1))
	q.heads = append(q.heads, listHead{chain: c, l: l})
	return l
}

// list returns the async-before list of chain c's sends to q, or nil.
func (q *queue) list(c Chain) *sendList {
	if i := int(c >> chunkBits); i < len(q.sends) && q.sends[i] != nil {
		return q.sends[i].lists[c&(chunkSize-1)]
	}
	return nil
}

// builder returns a builder for a start being computed (starts nest when
// a removed event is resolved).
func (e *Engine) builder() *builder {
	var b *builder
	if n := len(e.pool); n > 0 {
		b = e.pool[n-1]
		e.pool = e.pool[:n-1]
	} else {
		b = &builder{}
	}
	// Each op makes at most two clocks (its task's next, and the run(E) of
	// a removed event it resolves, each removed once), so no clock has
	// reached 2^31 before 2^30 ops.
	b.low = e.seq < lowOps
	return b
}

// lowOps is how many ops the engine steps with all clocks below 2^31.
const lowOps = 1 << 30

func (e *Engine) putBuilder(b *builder) { e.pool = append(e.pool, b) }

// unlist forgets chain c's list of sends to q, and its block's record
// once no chain of it has one.
func (q *queue) unlist(c Chain) {
	i := c >> chunkBits
	sb := q.sends[i]
	sb.lists[c&(chunkSize-1)] = nil
	if sb.listed &^= 1 << (c & (chunkSize - 1)); sb.listed == 0 {
		q.sends[i] = nil
	}
}
