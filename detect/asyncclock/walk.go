package asyncclock

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"unsafe"

	"github.com/licorice-dev/licorice/traces"
)

// walkMode says what to do with a predecessor that has not finished.
type walkMode uint8

const (
	// strict: the trace contradicts the model (the start being computed
	// is a real begin, or a removed event a real begin needs).
	strict walkMode = iota
	// tentative: learn what can be learned, and give up for now
	// (errNotYet); used to resolve removed events early.
	tentative
	// final: the trace is over; the predecessor never finished, so it
	// orders nothing.
	final
)

var errNotYet = errors.New("asyncclock: a predecessor has not finished yet")

// walk computes the start of one event: what its begin (or, for a
// removed event, run(E)) knows.
type walk struct {
	e      *Engine
	target *event
	mode   walkMode
	b      *builder // the time of the start being computed
	outer  *walk    // the walk whose event needs target, a removed event
	seen   map[*event]bool
	// incomplete: a tentative walk met a predecessor that has not finished
	incomplete bool
	// atomicWalk numbers the walk once atomic kept a snapshot of what it
	// looked at (see atomicSnap); 0 before
	atomicWalk uint64
	// recording: walkList notes the entries it takes for a memo, the
	// first memoSize of them in took, and counts them in ntook
	recording bool
	took      [memoSize]*sendEntry
	ntook     int
}

// through walks, for the walk's event, the AsyncClock of the send of p, a
// predecessor that never finished (final mode only).
func (w *walk) through(p *event) error {
	if w.seen[p] {
		return nil
	}
	if w.seen == nil {
		w.seen = make(map[*event]bool)
	}
	w.seen[p] = true
	return w.priority(p.send)
}

// finish returns the time at p's finish — end(p), or run(p) for a removed
// p, which it resolves — or nil if p needs no look (it was reclaimed after
// its looper's window clock absorbed it) or did not finish (final and
// tentative walks).
func (w *walk) finish(p *event, rule Rule) (*Time, error) {
	if p.absorbed && p.refs == 0 {
		return nil, nil // reclaimed: every begin of its looper knows it (the window clock)
	}
	switch p.status {
	case evEnded, evResolved:
	case evRemoved:
		if err := w.e.resolve(p, w); err != nil {
			if errors.Is(err, errNotYet) {
				w.incomplete = true
				return nil, nil
			}
			return nil, err
		}
	case evResolving:
		return nil, fmt.Errorf("asyncclock: removed event %s depends on itself", w.e.name(p.id))
	default: // pending or running
		switch w.mode {
		case final:
			return nil, nil
		case tentative: // go on: what else it finds holds, and is kept
			w.incomplete = true
			return nil, nil
		}
		return nil, w.conflict(p, rule)
	}
	return &p.end, nil
}

// pred makes the start being built know that p finished, if it did not;
// it reports whether the start grew.
func (w *walk) pred(p *event, rule Rule) (bool, error) {
	if p.finished() && w.b.covers(p.endEpoch()) {
		return false, nil
	}
	f, err := w.finish(p, rule)
	if f == nil || err != nil {
		return false, err
	}
	if w.b.covers(p.endEpoch()) {
		return false, nil
	}
	w.b.learnFinish(p, *f)
	w.e.stats.PredsJoined++
	return true, nil
}

// conflict describes a predecessor p of the walk's event that has not
// finished although the event starts now.
func (w *walk) conflict(p *event, rule Rule) error {
	e := w.e
	top := w
	for top.outer != nil {
		top = top.outer
	}
	how := "still pending"
	if p.status == evRunning {
		how = "still running"
	}
	detail := fmt.Sprintf("event %s began while event %s (sent at line %d) was %s, but rule %s orders %s before %s",
		e.name(top.target.id), e.name(p.id), p.sendLine, how, rule, e.name(p.id), e.name(w.target.id))
	for x := w; x.outer != nil; x = x.outer {
		detail += fmt.Sprintf(", a removed event ordered before %s", e.name(x.outer.target.id))
	}
	return &ConflictError{
		File: e.file, Line: e.line, Rule: rule,
		First: e.name(p.id), FirstLine: p.sendLine, Second: e.name(top.target.id),
		Detail: detail,
	}
}

// priority joins into the start the PRIORITY predecessors of the walk's event:
// the events sent to its queue before it (as far as send, its send's
// time, knows) that Table 3.1 runs first. It walks, for each chain that
// sent to the queue, that chain's async-before list back from the last
// send that send knows (the chain's entry in the AsyncClock of the queue,
// read off the clock), stopping as soon as every earlier entry is
// accounted for.
func (w *walk) priority(send Time) error {
	need := predCats[w.target.cat]
	if need == 0 {
		return nil
	}
	for i := range w.target.q.heads {
		h := &w.target.q.heads[i]
		if err := w.head(h, send.Get(h.chain), 0, need); err != nil {
			return err
		}
	}
	return w.checkPriority(nil)
}

// reducedPriority is priority for the begin of an event E whose send
// knows the send of prev, an event of the same queue, category and time,
// ended or removed (see reducer): prev precedes E (Table 3.1), and so
// does every entry that precedes E and that prev's send knew, as it
// precedes prev too (Table 3.1 orders it before prev exactly when before
// E); prev's end accounts for them (run(prev) if it was removed, which it
// resolves first: its walk joined them too). So only the lists of the
// chains of which send knows more than prev's send knew, and that sent
// to the queue after what prev's send knew, are walked, with E's
// sender's own list, whose last send send's blocks may not show (a
// time's top), and each only down to the entries prev's send knew
// (head): the reduction of the AsyncClock at a send (thesis §4.1.3), read
// off the difference of two clocks that share most of their blocks.
func (w *walk) reducedPriority(send Time, prev *event) error {
	ev := w.target
	need := predCats[ev.cat]
	if need == 0 {
		return nil
	}
	q, own := ev.q, ev.list
	if _, err := w.pred(prev, Priority); err != nil || !prev.finished() {
		return err // prev removed and not resolved: a tentative walk gives up on it, and on ev (incomplete)
	}
	base := prev.send
	if err := w.head(&q.heads[own.head], send.Get(own.chain), base.Get(own.chain), need); err != nil {
		return err
	}
	for p, sp := range send.pages {
		if p<<pageBits >= len(q.sends) {
			break // chains past q.sends never sent to q
		}
		var bp *page // base's blocks of the page
		if p < len(base.pages) {
			bp = base.pages[p]
		}
		if sp == &noBlocks || sp == bp {
			continue // it knows nothing more of these chains
		}
		if err := w.reducedPage(q, own, p, sp, bp, need); err != nil {
			return err
		}
	}
	return w.checkPriority(prev)
}

