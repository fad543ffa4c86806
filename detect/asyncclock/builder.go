package asyncclock

import (
	"slices"
	"unsafe"
)

// builder accumulates a time out of many joins, as at an event's begin. It
// copies a block of the vector only the first time a join raises a clock
// in it, and takes blocks it does not have from the times it joins without
// copying them, so a begin allocates only the blocks that change, and
// the pages of pointers to them that change (builder.time).
type builder struct {
	chunks []*chunk // the vector's blocks, by chain>>chunkBits
	owned  []bool   // chunks[i] was made by this builder and no Time holds it yet
	// base is the pages of the time b started from, and from, by page,
	// the last page of a time learned from which b took a block as it
	// is: the time b makes shares a page of either whose blocks it has
	// (at a begin, nearly every page not the start's is one learned).
	base, from []*page
	look       []int32 // learnVector's scratch
	// low says that every clock is below 2^31, so that blocks compare
	// with anyAboveLow (Engine.builder sets it while it holds).
	low bool
}

// start makes b hold t (its top included, as an ordinary component).
func (b *builder) start(t Time) {
	b.startVector(t)
	if t.top != 0 {
		b.raise(t.top.Chain(), t.top.Clock())
	}
}

// startVector makes b hold t's vector, without its top: for a time that
// will have a top on the same chain (a task's), whose block needs no copy.
func (b *builder) startVector(t Time) {
	b.base = t.pages
	b.from = slices.Grow(b.from[:0], len(t.pages))[:len(t.pages)]
	clear(b.from)
	b.chunks = b.chunks[:0]
	for _, p := range t.pages {
		b.chunks = append(b.chunks, p[:]...)
	}
	b.owned = slices.Grow(b.owned[:0], len(b.chunks))[:len(b.chunks)]
	clear(b.owned)
}

func (b *builder) get(c Chain) Clock {
	if i := int(c >> chunkBits); i < len(b.chunks) && b.chunks[i] != nil {
		return b.chunks[i].clocks[c&(chunkSize-1)]
	}
	return 0
}

func (b *builder) covers(e Epoch) bool { return e.Clock() <= b.get(e.Chain()) }

// own returns block i, writable.
func (b *builder) own(i int) *chunk {
	for len(b.chunks) <= i {
		b.chunks = append(b.chunks, nil)
		b.owned = append(b.owned, false)
	}
	if !b.owned[i] {
		nc := new(chunk)
		if b.chunks[i] != nil {
			nc.clocks = b.chunks[i].clocks
		}
		b.chunks[i], b.owned[i] = nc, true
	}
	return b.chunks[i]
}

// raise sets chain c's clock to at least k; it reports whether it grew.
func (b *builder) raise(c Chain, k Clock) bool {
	if k <= b.get(c) {
		return false
	}
	b.own(int(c >> chunkBits)).clocks[c&(chunkSize-1)] = k
	return true
}

// learnVector joins in t's vector (not its top); it reports whether b grew.
// Nothing is compared if b knew t's point (Time.at) before this join. A
// block of t is compared with b's only if it is not the same block and
// b did not know its point (chunk.at) before this join (after, b may know
// it from t itself); a block that is at least b's is taken as it is.
func (b *builder) learnVector(t Time) bool { return b.learnVectorOver(t, nil) }

// learnVectorOver is learnVector for a b that knows a time whose pages
// are known: t's blocks that are known's too are skipped without a look.
func (b *builder) learnVectorOver(t Time, known []*page) bool {
	if t.at != 0 && b.covers(t.at) {
		return false // b knows the whole vector
	}
	// The blocks to look at, found before the join changes what b knows.
	// A block that known or b has already is skipped before its point is
	// read (tc.at, a line of the block that the join needs not touch), a
	// page that known has already without a look at its blocks.
	look := b.look[:0]
	for p, tp := range t.pages {
		if tp == &noBlocks || p < len(known) && known[p] == tp {
			continue
		}
		var kp *page
		if p < len(known) {
			kp = known[p]
		}
		for j, tc := range tp {
			i := p<<pageBits | j
			if tc != nil && (kp == nil || kp[j] != tc) && (i >= len(b.chunks) || b.chunks[i] != tc) && (tc.at == 0 || !b.covers(tc.at)) {
				look = append(look, int32(i))
			}
		}
	}
	b.look = look
	above := anyAbove
	if b.low {
		above = anyAboveLow
	}
	grew := false
	for _, k := range look {
		i := int(k)
		tc := t.pages[i>>pageBits][i&(pageSize-1)]
		if i >= len(b.chunks) || b.chunks[i] == nil {
			for len(b.chunks) <= i {
				b.chunks = append(b.chunks, nil)
				b.owned = append(b.owned, false)
			}
			b.chunks[i], b.owned[i], grew = tc, false, true // shared as it is
			b.took(i, t)
			continue
		}
		bc := b.chunks[i] // not tc: the first loop left those out
		// Whether tc has a clock above bc's, and (only if so, but
		// compareVec tells both at once) whether bc has one above tc's.
		var up, down bool
		if vecBlocks {
			up, down = compareVec(tc, bc) // exact for any clocks
		} else if up = above(tc, bc); up {
			down = above(bc, tc)
		}
		if !up {
			continue
		}
		if !down { // tc is at least bc: share it
			b.chunks[i], b.owned[i], grew = tc, false, true
			b.took(i, t)
			continue
		}
		// Neither is at least the other: raise b's clocks to tc's
		// (without b.low, above may have said "maybe", and grew then
		// says b may have grown).
		if b.owned[i] {
			maxBlocks(bc, bc, tc)
		} else { // a new block, made as the larger of the two, not copied first
			nc := new(chunk)
			maxBlocks(nc, bc, tc)
			b.chunks[i], b.owned[i] = nc, true
		}
		grew = true
	}
	return grew
}

