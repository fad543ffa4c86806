package asyncclock

import (
	"math"
	"math/bits"
)

// sendList is an async-before list (thesis §4.3.1): the events one chain
// sent to one looper queue, in send order. An event's predecessors by
// PRIORITY are found by walking, from the last send of each chain in its
// AsyncClock, back through these lists; the summaries in each entry let
// the walk stop early.
type sendList struct {
	q       *queue
	chain   Chain
	head    int // its index in q.heads
	entries []sendEntry
	seen    uint8 // the categories of every entry added
	has     [catAFA]bool
	max     [catAFA]int64 // per timed category, the largest time added
	min     [catAFA]int64 // and the smallest
	memos   *memos        // what the last walks of the list at begins took (nil: none yet; most lists of many loopers are walked seldom)
}

type sendEntry struct {
	// What a walk's step reads comes first, the rest (minUpto, endTS)
	// last.
	ev      *event
	end     Epoch // the event's end (or run(E)) once it finished, so walks need not look at the event
	time    int64
	maxUpto int64 // timed: the largest time of its category up to and including it
	clock   Clock // the clock of the send on the list's chain
	cat     cat
	dead    bool // found heirless: dropped at the next compaction
	// prev[c] is the distance back to the previous entry of category c
	// (0: none), so that a walk steps only on the categories it still
	// needs, and is done with a category once it passed its first entry.
	prev [numCats]uint32
	// pg is the distance back to the previous entry of its category with
	// a greater time (0: none): the entries in between have times at most
	// its own.
	pg uint32
	// ps is the distance back to the previous entry of its category with
	// a time at most its own (0: none): the entries in between have
	// greater times.
	ps      uint32
	minUpto int64   // timed: the smallest time of its category up to and including it
	endTS   float64 // the trace time of end, so that compact need not look at an event too recent to be absorbed
}

func (l *sendList) add(ev *event, clock Clock) {
	x := sendEntry{ev: ev, time: ev.time, clock: clock, cat: ev.cat}
	ev.listIdx = int32(len(l.entries))
	l.summarize(len(l.entries), &x)
	l.entries = append(l.entries, x)
	q := l.q
	sb, j := q.sends[l.chain>>chunkBits], l.chain&(chunkSize-1) // made with l
	sb.last[j], sb.head[j] = clock, int32(l.head)
	// The memos stand: they depend on settled entries only, and x is
	// pending. So does the head's last settled entry.
	if len(l.entries) == 1 {
		l.setHead()
		return
	}
	h := &q.heads[l.head]
	h.seen = l.seen
	if x.cat.timed() {
		h.maxTime = max(h.maxTime, x.time)
	}
}

// summarize sets the summaries of x, the entry at index i, from the
// entries before it, and adds x to the list's.
func (l *sendList) summarize(i int, x *sendEntry) {
	x.prev = [numCats]uint32{}
	if i > 0 {
		x.prev = l.entries[i-1].next()
	}
	x.pg, x.ps = l.previous(i, x)
	l.extend(x)
}

// extend sets the smallest and largest times of x's category up to x,
// the entry after the others summarized, and adds x to the list's
// summaries.
func (l *sendList) extend(x *sendEntry) {
	if c := x.cat; c.timed() {
		x.minUpto, x.maxUpto = x.time, x.time
		if l.has[c] {
			x.minUpto = min(l.min[c], x.time)
			x.maxUpto = max(l.max[c], x.time)
		}
		l.min[c], l.max[c], l.has[c] = x.minUpto, x.maxUpto, true
	}
	l.seen |= x.cat.bit()
}