// reducedPage is reducedPriority's walk of the chains of send's page p,
// sp, whose blocks in base are bp's (nil: none).
func (w *walk) reducedPage(q *queue, own *sendList, p int, sp, bp *page, need uint8) error {
	var none [chunkSize]Clock
	for x, sc := range sp[:min(pageSize, len(q.sends)-p<<pageBits)] {
		i := p<<pageBits | x
		sends := q.sends[i]
		if sc == nil || sends == nil {
			continue
		}
		listed := sends.listed // the chains of the block that have a list
		known := &none         // base's clocks of these chains
		if bp != nil && bp[x] != nil {
			if sc == bp[x] {
				continue // it knows nothing more of these chains
			}
			known = &bp[x].clocks
		}
		// The chains of which send knows more than base, and that sent
		// to q after what base knew (else prev's send knew every send of
		// the chain to q that send knows): with AVX2 both tests 32
		// lanes at a time, as most lanes fail one (app 100k: of 1.83M
		// lanes where send knows more, 939k fail the second).
		m := listed
		if bits.OnesCount32(listed) > fewLanes {
			if vecBlocks {
				m &= lanesAboveBoth(&sc.clocks, &sends.last, known)
			} else { // the last sends one by one below: a second lanesAbove costs more (app 100k: +75M instructions)
				m &= lanesAbove(&sc.clocks, known)
			}
		}
		for ; m != 0; m &= m - 1 {
			j := bits.TrailingZeros32(m)
			if sc.clocks[j] <= known[j] || sends.last[j] <= known[j] {
				continue // a lane not compared yet, or lanesAbove said more than there is
			}
			c := Chain(i<<chunkBits | j)
			if c == own.chain {
				continue
			}
			h := q.headOf(c)
			if h == nil {
				continue
			}
			if err := w.head(h, sc.clocks[j], known[j], need); err != nil {
				return err
			}
		}
	}
	return nil
}

// fewLanes is the most chains of a block with a list for which
// reducedPriority compares their clocks one by one rather than all 32
// with lanesAbove, which costs about 80 instructions whatever the block
// holds (app 30k, cachegrind: 4, 8, 12 and 32 (never lanesAbove) take
// 1.4185G, 1.4114G, 1.4086G and 1.4002G instructions, and mispredict
// 14.44M, 14.50M, 14.56M and 14.84M branches). With AVX2, both of a
// block's tests (the send's clocks, and the last sends') take about 45
// instructions (lanesAboveBoth), but reading the three arrays whole
// costs more misses than a few lanes one by one (app 100k: 0 instead of
// 8, the same instructions and +268k D1 read misses).
const fewLanes = 8

// checkPriority checks, for tests (Engine.checkWalks), that the heads of
// the queue's lists are what their entries say, and the start after a
// begin's PRIORITY walk against the obvious: it knows the end of every
// finished entry of its queue's lists that the event's send knows and
// that Table 3.1 orders before it, however the walk got there (heads,
// memos, the reference's send); and the walk's reference prev, if any,
// is one of them, which it checks for removed events' walks too (and
// counts the references that were removed events, in resolvedRefs).
func (w *walk) checkPriority(prev *event) error {
	ev := w.target
	if !w.e.checkWalks {
		return nil
	}
	if prev != nil && !(prev.finished() && prev.q == ev.q && priority(prev.cat, prev.time, ev.cat, ev.time) && ev.send.Covers(prev.sendEpoch)) {
		return fmt.Errorf("asyncclock: at the begin or run of %s, PRIORITY was reduced against %s, which does not precede it",
			w.e.name(ev.id), w.e.name(prev.id))
	}
	if prev != nil && prev.status == evResolved {
		w.e.resolvedRefs++
	}
	if w.mode != strict || w.outer != nil {
		return nil
	}
	for _, h := range ev.q.heads {
		l := h.l
		if h != l.freshHead() {
			return fmt.Errorf("asyncclock: at the begin of %s, the head of the list of chain %d is %+v, but its entries say %+v",
				w.e.name(ev.id), l.chain, h, l.freshHead())
		}
		v := ev.send.Get(l.chain)
		for i := range l.entries {
			x := &l.entries[i]
			if x.clock > v {
				break
			}
			if x.ev != ev && x.ev.finished() && !x.ev.absorbed && priority(x.cat, x.time, ev.cat, ev.time) && !w.b.covers(x.ev.endEpoch()) {
				return fmt.Errorf("asyncclock: at the begin of %s, PRIORITY missed %s (sent on chain %d at clock %d), which precedes it",
					w.e.name(ev.id), w.e.name(x.ev.id), l.chain, x.clock)
			}
		}
	}
	return nil
}

// removedPriority is priority for the run(E) of the walk's event, a
// removed one: reduced against a reference (see reducedPriority) as at a
// begin, as the same argument holds for run(E) (PRIORITY orders run(E)
// as it would order begin(E)), but without noting the event as begun
// (reducer; resolve notes it once resolved, as a reference for later
// events). A removed event's walks use no memos, so without a reference
// it would walk most lists of its queue.
func (w *walk) removedPriority() error {
	ev := w.target
	if l := ev.list; l != nil && ev.cat.timed() && ev.q.list(l.chain) == l {
		var recent *recentBegun
		if ev.q.lastBegun != nil {
			recent = ev.q.lastBegun.peek(catTime{ev.cat, ev.time})
		}
		if prev := w.reference(recent); prev != nil {
			return w.reducedPriority(ev.send, prev)
		}
	}
	return w.priority(ev.send)
}

