package asyncclock

import (
	"slices"

	"github.com/licorice-dev/licorice/traces"
)

// collect is the periodic garbage collection (thesis §4.2.2): it drops
// the entries that no later event can need — events folded into a
// time-window clock — from the async-before lists, the at-front and
// pending lists, and lets go of the lists left empty. Events whose last
// reference goes are reclaimed (see release). It also folds the LOOPEND
// buffers and tries to resolve removed events whose predecessors have all
// finished, so that their send times can go.
func (e *Engine) collect() {
	e.begins = 0
	e.stats.Collections++
	// LOOPEND needs only the join of the ended events; with the window, a
	// looper's recent events wait to be folded into its window clock.
	for _, th := range e.collecting {
		if e.window == 0 || th.kind != traces.Looper {
			th.endJoin = e.joinEnds(th.endJoin, th.recent)
			for _, p := range th.recent {
				e.release(p)
			}
			clear(th.recent)
			th.recent = th.recent[:0]
		}
	}
	for _, q := range e.queueOrder {
		if q.binder {
			continue
		}
		e.resolveRemoved(q)
	}
	if e.window == 0 {
		e.heirless()
	}
	for _, q := range e.queueOrder {
		if q.binder {
			continue
		}
		kept := q.heads[:0]
		for i, h := range q.heads {
			if e.window > 0 && e.ts-h.endedFrom <= e.window {
				// Nothing to drop: no entry's event finished more than
				// the window ago, so none was absorbed, and none is dead
				// (heirless runs without the window only). Nor is the
				// list empty. It is not looked at, unless its head moves
				// (at app 1M, 128k of the 275k lists collections went
				// through).
				if len(kept) != i {
					h.l.head = len(kept)
				}
				kept = append(kept, h)
				continue
			}
			l := h.l
			endedFrom, dropped := l.compact(e)
			if len(l.entries) == 0 {
				q.unlist(l.chain)
				continue
			}
			l.head = len(kept)
			h.endedFrom = endedFrom
			kept = append(kept, h)
			if dropped {
				// Its head and memos no longer stand. (l.q.heads is
				// still the old slice, whose array kept shares, so moved
				// writes kept's head.)
				l.moved()
			}
		}
		clear(q.heads[len(kept):])
		q.heads = kept
		e.pruneAtFront(q)
	}
	e.pruneIPCAsync()
	e.dropCollected()
	if e.wide {
		e.forgetOldHandles()
	}
	entries := e.stats.ListEntries // kept up by send and compact: a count would look at every list
	// The next collection after as many begins as a quarter of the entries
	// it looked at, so that collecting costs O(1) per begin.
	e.gcAt = max(e.cfg.GCEvery, entries/4, 1024)
	if e.cfg.GCEvery > 0 {
		e.gcAt = e.cfg.GCEvery
	}
}

// listEntries returns the number of entries of all async-before lists.
func (e *Engine) listEntries() int {
	n := 0
	for _, q := range e.queueOrder {
		for _, h := range q.heads {
			n += len(h.l.entries)
		}
	}
	return n
}

// retireRemoved applies the time window to p, an event of an async-before
// list, if it was removed: one whose run(E) was resolved more than the window ago is absorbed like an
// old event of the looper. It is not in the looper's window clock, but
// whatever its run(E) knows is known to every later begin of the looper
// that it could precede: its send by the rules that would order it first
// (the send of a PRIORITY or ATFRONT successor, or its begin, knows it),
// and its predecessors, all finished before it was resolved, are old
// events of the looper now (or removed events that are older still).
// Only queries about the removed event itself lose order, as the window
// already allows.
func (e *Engine) retireRemoved(p *event) {
	// absorbed first: of the events compact looks at, most were, and it is
	// in the line compact reads next (status is in another).
	if e.window > 0 && !p.absorbed && p.status == evResolved && e.ts-p.endTS > e.window {
		p.absorbed = true
		e.stats.WindowFolded++
	}
}

// mayBeAbsorbed reports whether the event of entry x may have been
// absorbed (or, removed, may be retired now): it finished more than the
// window ago.
func (e *Engine) mayBeAbsorbed(x *sendEntry) bool {
	return e.window > 0 && x.end != 0 && e.ts-x.endTS > e.window
}