// trim updates the summaries of the entry at index i after the first
// entries were dropped and the others kept in order, once those before
// it are (compact trims each entry as it moves it down): what summarize
// would make of it afresh, without following the distances back
// (previous). A distance to an entry that stayed stands; one to an entry
// dropped goes, as every entry before that one was dropped too. The
// distances back to a category's previous entry (prev) reach a dropped
// one only up to the first entry of that category left: gone holds the
// categories whose distances may still reach a dropped entry (the list's
// before the drop, for the first entry left), and trim returns those that
// may after x. The list's summaries must have been reset before the first
// entry left is trimmed.
func (l *sendList) trim(i int, gone uint8) uint8 {
	x := &l.entries[i]
	for m := gone; m != 0; m &= m - 1 {
		if c := bits.TrailingZeros8(m); int(x.prev[c]) > i {
			x.prev[c] = 0
		}
	}
	if int(x.pg) > i {
		x.pg = 0
	}
	if int(x.ps) > i {
		x.ps = 0
	}
	l.extend(x)
	return gone &^ x.cat.bit()
}

// previous returns the distances from index i (entry x, about to be
// there) back to the previous entry of x's category with a greater time
// (pg) and with a time at most its own (ps), following the chains of such
// entries from the previous entry of its category.
func (l *sendList) previous(i int, x *sendEntry) (pg, ps uint32) {
	if !x.cat.timed() || x.prev[x.cat] == 0 {
		return 0, 0
	}
	first := i - int(x.prev[x.cat])
	for k := first; k >= 0; {
		y := &l.entries[k]
		if y.time > x.time {
			pg = uint32(i - k)
			break
		}
		if y.pg == 0 {
			break
		}
		k -= int(y.pg)
	}
	for k := first; k >= 0; {
		y := &l.entries[k]
		if y.time <= x.time {
			ps = uint32(i - k)
			break
		}
		if y.ps == 0 {
			break
		}
		k -= int(y.ps)
	}
	return pg, ps
}

// atMost returns the index of the last entry of entry k's category, at or
// before k, with a time at most t (-1: none), jumping over greater times.
func (l *sendList) atMost(k int, t int64) int {
	for k >= 0 && l.entries[k].time > t {
		d := l.entries[k].ps
		if d == 0 {
			return -1
		}
		k -= int(d)
	}
	return k
}

// above returns the index of the last entry of entry k's category, at or
// before k, with a time above t (-1: none), jumping over times at most t.
func (l *sendList) above(k int, t int64) int {
	for k >= 0 && l.entries[k].time <= t {
		d := l.entries[k].pg
		if d == 0 {
			return -1
		}
		k -= int(d)
	}
	return k
}

// next returns the prev distances of an entry that would follow x.
func (x *sendEntry) next() (p [numCats]uint32) {
	for c := range numCats {
		switch {
		case x.cat == c:
			p[c] = 1
		case x.prev[c] > 0:
			p[c] = x.prev[c] + 1
		}
	}
	return p
}