// head walks, for priority, the list of one chain's sends to the queue
// back from the last one the send knows, at clock v of the chain. The
// entries at or before clock known are accounted for already: the send of
// reducedPriority's reference knew them (0: none).
func (w *walk) head(h *listHead, v, known Clock, need uint8) error {
	if h.first == 0 || v < h.first {
		return nil // it knows none of the chain's sends still listed
	}
	if need&h.seen == 0 {
		// None of its entries is of a category Table 3.1 may order
		// before the event (app 100k: 16% of the heads visited), which
		// a walk, or a memo look-up, would find out only in the list.
		return nil
	}
	l := h.l
	if w.mode == strict {
		// Entries after the last settled one are pending: none can
		// precede the event (pendingPreds checks it).
		if h.settled == 0 || h.settled <= known {
			return nil
		}
		if v >= h.settled {
			// The head answers for its entry without a look at the list.
			if ok, join := w.suffices(h.cat, h.time, h.end, need&h.seen, h.maxTime); ok {
				return nil
			} else if join {
				return w.joinLast(l, int(h.settledIdx))
			}
			if w.outer != nil { // resolving a removed event: no pendingPreds check came first
				return w.walkList(l, int(h.settledIdx), need, known)
			}
			return w.memoWalk(h, need, int(h.settledIdx), allSettled, known)
		}
	}
	start := len(l.entries) - 1
	if l.entries[start].clock > v {
		start = l.search(v)
	}
	if l.entries[start].clock <= known {
		return nil // the reference's send knew every entry the send knows
	}
	// Often the last entry the send knows accounts for the others alone.
	if x := &l.entries[start]; w.mode == strict && x.ev != w.target {
		if ok, join := w.suffices(x.cat, x.time, x.end, need&h.seen, h.maxTime); ok {
			return nil
		} else if join {
			return w.joinLast(l, start)
		}
	}
	if w.mode == strict && w.outer == nil {
		return w.memoWalk(h, need, start, l.entries[start].clock, known)
	}
	return w.walkList(l, start, need, known)
}

const (
	memoSize  = 4 // the most entries a memo holds
	memoSlots = 8 // memos per list
)

// memos are what the last walks of a list at begins took, so that a later
// begin with the same key does without the walk.
//
// Why that is exact. At the begin of an event E, the list's walk must make
// the start know the ends of P, the entries of the list that E's send
// knows and that Table 3.1 orders before E: those up to the last one the
// send knows (upto: its clock; allSettled if the send knows every settled
// entry) whose category is in predCats[E.cat] and, if timed, whose time is
// at most E's. P holds no pending entry (pendingPreds reports one first as
// a contradiction), so P is a set of settled entries decided by them and
// the key alone: upto; need, the categories of predCats[E.cat] the list
// has; and E's time, which counts only up to the list's largest time
// (every timed entry is at most either). The list's categories and largest
// time only grow until a compaction, so a key names the same P later as
// long as the settled entries are the same. The walk makes the start know
// the ends of the entries it takes (it joins them, or the start knew them
// already) and of nothing else, and every other entry of P precedes one of
// those (PRIORITY within one chain's sends, Table 3.1 being transitive).
// So the start after the walk is the start before it joined with the ends
// of the entries taken, whatever it knew before, and a later begin with
// the same key joins those ends instead of walking.
//
// A new entry is pending and changes no P. An entry that settles joins the
// P of the keys whose upto it is not after and that Table 3.1 orders it
// for: their memos take it too (settled), or go stale if full. An entry
// removed, or dropped by a compaction, makes every memo of the list stale
// (moved clears the keys). A walk that met an at-front entry, took more
// than memoSize entries, or stopped at the entries a reference accounts
// for (walkList's known), leaves no memo. Removed events are resolved by
// walks without memos (their starts had no pendingPreds check).
type memos struct {
	// The keys, apart from what they hold, so that a look-up reads two
	// cache lines and compares one word per slot, mostly.
	key  [memoSlots]memoKey // upto and need; 0: the slot is empty or stale
	time [memoSlots]int64   // E's time, or math.MaxInt64 if at least the list's largest
	n    [memoSlots]uint8   // entries held
	next uint8              // the slot the next memo takes
	took [memoSlots][memoSize]memoEntry
}

// memoKey is a memo's upto (the clock of the last entry E's send knows,
// or allSettled) and need (predCats[E.cat] & the list's categories) in one
// word, with a bit that no empty or stale slot has.
type memoKey uint64

const memoLive = 1 << 7 // above every category's bit

var _ = [1]struct{}{}[memoLive>>numCats-2] // the categories' bits are below memoLive

func makeMemoKey(upto Clock, need uint8) memoKey {
	return memoKey(upto)<<8 | memoLive | memoKey(need)
}

func (k memoKey) upto() Clock { return Clock(k >> 8) }
func (k memoKey) need() uint8 { return uint8(k) &^ memoLive }

// allSettled is a memo's upto when E's send knows every settled entry.
const allSettled = ^Clock(0)

// memoEntry is an entry a walk took: the end of its event, and its
// clock, by which the list finds it (the entry stays while the memo does).
// It holds no pointer, so that the collector need not look at memos.
type memoEntry struct {
	end   Epoch
	clock Clock
}

// settled updates the memos after entry x of their list settled (its
// event finished): x joins the entries a memo took if it is one of its P,
// and a memo that cannot hold it, or whose P it joins without finishing,
// goes stale; the others stand.
func (ms *memos) settled(x *sendEntry) {
	for k := range memoSlots {
		key := ms.key[k]
		if key == 0 || x.clock > key.upto() || key.need()&x.cat.bit() == 0 || (x.cat.timed() && x.time > ms.time[k]) {
			continue // not one of its P
		}
		if n := ms.n[k]; x.cat.timed() && x.ev.finished() && n < memoSize {
			// First: the took entries are the latest first, so that a
			// later one that knows an earlier one's end saves its join.
			t := &ms.took[k]
			copy(t[1:n+1], t[:n])
			t[0] = memoEntry{x.end, x.clock}
			ms.n[k]++
		} else {
			ms.key[k] = 0
		}
	}
}

