package asyncclock

import "sort"

// sendList is an async-before list (thesis §4.3.1): the events one chain
// sent to one looper queue, in send order. An event's predecessors by
// PRIORITY are found by walking, from the last send of each chain in its
// AsyncClock, back through these lists; the summaries in each entry let
// the walk stop early.
type sendList struct {
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
	clock   Clock // the clock of the send on the list's chain
	cat     cat
	// closers has bit c (c timed) if every earlier entry of category c has
	// a time at most this entry's: then, if this entry precedes an event,
	// so do all earlier ones of c that precede it (early stopping).
	closers    uint8
	seenBefore uint8 // the categories of the earlier entries
}

func (l *sendList) add(ev *event, clock Clock) {
	x := sendEntry{ev: ev, time: ev.time, clock: clock, cat: ev.cat, seenBefore: l.seen}
	for c := range catAFA {
		if !l.has[c] || l.max[c] <= ev.time {
			x.closers |= c.bit()
		}
	}
	if c := ev.cat; c.timed() {
		x.minUpto = ev.time
		if l.has[c] {
			x.minUpto = min(l.min[c], ev.time)
			l.max[c] = max(l.max[c], ev.time)
		} else {
			l.max[c] = ev.time
		}
		l.min[c] = x.minUpto
		l.has[c] = true
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

// closedBy returns the categories whose remaining (earlier) entries need
// no look once entry p, a predecessor of ev, is accounted for: each of
// them that precedes ev also precedes p.
func closedBy(p *sendEntry, ev *event) uint8 {
	m := catAFA.bit() // at-front events precede every timed event sent after them
	same := p.time == ev.time
	closes := func(c cat) bool { return same || p.closers&c.bit() != 0 }
	switch p.cat {
	case catDA:
		if closes(catDA) {
			m |= catDA.bit()
		}
	case catDS:
		m |= catAFS.bit()
		if closes(catDA) {
			m |= catDA.bit()
		}
		if closes(catDS) {
			m |= catDS.bit()
		}
	case catTA:
		if closes(catTA) {
			m |= catTA.bit()
		}
	case catTS:
		m |= catAFS.bit()
		if closes(catTA) {
			m |= catTA.bit()
		}
		if closes(catTS) {
			m |= catTS.bit()
		}
	}
	return m
}