// search returns the index of the last entry sent at or before clock v of
// the list's chain, or -1. A send usually knows the chain's recent sends
// (app 100k: of 300k searches from head, 77% land one to three entries
// from the end), so it searches back from the last entry, in steps that
// double, and then between the last two it probed: a few entries next to
// each other rather than a bisection's probes across the list, each a
// cache miss.
func (l *sendList) search(v Clock) int {
	hi := len(l.entries) // l.entries[hi:] are sent after v
	lo := hi - 1
	for step := 1; lo >= 0 && l.entries[lo].clock > v; step *= 2 {
		hi = lo
		lo -= step
	}
	lo = max(lo, -1)
	// l.entries[lo] (if lo ≥ 0) is sent at or before v; l.entries[hi:] after.
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if l.entries[m].clock <= v {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// index returns the index of ev's entry in the list, or -1 if it left
// it: where it was added, unless a compaction moved it since.
func (l *sendList) index(ev *event) int {
	i := int(ev.listIdx)
	if i >= len(l.entries) || l.entries[i].ev != ev {
		i = l.search(ev.sendEpoch.Clock())
	}
	if i >= 0 && l.entries[i].ev == ev {
		return i
	}
	return -1
}

// finished records that ev, sent at clock k of the list's chain, finished.
func (l *sendList) finished(ev *event) {
	if i := l.index(ev); i >= 0 {
		x := &l.entries[i]
		x.end, x.endTS = ev.endEpoch(), ev.endTS
		if l.memos != nil {
			l.memos.settled(x)
		}
		// The head changes only if x is its last settled entry now
		// (or was, removed, and now has an end).
		if h := &l.q.heads[l.head]; h.settled == 0 || i >= int(h.settledIdx) {
			h.settleAt(x, i)
		}
	}
}

// moved updates the list's head after entries were dropped, or one was
// removed (it settled, without an end yet), which makes its memos stale.
func (l *sendList) moved() {
	if l.memos != nil {
		l.memos.key = [memoSlots]memoKey{}
	}
	l.setHead()
}

// setHead updates the list's head from its entries. (add and finished
// update it for the entry they change, without the look back for the
// last settled entry, which reads the events.)
func (l *sendList) setHead() {
	l.q.heads[l.head] = l.freshHead()
}

// freshHead returns the list's head as its entries say.
func (l *sendList) freshHead() listHead {
	h := listHead{l: l, chain: l.chain, seen: l.seen, maxTime: math.MinInt64}
	h.endedFrom = l.q.heads[l.head].endedFrom // the last compaction's: the entries do not tell it
	if len(l.entries) == 0 {
		return h
	}
	h.first = l.entries[0].clock
	for c := range catAFA {
		if l.has[c] {
			h.maxTime = max(h.maxTime, l.max[c])
		}
	}
	for i := len(l.entries) - 1; i >= 0; i-- {
		if x := &l.entries[i]; x.ev.settled() {
			h.settleAt(x, i)
			break
		}
	}
	return h
}

// settleAt makes x, the entry at index i, the head's last settled entry.
func (h *listHead) settleAt(x *sendEntry, i int) {
	h.settled, h.end, h.cat, h.time, h.settledIdx = x.clock, x.end, x.cat, x.time, int32(i)
}

// sendBlock is what a looper queue keeps by chain, for a block of
// chunkSize chains (as a Time's blocks) of which some sent to it, so
// that a walk rules most chains out without a look at their lists. The
// last sends' clocks are an array of their own, as a Time's block, so
// that reducedPriority compares them with its reference's 32 at a time
// (lanesAboveBoth). A queue has one only for the blocks whose chains
// sent to it: with many loopers, each of its own block, a queue hears
// from few of them.
type sendBlock struct {
	last   [chunkSize]Clock     // per chain: at least the clock of its last send listed (0: none)
	head   [chunkSize]int32     // per chain: the index of its list's head, unless a collection moved it since
	lists  [chunkSize]*sendList // per chain: its list (nil: none)
	listed uint32               // a bit for each chain with a list
}

// listHead is a list as its queue's walks see it first: whether a send
// time knows any of its entries, and whether its last settled entry
// accounts for all the entries before it, without touching the list. The
// entries after the last settled one are pending.
type listHead struct {
	l          *sendList
	end        Epoch // the end of the last settled entry's event, if it finished (0 for a removed event not resolved yet)
	time       int64 // the last settled entry's time
	maxTime    int64 // the largest time of its timed entries
	chain      Chain
	first      Clock // the clock of its first entry; 0 if it is empty
	settled    Clock // of its last settled entry; 0 if none
	settledIdx int32 // its index
	cat        cat   // the last settled entry's category
	seen       uint8 // the categories of its entries
	// endedFrom is a trace time at or after which every entry's event
	// that finished did, as of the last compaction (0 before the first):
	// the list has nothing to drop while it is within the window (see
	// compact). It is kept here, not in the list, so that a collection
	// passes over such a list without a look at it; with it a head takes
	// 64 bytes, one cache line.
	endedFrom float64
}