// memoWalk is, at a begin, the walk of h's list from entry start, the
// last one the begin's send knows (upto: its clock, or allSettled for the
// last settled entry when the send knows every settled one), or what a
// memo of an earlier such walk says it would do (see memos). The entries
// at or before clock known are accounted for (see head).
func (w *walk) memoWalk(h *listHead, need uint8, start int, upto, known Clock) error {
	t := w.target.time
	if t >= h.maxTime {
		t = math.MaxInt64
	}
	l := h.l
	ms := l.memos
	key := makeMemoKey(upto, need&h.seen)
	for k := range memoSlots {
		if ms == nil {
			break
		}
		if ms.key[k] != key || ms.time[k] != t {
			continue
		}
		w.e.stats.MemoWalks++
		took := ms.took[k][:ms.n[k]]
		for _, x := range took {
			if !w.b.covers(x.end) {
				if _, err := w.pred(l.entries[l.search(x.clock)].ev, Priority); err != nil {
					return err
				}
			}
		}
		if w.e.checkWalks {
			return w.checkMemo(l, took, upto)
		}
		return nil
	}
	w.recording, w.ntook = true, 0
	err := w.walkList(l, start, need, known)
	w.recording = false
	n := w.ntook
	if err != nil || n > memoSize {
		return err
	}
	var took [memoSize]memoEntry
	for i, x := range w.took[:n] {
		if x.end == 0 { // a removed event not resolved
			return nil
		}
		took[i] = memoEntry{x.end, x.clock}
	}
	if ms == nil {
		ms = new(memos)
		l.memos = ms
	}
	k := ms.next
	ms.next = (k + 1) % memoSlots
	ms.key[k], ms.time[k], ms.n[k], ms.took[k] = key, t, uint8(n), took
	return nil
}

// checkMemo checks, for tests, the start after a memo of list l was used
// at a begin whose send knows the entries of l up to clock v against the
// obvious: every entry the memo took is one of P (see memos), with the
// end it had, and the start knows the end of every finished entry of P.
func (w *walk) checkMemo(l *sendList, took []memoEntry, v Clock) error {
	ev := w.target
	inP := func(x *sendEntry) bool {
		return x.clock <= v && x.ev != ev && x.ev.settled() && priority(x.cat, x.time, ev.cat, ev.time)
	}
	for _, m := range took {
		i := l.search(m.clock)
		if i < 0 || l.entries[i].clock != m.clock || !inP(&l.entries[i]) || m.end != l.entries[i].ev.endEpoch() {
			return fmt.Errorf("asyncclock: at the begin of %s, a memo of the list of chain %d took the send at clock %d, which does not precede it (or not at that end)",
				w.e.name(ev.id), l.chain, m.clock)
		}
	}
	for i := range l.entries {
		if x := &l.entries[i]; inP(x) && x.ev.finished() && !w.b.covers(x.ev.endEpoch()) {
			return fmt.Errorf("asyncclock: at the begin of %s, a memo of the list of chain %d missed %s, which precedes it",
				w.e.name(ev.id), l.chain, w.e.name(x.ev.id))
		}
	}
	return nil
}

// lanesAbove returns the set of lanes j (bit j) where u[j] > t[j], and
// perhaps others where t[j] ≥ 1<<31 (never on real traces): anyAbove's
// test, two clocks at a time, kept per lane.
func lanesAbove(u, t *[chunkSize]Clock) uint32 {
	const h = 0x8000_0000_8000_0000
	uw := (*[chunkSize / 2]uint64)(unsafe.Pointer(u))
	tw := (*[chunkSize / 2]uint64)(unsafe.Pointer(t))
	above := func(j int) uint32 {
		a := ^((tw[j] | h) - (uw[j] &^ h)) | (uw[j] &^ tw[j])
		return uint32(a>>31&1|a>>62&2) << (2 * j)
	}
	// Unrolled, as anyAbove.
	return above(0) | above(1) | above(2) | above(3) | above(4) | above(5) | above(6) | above(7) |
		above(8) | above(9) | above(10) | above(11) | above(12) | above(13) | above(14) | above(15)
}

// lanesAbove, lanesDiffer and ATOMIC's atomicBlock hold a block's lanes in 32
// bits: a block must be 32 clocks exactly.
var _ = [1]struct{}{}[chunkSize-32]

// headOf returns the head of the list of chain c's sends to q, or nil,
// by the index q.sends keeps, checked: a collection may have moved it.
func (q *queue) headOf(c Chain) *listHead {
	sb := q.sends[c>>chunkBits] // c has a list
	hd := &sb.head[c&(chunkSize-1)]
	if i := int(*hd); i < len(q.heads) && q.heads[i].chain == c && q.heads[i].l != nil {
		return &q.heads[i]
	}
	l := q.list(c)
	if l == nil {
		return nil
	}
	*hd = int32(l.head)
	return &q.heads[l.head]
}

// reducer returns an event of ev's queue, of the same category and time
// as ev, ended or removed (the walk resolves it first: it precedes ev,
// which needs run(E) anyway), whose send ev's send knows and whose send
// time is still held (see reducedPriority), or nil: of the last one ev's
// sender sent before ev and the last events of that category and time the
// queue's looper began or resolved (delayed ones: at-time events seldom
// share a time), the one sent last. It notes ev as begun.
func (w *walk) reducer() *event {
	ev := w.target
	if ev.list == nil || !ev.cat.timed() {
		return nil
	}
	recent := ev.q.recent(ev)
	p := w.reference(recent)
	if recent != nil {
		recent.add(ev)
	}
	return p
}

// recent returns the ring of the last events of ev's category and time
// that q, a looper's queue, began or resolved, for the delayed
// categories (at-time events seldom share a time), or nil.
func (q *queue) recent(ev *event) *recentBegun {
	if q.binder || ev.cat != catDA && ev.cat != catDS {
		return nil
	}
	if q.lastBegun == nil {
		q.lastBegun = new(begunTable)
	}
	return q.lastBegun.of(catTime{ev.cat, ev.time})
}

// reference returns reducer's choice, of the events ev's sender sent
// before it and of the latest in recent: the one sent last, whose send
// usually knows the most of what ev's send knows, which leaves the fewest
// chains to walk (app 30k: 2.9% fewer instructions than the sender's own,
// if any, before recent); else the latest of the older ones in recent.
func (w *walk) reference(recent *recentBegun) *event {
	ev, l := w.target, w.target.list
	usable := func(p *event) bool {
		return p != nil && p != ev && p.cat == ev.cat && p.time == ev.time && (p.finished() || p.status == evRemoved) && p.send.top != 0
	}
	var best *event
	if i := l.index(ev); i >= 0 {
		for range 4 {
			d := l.entries[i].prev[ev.cat]
			if d == 0 {
				break
			}
			i -= int(d)
			if x := &l.entries[i]; x.time == ev.time && usable(x.ev) {
				best = x.ev
				break
			}
		}
	}
	if recent != nil {
		var bestSeq int64 // best's sendSeq; sends are numbered from 1
		if best != nil {
			bestSeq = best.sendSeq
		}
		for k := range recentBest {
			// The ring's copies of the send's number (0: an empty slot)
			// and epoch first: most of the latest were sent before the
			// best so far, or (app 1M: 72% of the others) by a send
			// ev's does not know, and neither they nor their slot of the
			// ring's events are read. (The copies are the event's while
			// its send number is the ring's.)
			if seq := recent.latestSeq(k); seq > bestSeq && ev.send.Covers(recent.latestSend(k)) {
				if p := recent.latest(k); p.sendSeq == seq && usable(p) {
					best, bestSeq = p, seq
				}
			}
		}
		// None of those: the latest of the older ones, which a send
		// from a thread that seldom hears from the looper may know.
		for k := recentBest; best == nil && k < recentSize; k++ {
			if seq := recent.latestSeq(k); seq != 0 && ev.send.Covers(recent.latestSend(k)) {
				if p := recent.latest(k); p.sendSeq == seq && usable(p) {
					best = p
				}
			}
		}
	}
	return best
}