// took records that b took t's block i as it is.
func (b *builder) took(i int, t Time) {
	p := i >> pageBits
	for len(b.from) <= p {
		b.from = append(b.from, nil)
	}
	b.from[p] = t.pages[p]
}

// maxBlocks sets each clock of d to the larger of x's and y's (d may be
// x), with AVX2 where the machine has it (maxBlocksVec).
func maxBlocks(d, x, y *chunk) {
	if vecBlocks {
		maxBlocksVec(d, x, y)
		return
	}
	maxBlocksGo(d, x, y)
}

// maxBlocksGo is maxBlocks in Go. A block that is raised mostly differs
// from the other in most of its clocks, so a test per pair of clocks
// saved little: this takes the larger clock one by one, without a
// branch, unrolled so that the compiler checks the pointers once (about 6
// instructions per clock, against 9 per clock and 5 per pair before).
func maxBlocksGo(d, x, y *chunk) {
	dc, xc, yc := &d.clocks, &x.clocks, &y.clocks
	up := func(j int) { dc[j] = max(xc[j], yc[j]) }
	up(0)
	up(1)
	up(2)
	up(3)
	up(4)
	up(5)
	up(6)
	up(7)
	up(8)
	up(9)
	up(10)
	up(11)
	up(12)
	up(13)
	up(14)
	up(15)
	up(16)
	up(17)
	up(18)
	up(19)
	up(20)
	up(21)
	up(22)
	up(23)
	up(24)
	up(25)
	up(26)
	up(27)
	up(28)
	up(29)
	up(30)
	up(31)
}

// learn joins t in; it reports whether b grew.
func (b *builder) learn(t Time) bool {
	grew := b.learnVector(t)
	if t.top != 0 && b.raise(t.top.Chain(), t.top.Clock()) {
		grew = true
	}
	return grew
}

// learnFinish makes b know f, the time at p's finish (its end, or run(p)
// for a removed p), comparing only the blocks of f that are not those of
// a time of p that b knows already: its begin's, or else its send's (a
// time that covers the point of either knows all of it). Most of an
// end's blocks are its send's, which a PRIORITY predecessor's successor
// knows (its send knew p's), or its begin's.
func (b *builder) learnFinish(p *event, f Time) bool {
	var base []*page
	switch {
	case p.begin.vector() && b.covers(MakeEpoch(p.chain, p.beginClock)):
		base = p.begin.pages
	case p.send.vector() && b.covers(p.sendEpoch):
		base = p.send.pages
	}
	grew := b.learnVectorOver(f, base)
	if f.top != 0 && b.raise(f.top.Chain(), f.top.Clock()) {
		grew = true
	}
	return grew
}

// joinEnds returns t joined with the ends of evs, in one pass: a block
// that changes is copied once, not once per join.
func (e *Engine) joinEnds(t Time, evs []*event) Time {
	return e.joinPoints(t, len(evs), func(i int) Time { return evs[i].end })
}

// joinPoints returns t joined with at(i) for every i < n, in one pass.
// Each at(i) must be the time of a point, its top (an event's end, a
// signal, a thread's end: a task's time at a clock it published as it
// was last), so that a join that covers the top knows all of it: they
// are joined from the last, and one whose top the join so far covers is
// skipped (the later ones, of a task or a looper, often know the
// earlier ones).
func (e *Engine) joinPoints(t Time, n int, at func(i int) Time) Time {
	b := e.builder()
	defer e.putBuilder(b)
	b.start(t)
	grew := false
	for i := n - 1; i >= 0; i-- {
		if u := at(i); !b.covers(u.top) && b.learn(u) {
			grew = true
		}
	}
	if !grew {
		return t
	}
	return b.time(t.top)
}