// compact drops the entries of absorbed (or heirless) events, which no
// walk needs to look at, and summarizes the entries that stay afresh:
// categories and times only the dropped entries had no longer keep a walk
// from stopping early. It retires the removed events it looks at first
// (retireRemoved), in the same pass over their events.
//
// It looks only at the events that finished more than the window ago
// (the entry's copy of the time, mayBeAbsorbed): an event is absorbed
// (fold, retireRemoved) only then, and the trace time only grows. At app
// 100k, 85% of the entries a compaction goes through are more recent, and
// their events, each a cache miss, need no look. Nor does collect call it,
// with the window on, for a list none of whose events finished more than
// the window ago (listHead.endedFrom, read in the head so that such a
// list is not touched): 19k of the 28k lists collected at app 100k, which
// hold a third of the entries. Nor does it summarize the entries afresh
// if it dropped none, and it only trims the summaries if it dropped the
// first ones (the window drops the oldest: at app 100k, 8,544 of the
// 8,715 lists it dropped entries from, with 205k of the 230k entries they
// kept). It returns the list's new endedFrom (the earliest end of the
// events kept, or, none finished, now, as those that finish later will at
// or after now), and whether it dropped an entry: if not, the list's head
// and memos stand.
func (l *sendList) compact(e *Engine) (endedFrom float64, dropped bool) {
	endedFrom = e.ts
	n := 0
	prefix := true // the entries dropped are the first ones
	// While they are, each entry kept is trimmed as it moves down, in the
	// pass that reads it, rather than in a second pass over the list (app
	// 1M: 2.7M entries); a later drop has the entries summarized afresh
	// after the pass instead.
	gone := l.seen
	for i := range l.entries {
		x := &l.entries[i]
		if e.mayBeAbsorbed(x) {
			e.retireRemoved(x.ev)
			if x.ev.absorbed {
				e.release(x.ev)
				prefix = prefix && n == 0
				continue
			}
		}
		if x.dead {
			e.release(x.ev)
			prefix = prefix && n == 0
			continue
		}
		if x.end != 0 {
			endedFrom = min(endedFrom, x.endTS)
		}
		if n != i {
			l.entries[n] = *x
			if prefix {
				if n == 0 {
					l.seen, l.has = 0, [catAFA]bool{}
				}
				gone = l.trim(n, gone)
			}
		}
		n++
	}
	e.stats.ListEntries -= len(l.entries) - n
	dropped = n < len(l.entries)
	clear(l.entries[n:])
	l.entries = l.entries[:n]
	if cap(l.entries) > 64 && len(l.entries) < cap(l.entries)/4 {
		l.entries = slices.Clone(l.entries)
	}
	switch {
	case !dropped: // the entries' and the list's summaries stand
	case prefix: // trimmed in the pass
		if n == 0 {
			l.seen, l.has = 0, [catAFA]bool{}
		}
	default:
		l.seen, l.has = 0, [catAFA]bool{}
		for i := range l.entries {
			l.summarize(i, &l.entries[i])
		}
	}
	return endedFrom, dropped
}

// resolveRemoved resolves the removed events of q whose predecessors
// have all finished: their time will not change, and their send time can
// go.
func (e *Engine) resolveRemoved(q *queue) {
	e.prunePending(q)
	for _, ev := range q.pending {
		if ev.status != evRemoved {
			continue
		}
		w := walk{e: e, mode: tentative}
		_ = e.resolve(ev, &w) // errNotYet: a predecessor is still pending; try again later
	}
	e.prunePending(q)
}

// heirlessBudget bounds the work of one search for heirless events (roots
// times list entries); beyond it the search is skipped, and memory grows
// as the thesis says it does without the time window.
const heirlessBudget = 1 << 24

// A root is a time from which later times will be made: what a running
// task, a handle, a fork, an ended thread or a pending event knows, or the
// end of an event the engine holds (a later event may join it).
type root struct {
	t    Time
	send Time   // for the end of a looper event: what its send knew (multi-path reduction)
	self *event // for a pending event's send: the event itself
}

// heirless finds, with the window off, the entries of async-before lists
// and the ATOMIC intervals that no later event can need, and marks them
// dead (thesis §4.2.1, "Reclaiming Heirless Events"). An entry p of chain
// j's list is needed only if some root knows send(p), does not know that
// p finished, and knows no later send of p's very category and time on j
// and that has finished (it precedes every event p precedes, and carries
// p's end: reference counting, with
// the reference read off the root's clock). Multi-path reduction: the end
// of a looper event F whose send already knew send(p) does not count, as
// whatever inherits F's end knows send(F) from another root.
func (e *Engine) heirless() {
	roots := e.roots()
	if len(roots)*e.listEntries() > heirlessBudget {
		return
	}
	var live []bool
	next := map[[2]int64]Clock{}
	var nextSame []Clock
	for _, q := range e.queueOrder {
		for _, h := range q.heads {
			l, j := h.l, h.chain
			n := len(l.entries)
			live = append(live[:0], make([]bool, n)...)
			nextSame = append(nextSame[:0], make([]Clock, n)...)
			clear(next)
			for k := n - 1; k >= 0; k-- {
				x := &l.entries[k]
				nextSame[k] = ^Clock(0)
				if x.cat.timed() {
					key := [2]int64{int64(x.cat), x.time}
					if c, ok := next[key]; ok {
						nextSame[k] = c
					}
					if x.ev.finished() { // a later send shadows only once its event finished
						next[key] = x.clock
					}
				}
			}
			for _, r := range roots {
				v := r.t.Get(j)
				if v < h.first {
					continue
				}
				sv := r.send.Get(j)
				for k := l.search(v); k >= 0; k-- {
					x := &l.entries[k]
					if x.clock <= sv {
						break // multi-path: known to the roots that F's successors descend from
					}
					if live[k] || x.ev == r.self || nextSame[k] <= v || (x.end != 0 && r.t.Covers(x.end)) {
						continue
					}
					live[k] = true
				}
			}
			for k := range l.entries {
				l.entries[k].dead = !live[k]
			}
		}
	}
	for _, th := range e.threads {
		for _, c := range th.atomicChains {
			ch := &e.chains[c]
			kept := ch.intervals[:0]
			for _, iv := range ch.intervals {
				needed := false
				for _, r := range roots {
					if k := r.t.Get(c); k >= iv.begin && k < iv.end {
						needed = true
						break
					}
				}
				if !needed {
					iv.ev.interval = false
					e.release(iv.ev)
					continue
				}
				kept = append(kept, iv)
			}
			clear(ch.intervals[len(kept):])
			ch.intervals = kept
			e.setSpan(c)
		}
	}
}