// recentBegun holds the last events of one category and time a looper
// queue began or resolved, in a ring. It holds them without a reference:
// an event may be reclaimed and recycled (Engine.recycle) as another
// while in the ring, which its readers tell by the send number (seq) the
// ring noted.
type recentBegun struct {
	next uint8 // where the next one goes; first, in the line of the slot's key
	ev   [recentSize]*event
	seq  [recentSize]int64 // their sendSeq, read without the events
	send [recentSize]Epoch // and their sendEpoch
}

const (
	recentSize = 32 // events kept per category and time
	recentBest = 8  // the latest of them, of which reference takes the one sent last
)

func (r *recentBegun) add(ev *event) {
	r.ev[r.next], r.seq[r.next], r.send[r.next] = ev, ev.sendSeq, ev.sendEpoch
	r.next = (r.next + 1) % recentSize
}

// latest returns the k-th latest event begun (0: the last one), or nil.
func (r *recentBegun) latest(k int) *event {
	return r.ev[(int(r.next)-1-k+recentSize)%recentSize]
}

// latestSeq returns the sendSeq of the k-th latest event begun (0 if none).
func (r *recentBegun) latestSeq(k int) int64 {
	return r.seq[(int(r.next)-1-k+recentSize)%recentSize]
}

// latestSend returns the sendEpoch of the k-th latest event begun (0 if
// none).
func (r *recentBegun) latestSend(k int) Epoch {
	return r.send[(int(r.next)-1-k+recentSize)%recentSize]
}

// begunTable holds the last events a looper queue began of a few delayed
// categories and times: a table of slots by a hash of the two, each
// holding the category and time that took it last. A category and time
// that loses its slot loses only the references it held. A slot is made
// when first taken: most loopers use one or two (an app may have
// thousands of them), and a slot is 800 bytes.
type begunTable [1 << begunBits]*begunSlot

type begunSlot struct {
	key    catTime
	recent recentBegun
}

const begunBits = 6

// of returns the last events begun of category and time key, which take
// their slot from any other.
func (t *begunTable) of(key catTime) *recentBegun {
	p := t.slot(key)
	switch s := *p; {
	case s == nil:
		*p = &begunSlot{key: key}
	case s.key != key:
		s.key, s.recent = key, recentBegun{}
	}
	return &(*p).recent
}

// peek returns the last events begun of category and time key, or nil if
// its slot is another's.
func (t *begunTable) peek(key catTime) *recentBegun {
	if s := *t.slot(key); s != nil && s.key == key {
		return &s.recent
	}
	return nil
}

func (t *begunTable) slot(key catTime) **begunSlot {
	h := (uint64(key.time)<<1 | uint64(key.cat&1)) * 0x9e37_79b9_7f4a_7c15 // Fibonacci hashing: the top bits
	return &t[h>>(64-begunBits)]
}

// catTime is a category and a time of Table 3.1.
type catTime struct {
	cat  cat
	time int64
}

// joinLast joins the end of entry i of list l, the last one the walk's
// event's send knows, which accounts for the list once joined (suffices
// said join): what the walk of the list would join first (it takes the
// latest entry first, and then stops), without the walk or a memo look-up
// (app 100k: 34k times at begins, of the 434k lists that went on to a
// memo or a walk before).
func (w *walk) joinLast(l *sendList, i int) error {
	_, err := w.pred(l.entries[i].ev, Priority)
	return err
}

// suffices reports whether an entry of a list (of category c and time t,
// whose event finished at end; 0 if it did not), the last one the walk's
// event's send knows, is a predecessor the start knows has finished and
// that every entry before it that precedes the event precedes too (ok),
// or would be one once the start learns its end (join). need holds the
// categories of those entries that may precede the event, and maxTime is
// at least the largest time of those timed. The pending entries before it
// cannot precede the event (the trace would contradict the model:
// pendingPreds checks that), nor could it have run. Only for strict
// walks.
func (w *walk) suffices(c cat, t int64, end Epoch, need uint8, maxTime int64) (ok, join bool) {
	ev := w.target
	if end == 0 || !c.timed() || !priority(c, t, ev.cat, ev.time) {
		return false, false
	}
	closed := catAFA.bit()
	dominated := t >= ev.time || maxTime <= t
	switch c {
	case catDS:
		closed |= catAFS.bit()
		if dominated {
			closed |= catDA.bit() | catDS.bit()
		}
	case catTS:
		closed |= catAFS.bit()
		if dominated {
			closed |= catTA.bit() | catTS.bit()
		}
	default:
		if dominated {
			closed |= c.bit()
		}
	}
	if need&^closed != 0 {
		return false, false
	}
	covered := w.b.covers(end)
	return covered, !covered
}

// pendingPreds reports, at the begin of the walk's event, a pending event
// of its queue that Table 3.1 orders before it: the trace contradicts the
// model (the walks skip pending entries they know cannot be predecessors
// in a consistent trace).
//
// As it looks at every event of the queue's pending list, it drops those
// that began or were resolved (prunePending drops them only from the
// front, or once the list doubled): the next begin has fewer to look at.
func (w *walk) pendingPreds() error {
	ev := w.target
	q := ev.q
	kept := q.pending[:0]
	var err error
	for _, p := range q.pending {
		if !p.unstarted() {
			p.queued = false
			continue
		}
		kept = append(kept, p)
		if err == nil && priority(p.cat, p.time, ev.cat, ev.time) && p != ev && p.status == evPending && ev.send.Covers(p.sendEpoch) {
			err = w.conflict(p, Priority)
		}
	}
	clear(q.pending[len(kept):])
	q.pending, q.kept = kept, len(kept)
	return err
}