// time returns what b holds, with top as its own component (0: none).
// The blocks become shared: b stops writing them.
func (b *builder) time(top Epoch) Time {
	n := len(b.chunks)
	for n > 0 && b.chunks[n-1] == nil {
		n--
	}
	var t Time
	if n > 0 {
		t.pages = make([]*page, (n+pageSize-1)>>pageBits)
	}
	for p := range t.pages {
		blocks := b.chunks[p<<pageBits : min((p+1)<<pageBits, n)]
		if p < len(b.base) && samePage(b.base[p], blocks) {
			t.pages[p] = b.base[p]
			continue
		}
		if p < len(b.from) && b.from[p] != nil && samePage(b.from[p], blocks) {
			t.pages[p] = b.from[p]
			continue
		}
		if samePage(nil, blocks) {
			t.pages[p] = &noBlocks
			continue
		}
		np := new(page)
		copy(np[:], blocks)
		t.pages[p] = np
	}
	t.top = top
	clear(b.owned)
	if top != 0 {
		t.top = MakeEpoch(top.Chain(), max(top.Clock(), b.get(top.Chain())))
	}
	return t
}

// samePage reports whether blocks are p's (a nil p has none; blocks may
// be fewer than a page, the others nil).
func samePage(p *page, blocks []*chunk) bool {
	if p == nil {
		for _, c := range blocks {
			if c != nil {
				return false
			}
		}
		return true
	}
	for j, c := range p {
		if j < len(blocks) && c != blocks[j] || j >= len(blocks) && c != nil {
			return false
		}
	}
	return true
}

// timeOf returns what b holds as the time of point p, a clock on a chain
// that no time knew before. It records p as a point whose time knows its
// vector (Time.at), and so do its new blocks (chunk.at): the time of p,
// as it is published, knows all b holds now, and every time that covers
// p learned it, as a task's time at a clock is published only as it is
// last (see Engine.beginOp).
func (b *builder) timeOf(p Epoch) Time {
	for i, owned := range b.owned {
		if owned {
			b.chunks[i].at = p
		}
	}
	t := b.time(p)
	t.at = p
	return t
}

// anyAbove reports whether some clock of u is above t's, or (rarely)
// that one may be: it is exact when it says no. Most joins at a begin
// change none of a block's clocks; this tells so with 64-bit operations
// on two clocks at a time, without a branch per clock. For each pair of
// lanes, (t|h) - (u&^h) keeps a lane's top bit set exactly when t's low
// 31 bits are at least u's (no borrow crosses lanes, as t|h > u&^h in
// each); a lane of u is above t's only if that bit is clear or u has the
// top bit that t lacks.
func anyAbove(u, t *chunk) bool {
	const h = 0x8000_0000_8000_0000
	// Blocks are 8-byte aligned: each is allocated alone (new(chunk)),
	// and its size is a multiple of 8 (below).
	uw := (*[16]uint64)(unsafe.Pointer(&u.clocks))
	tw := (*[16]uint64)(unsafe.Pointer(&t.clocks))
	above := func(j int) uint64 {
		uu, tt := uw[j], tw[j]
		return ^((tt | h) - (uu &^ h)) | (uu &^ tt)
	}
	// Unrolled: the compiler checks the pointers once, not per pair.
	acc := above(0) | above(1) | above(2) | above(3) | above(4) | above(5) | above(6) | above(7) |
		above(8) | above(9) | above(10) | above(11) | above(12) | above(13) | above(14) | above(15)
	return acc&h != 0
}

// anyAboveLow is anyAbove for blocks whose clocks are all below 2^31,
// and then exact: in each pair of lanes, (t|h) - u keeps a lane's top bit
// set exactly when t's clock is at least u's (t|h > u, so no borrow
// crosses lanes), three operations per pair instead of eight.
func anyAboveLow(u, t *chunk) bool {
	const h = 0x8000_0000_8000_0000
	uw := (*[16]uint64)(unsafe.Pointer(&u.clocks))
	tw := (*[16]uint64)(unsafe.Pointer(&t.clocks))
	atLeast := func(j int) uint64 { return (tw[j] | h) - uw[j] }
	acc := atLeast(0) & atLeast(1) & atLeast(2) & atLeast(3) & atLeast(4) & atLeast(5) & atLeast(6) & atLeast(7) &
		atLeast(8) & atLeast(9) & atLeast(10) & atLeast(11) & atLeast(12) & atLeast(13) & atLeast(14) & atLeast(15)
	return acc&h != h
}

// The unrolled anyAbove, anyAboveLow and maxBlocksGo, and the assembly's
// four 32-byte words, cover a block of exactly 32 clocks, first in chunk.
// A block's size is a multiple of 8, so that it is 8-byte aligned
// (anyAbove). Each is allocated alone: runs of 8 allocated together,
// which stay while any of their blocks does, made the peak heap 65 MiB
// larger for detect on a recorded run of 1M events, and no faster.
var (
	_ [0]struct{} = [unsafe.Sizeof(chunk{}) % 8]struct{}{}
	_ [1]struct{} = [chunkSize / 32]struct{}{}
	_ [0]struct{} = [unsafe.Offsetof(chunk{}.clocks)]struct{}{}
)