// roots returns the times later times will be made of.
func (e *Engine) roots() []root {
	var rs []root
	add := func(t Time) { rs = append(rs, root{t: t}) }
	for _, t := range e.tasks.all() {
		add(t.st)
	}
	for _, h := range e.handles.all() {
		add(h.last)
		add(h.t)
		for _, u := range h.pts {
			add(u)
		}
	}
	for _, f := range e.forks {
		add(f)
	}
	add(e.ext)
	if e.extTask != nil {
		add(e.extTask.st)
	}
	// The events the engine holds, each once: pending ones by their send,
	// finished ones by their end.
	seen := map[*event]bool{}
	hold := func(ev *event) {
		if seen[ev] {
			return
		}
		seen[ev] = true
		switch {
		case ev.status == evPending || ev.status == evRemoved:
			rs = append(rs, root{t: ev.send, self: ev})
		case ev.finished():
			r := root{t: ev.end}
			if !ev.q.binder {
				r.send = ev.send // multi-path: its successors know its send from other roots
			}
			rs = append(rs, r)
		}
	}
	for _, th := range e.threads {
		add(th.window.tc)
		for _, u := range th.window.aged {
			add(u)
		}
		add(th.endJoin)
		if th.ended {
			add(th.final)
		}
		for _, l := range th.binder {
			for _, x := range l.entries {
				hold(x.ev)
			}
		}
		for _, x := range th.ipcAsync {
			hold(x.ev)
		}
		for _, ev := range th.recent {
			add(ev.end) // LOOPEND will join it: no multi-path reduction
		}
		for _, c := range th.atomicChains {
			for _, iv := range e.chains[c].intervals {
				hold(iv.ev)
			}
		}
	}
	for _, q := range e.queueOrder {
		for _, h := range q.heads {
			for _, x := range h.l.entries {
				hold(x.ev)
			}
		}
	}
	for _, q := range e.queueOrder {
		for _, ev := range q.af {
			hold(ev)
			if ev.afJoin != nil {
				add(*ev.afJoin)
			}
		}
		for _, ev := range q.pending {
			hold(ev)
		}
		for _, pend := range q.bpend {
			for _, ev := range pend {
				hold(ev)
			}
		}
	}
	return rs
}

// pruneIPCAsync forgets, per binder thread, the last async event of each
// sender that will send nothing more to the queue: it has stopped running
// and none of its events is pending there.
func (e *Engine) pruneIPCAsync() {
	for _, th := range e.collecting {
		for k, last := range th.ipcAsync {
			if e.tasks.get(k.sender) != nil || e.queueOrder[k.q-1].pendingFrom(k.sender) {
				continue
			}
			delete(th.ipcAsync, k)
			e.release(last.ev)
		}
	}
}

// dropCollected takes out of e.collecting the threads that ended and
// hold nothing a collection reclaims: no ended event to join (a looper's,
// with the window, are folded by its begins, which have stopped) and no
// IPCASYNC entry. Nothing is added to an ended thread's lists, as no
// event runs on it.
func (e *Engine) dropCollected() {
	kept := e.collecting[:0]
	for _, th := range e.collecting {
		done := th.ended && len(th.ipcAsync) == 0 &&
			(len(th.recent) == 0 || e.window > 0 && th.kind == traces.Looper)
		if !done {
			kept = append(kept, th)
		}
	}
	clear(e.collecting[len(kept):])
	e.collecting = kept
}

// pendingFrom reports whether an event sent by task y is pending in q.
func (q *queue) pendingFrom(y traces.Sym) bool {
	for _, pend := range q.bpend {
		for _, ev := range pend {
			if ev.sender == y {
				return true
			}
		}
	}
	return false
}