// walkList walks l back from entry start for the categories in open,
// down to the entries at or before clock known, which a reference
// accounts for (see head). A walk that stops there leaves no memo: it did
// not take what a begin without that reference would need.
func (w *walk) walkList(l *sendList, start int, open uint8, known Clock) error {
	ev := w.target
	// floor[c]: the earlier entries of category c with a time at most this
	// precede a predecessor already accounted for (Table 3.1 is
	// transitive), so they need no look.
	floor := noFloor
	// cur[c]: the next entry of category c to look at (-1: none). The walk
	// takes the latest of them each time, so that what an entry teaches
	// (floors, closed categories) applies to all the entries after it.
	cur := noCur
	if start >= 0 {
		x := &l.entries[start]
		for m := open; m != 0; m &= m - 1 {
			c := cat(bits.TrailingZeros8(m))
			if x.cat == c {
				cur[c] = start
			} else if x.prev[c] > 0 {
				cur[c] = start - int(x.prev[c])
			}
		}
	}
	for {
		c, i := cat(0), -1
		for m := open; m != 0; m &= m - 1 { // the categories still open
			if d := cat(bits.TrailingZeros8(m)); cur[d] > i {
				c, i = d, cur[d]
			}
		}
		if i < 0 {
			return nil
		}
		p := &l.entries[i]
		if p.clock <= known {
			w.ntook = memoSize + 1 // no memo: it took none of the entries known accounts for
			return nil
		}
		w.e.stats.WalkSteps++
		cur[c] = i - int(p.prev[c]) // the next entry of c, unless skipped below
		if p.prev[c] == 0 {
			cur[c] = -1
		}
		if p.ev == ev {
			continue
		}
		joined := false // p is a predecessor now accounted for
		switch {
		case !c.timed(): // an at-front entry: it and all before it of its category precede ev
			w.ntook = memoSize + 1 // no memo: the joins of at-front entries are cached per entry
			if err := w.atFrontList(l, i); err != nil {
				return err
			}
			open &^= c.bit()
		case p.time <= floor[c]:
			// precedes a predecessor accounted for
		case p.time > ev.time: // Table 3.1 does not order it before ev
			if p.minUpto > ev.time {
				open &^= c.bit() // nor any earlier entry of its category
				break
			}
			// Nor the earlier entries of c with greater times.
			cur[c] = l.atMost(cur[c], ev.time)
		case p.end != 0 && w.b.covers(p.end):
			joined = true // known to have finished already
		case w.mode == final && (p.ev.status == evPending || p.ev.status == evRunning):
			// p never finished, so nothing follows from it: the earlier
			// entries it would stand for, and those its send knew, precede
			// ev directly.
			if err := w.through(p.ev); err != nil {
				return err
			}
		default:
			if _, err := w.pred(p.ev, Priority); err != nil {
				return err
			}
			joined = true
		}
		if joined {
			if w.recording {
				if w.ntook < memoSize {
					w.took[w.ntook] = p
				}
				w.ntook++
			}
			open &^= catAFA.bit() // at-front events precede every timed event sent after them
			raise := func(d cat) {
				floor[d] = max(floor[d], p.time)
				if floor[d] >= ev.time {
					open &^= d.bit()
				}
			}
			switch c {
			case catDS:
				open &^= catAFS.bit()
				raise(catDA)
			case catTS:
				open &^= catAFS.bit()
				raise(catTA)
			}
			raise(c)
		}
		if c.timed() {
			if p.maxUpto <= floor[c] {
				open &^= c.bit() // every earlier entry of its category is accounted for
			}
			// Skip the entries of c that precede one accounted for.
			cur[c] = l.above(cur[c], floor[c])
		}
	}
}

// noFloor and noCur are walkList's floors and cursors before it looks at
// an entry: none. Literals, which a walk copies, cost less than loops;
// the declarations below fail to compile if the categories change.
var (
	noFloor = [...]int64{math.MinInt64, math.MinInt64, math.MinInt64, math.MinInt64}
	noCur   = [...]int{-1, -1, -1, -1, -1, -1}

	_ [catAFA]int64 = noFloor
	_ [numCats]int  = noCur
)

// atFrontList joins into the start the ends of all entries of l up to index i of
// the at-front category of entry i: each precedes the walk's event. The
// joins are cached per entry (thesis §4.3.2: "caching the join of the
// logical times of all AtFront events sent along a chain").
func (w *walk) atFrontList(l *sendList, i int) error {
	c := l.entries[i].cat
	k := i
	for ; k >= 0; k-- {
		if x := &l.entries[k]; x.cat == c && x.ev.afJoin != nil {
			break
		}
	}
	var acc Time
	if k >= 0 {
		acc = *l.entries[k].ev.afJoin
	}
	cache := true
	for m := k + 1; m <= i; m++ {
		p := l.entries[m].ev
		if l.entries[m].cat != c || p.absorbed {
			continue
		}
		f, err := w.finish(p, Priority)
		if err != nil {
			return err
		}
		if f == nil {
			cache = false
			continue
		}
		acc = w.e.joinTimes(acc, *f)
		if cache {
			s := acc
			p.afJoin = &s
		}
	}
	if w.b.learn(acc) {
		w.e.stats.PredsJoined++
	}
	return nil
}

// fixpoint applies ATFRONT and (on a looper thread th) ATOMIC until
// neither adds anything: each may make the other apply.
func (w *walk) fixpoint(th *thread) error {
	for round := 0; ; round++ {
		changed, err := w.atFront()
		if err != nil {
			return err
		}
		// atomic runs to its own fixpoint: after the first round, it has
		// something to add only if atFront added something.
		if th != nil && th.kind == traces.Looper && (round == 0 || changed) {
			c, err := w.atomic(th)
			if err != nil {
				return err
			}
			changed = changed || c
		}
		if !changed {
			return nil
		}
	}
}

// atFront applies ATFRONT: an event F sent at front to the same queue
// after the walk's event was sent (send(E) ≺ send(F)) and known at its
// start (send(F) ≺ begin(E)) precedes it.
func (w *walk) atFront() (bool, error) {
	ev := w.target
	af := ev.q.af
	i := sort.Search(len(af), func(i int) bool { return af[i].sendSeq > ev.sendSeq })
	changed := false
	for ; i < len(af); i++ {
		f := af[i]
		if f == ev || f.absorbed || !f.send.Covers(ev.sendEpoch) || !w.b.covers(f.sendEpoch) {
			continue
		}
		c, err := w.pred(f, AtFront)
		if err != nil {
			return false, err
		}
		changed = changed || c
	}
	return changed, nil
}

