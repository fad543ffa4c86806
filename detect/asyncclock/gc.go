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
	for _, q := range e.queueList() {
		if q.binder {
			continue
		}
		e.resolveRemoved(q)
		kept := q.lists[:0]
		for _, l := range q.lists {
			l.compact(e)
			if len(l.entries) == 0 {
				delete(e.lists, listKey(q, l.chain))
				continue
			}
			kept = append(kept, l)
		}
		clear(q.lists[len(kept):])
		q.lists = kept
		e.pruneAtFront(q)
	}
	for _, th := range e.threads {
		if e.window == 0 || th.kind != traces.Looper {
			for _, p := range th.recent {
				th.endJoin.learn(p.end)
				e.release(p)
			}
			clear(th.recent)
			th.recent = th.recent[:0]
		}
	}
	entries := 0
	for _, l := range e.lists {
		entries += len(l.entries)
	}
	e.stats.ListEntries = entries
	// The next collection after as many begins as a quarter of the entries
	// it looked at, so that collecting costs O(1) per begin.
	e.gcAt = max(e.cfg.GCEvery, entries/4, 1024)
	if e.cfg.GCEvery > 0 {
		e.gcAt = e.cfg.GCEvery
	}
}

// queueList returns the queues in a fixed order, for determinism.
func (e *Engine) queueList() []*queue {
	qs := make([]*queue, 0, len(e.queues))
	for _, q := range e.queues {
		qs = append(qs, q)
	}
	slices.SortFunc(qs, func(a, b *queue) int { return int(a.idx) - int(b.idx) })
	return qs
}

// compact drops the entries of absorbed events. The summaries of the
// entries that stay remain true of the entries before them (they only
// lose candidates), so early stopping stays right.
func (l *sendList) compact(e *Engine) {
	kept := l.entries[:0]
	for _, x := range l.entries {
		if x.ev.absorbed {
			e.release(x.ev)
			continue
		}
		kept = append(kept, x)
	}
	clear(l.entries[len(kept):])
	l.entries = kept
	if cap(l.entries) > 64 && len(l.entries) < cap(l.entries)/4 {
		l.entries = slices.Clone(l.entries)
	}
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
