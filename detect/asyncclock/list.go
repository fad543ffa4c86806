package asyncclock

import "sort"

// sendList is an async-before list (thesis §4.3.1): the events one chain
// sent to one looper queue, in send order. An event's predecessors by
// PRIORITY are found by walking, from the last send of each chain in its
// AsyncClock, back through these lists; the summaries in each entry let
// the walk stop early.
type sendList struct {
	chain   Chain
	entries []sendEntry
	seen    uint8 // the categories of every entry added
	has     [catAFA]bool
	max     [catAFA]int64 // per timed category, the largest time added
	min     [catAFA]int64 // and the smallest
}

type sendEntry struct {
	ev      *event
	time    int64
	minUpto int64 // timed: the smallest time of its category up to and including it
	maxUpto int64 // timed: the largest
	clock   Clock // the clock of the send on the list's chain
	cat     cat
	// seenBefore holds the categories of the earlier entries: a walk that
	// passes the last entry of a category is done with it.
	seenBefore uint8
}

func (l *sendList) add(ev *event, clock Clock) {
	x := sendEntry{ev: ev, time: ev.time, clock: clock, cat: ev.cat, seenBefore: l.seen}
	if c := ev.cat; c.timed() {
		x.minUpto, x.maxUpto = ev.time, ev.time
		if l.has[c] {
			x.minUpto = min(l.min[c], ev.time)
			x.maxUpto = max(l.max[c], ev.time)
		}
		l.min[c], l.max[c], l.has[c] = x.minUpto, x.maxUpto, true
	}
	l.seen |= ev.cat.bit()
	l.entries = append(l.entries, x)
}

// search returns the index of the last entry sent at or before clock v of
// the list's chain, or -1.
func (l *sendList) search(v Clock) int {
	return sort.Search(len(l.entries), func(i int) bool { return l.entries[i].clock > v }) - 1
}

// trim drops the entries at the front whose events are absorbed by a
// time-window clock: every event that could need them knows them.
func (l *sendList) trim(e *Engine) {
	n := 0
	for n < len(l.entries) && l.entries[n].ev.absorbed {
		e.release(l.entries[n].ev)
		n++
	}
	if n == 0 {
		return
	}
	e.stats.ListEntries -= n
	clear(l.entries[:n])
	l.entries = l.entries[n:]
	if cap(l.entries) > 64 && len(l.entries) < cap(l.entries)/4 {
		l.entries = append([]sendEntry(nil), l.entries...)
	}
}