// atomic applies ATOMIC for an op of the walk's event on looper th: every
// other event of th whose begin the start knows has ended. The events of th
// whose begin a time knows but not their end are read off its clock: for
// a chain of th, the event whose interval holds the clock (the
// generalized AsyncClock of thesis §4.3.2, kept implicitly).
//
// It skips the chains whose clock is th.closed's, the start of th's last
// begin, to which ATOMIC was applied: none of its clocks of th's chains
// is inside an interval, then or later, as an interval added later is of
// an event that began later (th ran none at that begin). And it looks
// again, in its later rounds and later calls for the same walk, only at
// the chains whose clock changed since it last looked (atomicSnap): the
// intervals do not change during a walk (only ends, folds and
// collections change them), so a clock it looked at finds the same event
// again, whose end the start joined already (else the clock would have
// grown past it).
func (w *walk) atomic(th *thread) (bool, error) {
	e := w.e
	changed := false
	for {
		found, stale := w.atomicScan(th, e.atomicScratch[:0])
		if stale {
			th.atomicChains = slices.DeleteFunc(th.atomicChains, func(c Chain) bool {
				drop := e.spans[c].hi == 0 || e.chains[c].owner != th
				if drop {
					e.chains[c].atomic = false
					th.dropAtomic(c)
				}
				return drop
			})
		}
		e.atomicScratch = found[:0]
		if e.checkAtomic {
			e.atomicFound += int64(len(found))
		}
		added := false
		for _, p := range found {
			c, err := w.pred(p, Atomic)
			if err != nil {
				return changed, err
			}
			added = added || c
		}
		if !added {
			if e.checkAtomic {
				return changed, w.checkAtomic(th)
			}
			return changed, nil
		}
		changed = true
	}
}

// atomicBlock is a block of a looper's chains that hold ATOMIC intervals:
// bit j of set is chain i<<chunkBits|j. A looper's chains take numbers in
// blocks of their own (newChain), so it has few.
type atomicBlock struct {
	i   int
	set uint32
}

// addAtomic adds chain c to th's atomicBlocks.
func (th *thread) addAtomic(c Chain) {
	i := int(c >> chunkBits)
	k := slices.IndexFunc(th.atomicBlocks, func(b atomicBlock) bool { return b.i == i })
	if k < 0 {
		k = len(th.atomicBlocks)
		th.atomicBlocks = append(th.atomicBlocks, atomicBlock{i: i})
	}
	th.atomicBlocks[k].set |= 1 << (c & (chunkSize - 1))
}

// dropAtomic removes chain c from th's atomicBlocks.
func (th *thread) dropAtomic(c Chain) {
	i := int(c >> chunkBits)
	for k := range th.atomicBlocks {
		if b := &th.atomicBlocks[k]; b.i == i {
			b.set &^= 1 << (c & (chunkSize - 1))
		}
	}
	th.atomicBlocks = slices.DeleteFunc(th.atomicBlocks, func(b atomicBlock) bool { return b.set == 0 })
}

// atomicSnap is a block of the start as walk.atomic last scanned it, in
// the walk numbered walk (see Engine.atomicWalks): a clock it holds
// was looked at already. Only a scan that found an event keeps its
// snapshots, as only then does the walk look again (most scans find
// nothing, and their snapshots' reads and writes cost a cache miss
// each); a later scan that finds a block's snapshot older than the
// last scan only looks again at lanes that found nothing then.
type atomicSnap struct {
	walk   uint64
	clocks [chunkSize]Clock
}

// atomicScan appends to found the events of th whose begin the start
// knows but not their end, on the chains whose clock it has not looked at
// yet in this walk (see atomic), and reports whether a chain of
// th.atomicChains was left without intervals or is another thread's.
//
// It goes through th's chains a block at a time (th.atomicBlocks), as the
// start's blocks and th.closed's: only the lanes where the start's clock
// differs from th.closed's, and from the one this walk's last scan that
// found an event looked at (Engine.atomicSnaps), need a look, which
// lanesDiffer finds 32 at a time. A first loop, without calls (which would make the compiler keep
// its variables in memory), finds the few chains of a block that need a
// closer look.
func (w *walk) atomicScan(th *thread, found []*event) ([]*event, bool) {
	e := w.e
	if n := len(w.b.chunks); len(e.atomicSnaps) < n {
		e.atomicSnaps = append(e.atomicSnaps, make([]atomicSnap, n-len(e.atomicSnaps))...)
	}
	spans, starts, closed, snaps := e.spans, w.b.chunks, th.closed, e.atomicSnaps
	stale := false
	// Bit k%64: the lanes of th.atomicBlocks[k] were looked at. A block
	// whose lanes needed no look, kept as it shares its bit with one that
	// did, is kept rightly: each of its clocks is th.closed's or was
	// looked at already.
	var looked uint64
	f0 := len(found)
	for k, blk := range th.atomicBlocks {
		i := blk.i
		if i >= len(starts) || starts[i] == nil {
			continue // knows none of these chains
		}
		sc := starts[i]
		m := blk.set
		if cc := closed.block(i); cc != nil {
			if sc == cc {
				m = 0
			} else {
				m &= lanesDiffer(&sc.clocks, &cc.clocks) // th.closed's clocks are in no interval
			}
		}
		if w.atomicWalk != 0 {
			if sn := &snaps[i]; sn.walk == w.atomicWalk {
				m &= lanesDiffer(&sc.clocks, &sn.clocks) // looked at already
			}
		}
		if m == 0 {
			continue // the snapshot stays right: the start's clocks that differ from it differ from th.closed's
		}
		looked |= 1 << (k & 63)
		first := Chain(i << chunkBits)
		var look uint32
		for ; m != 0; m &= m - 1 {
			j := bits.TrailingZeros32(m)
			c, k := first|Chain(j), sc.clocks[j]
			if sp := spans[c]; k < sp.lo || k >= sp.hi {
				stale = stale || sp.hi == 0
				continue // knows none of their begins, or all of their ends
			}
			look |= 1 << j
		}
		for ; look != 0; look &= look - 1 {
			j := bits.TrailingZeros32(look)
			var ok bool
			if found, ok = w.atomicAt(th, first|Chain(j), sc.clocks[j], found); !ok {
				stale = true
			}
		}
	}
	if len(found) > f0 { // the walk looks again: keep what this scan looked at (the start has not changed since)
		if w.atomicWalk == 0 {
			e.atomicWalks++
			w.atomicWalk = e.atomicWalks
		}
		for ; looked != 0; looked &= looked - 1 {
			for k := bits.TrailingZeros64(looked); k < len(th.atomicBlocks); k += 64 {
				if i := th.atomicBlocks[k].i; i < len(starts) && starts[i] != nil {
					snaps[i].walk, snaps[i].clocks = w.atomicWalk, starts[i].clocks
				}
			}
		}
	}
	return found, stale
}

// checkAtomic checks, for tests, the start after ATOMIC was applied
// against the obvious: the start's clock of no chain is inside the
// interval of an event that th ran, other than the walk's.
func (w *walk) checkAtomic(th *thread) error {
	for c := range w.e.chains {
		for _, iv := range w.e.chains[c].intervals {
			if k := w.b.get(Chain(c)); iv.ev.th == th && iv.ev != w.target && k >= iv.begin && k < iv.end {
				return fmt.Errorf("asyncclock: after ATOMIC, the start of %s knows the begin of %s (chain %d, clocks %d to %d) at clock %d, but not its end",
					w.e.name(w.target.id), w.e.name(iv.ev.id), c, iv.begin, iv.end, k)
			}
		}
	}
	return nil
}

// lanesDiffer returns the set of lanes where u's clock is not t's, 32
// clocks in 16 64-bit operations: in each pair of lanes of x = u^t,
// (x&^h) + ^h sets a lane's top bit exactly when its low 31 bits are not
// all zero (no carry crosses lanes), and x's own top bit does the rest.
// With AVX2, lanesDifferVec does it in about 20 instructions.
func lanesDiffer(u, t *[chunkSize]Clock) uint32 {
	if vecBlocks {
		return lanesDifferVec(u, t)
	}
	return lanesDifferGo(u, t)
}

// lanesDifferGo is lanesDiffer in Go.
func lanesDifferGo(u, t *[chunkSize]Clock) uint32 {
	const h = 0x8000_0000_8000_0000
	uw := (*[chunkSize / 2]uint64)(unsafe.Pointer(u))
	tw := (*[chunkSize / 2]uint64)(unsafe.Pointer(t))
	differ := func(j int) uint32 {
		x := uw[j] ^ tw[j]
		a := (x&^h + ^uint64(h)) | x
		return uint32(a>>31&1|a>>62&2) << (2 * j)
	}
	// Unrolled, as anyAbove.
	return differ(0) | differ(1) | differ(2) | differ(3) | differ(4) | differ(5) | differ(6) | differ(7) |
		differ(8) | differ(9) | differ(10) | differ(11) | differ(12) | differ(13) | differ(14) | differ(15)
}

// atomicAt appends to found the event of th whose interval on chain c
// holds clock k, inside c's span, if there is one; it reports false if c
// is not th's.
func (w *walk) atomicAt(th *thread, c Chain, k Clock, found []*event) ([]*event, bool) {
	e := w.e
	if !e.tails[c].mayHold(k) {
		return found, true
	}
	ch := &e.chains[c]
	if ch.owner != th { // placed for its queue's looper, not for th, which ran it
		return found, false
	}
	if iv := lastBegun(ch.intervals, k); k < iv.end && iv.ev != w.target {
		found = append(found, iv.ev)
	}
	return found, true
}

// lastBegun returns the last of ivs (sorted, not empty) that begins at or
// before k, which its first one does. A point usually knows the recent
// events of a chain, so it searches back from the last interval, in steps
// that double, and then between the last two it probed.
func lastBegun(ivs []interval, k Clock) *interval {
	hi := len(ivs) // ivs[hi:] begin after k
	lo := hi - 1
	for step := 1; ivs[lo].begin > k; step *= 2 {
		hi = lo
		lo = max(0, lo-step)
	}
	// ivs[lo] begins at or before k; ivs[hi:] after it.
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if ivs[m].begin <= k {
			lo = m
		} else {
			hi = m
		}
	}
	return &ivs[lo]
}

// ipc applies the binder rules at the begin of the walk's event on binder
// thread th: IPCHANDLE (events th ran before, sent before it from the same
// process, the earlier sync or this one async) and IPCASYNC (the last
// async event from the same sending task th ran).
func (w *walk) ipc(th *thread) error {
	ev := w.target
	for _, async := range [2]bool{false, true} {
		if async && !ev.async() {
			continue
		}
		l := th.binder[binderKey(ev.q.idx, ev.proc(), async)]
		if l == nil {
			continue
		}
		// An entry is needed unless a later one, sent before ev too, was
		// sent after it: then it precedes that one.
		m := int64(-1)
		for i := len(l.entries) - 1; i >= 0; i-- {
			x := l.entries[i]
			if x.seq < ev.sendSeq && x.seq > m {
				m = x.seq
				if _, err := w.pred(x.ev, IPCHandle); err != nil {
					return err
				}
			}
		}
	}
	if !ev.async() || ev.sender == traces.NoSym {
		return nil
	}
	if th.ipcAsync == nil {
		th.ipcAsync = make(map[ipcKey]ipcLast)
	}
	k := ipcKey{ev.q.idx, ev.sender}
	last, ok := th.ipcAsync[k]
	if ok {
		if last.seq > ev.sendSeq {
			e := w.e
			return &ConflictError{
				File: e.file, Line: e.line, Rule: IPCAsync,
				First: e.name(ev.id), FirstLine: ev.sendLine, Second: e.name(last.ev.id),
				Detail: fmt.Sprintf("event %s began on binder thread %s after event %s (begun at line %d), but rule IPCASYNC orders %s first: both are async, sent by task %s, %s first (line %d)",
					e.name(ev.id), e.name(th.id), e.name(last.ev.id), last.ev.beginLine, e.name(ev.id),
					e.name(ev.sender), e.name(ev.id), ev.sendLine),
			}
		}
		if _, err := w.pred(last.ev, IPCAsync); err != nil {
			return err
		}
		w.e.release(last.ev)
	}
	th.ipcAsync[k] = ipcLast{seq: ev.sendSeq, ev: ev}
	ev.refs++
	return nil
}
