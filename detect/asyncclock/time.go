package asyncclock

import (
	"iter"
	"strconv"
	"strings"
)

// Chain identifies a chain of the decomposition: a sequence of tasks (a
// thread, or events one after the other) whose operations are totally
// ordered. Chains are numbered from 1, nearly densely (a looper's in
// blocks of 32 of their own, which leave at most 31 numbers unused per
// looper), so an analysis can index per-chain data by Chain (see
// [Engine.NumChains]).
type Chain uint32

// Clock is a position on a chain. Clocks start at 1; 0 means "nothing of
// this chain".
type Clock uint32

// Epoch is a point in logical time: a clock on one chain, packed in 8
// bytes (the chain in the high half), as FastTrack keeps per location. The
// zero Epoch is no point; it happens before everything.
type Epoch uint64

// MakeEpoch returns the epoch of clock k on chain c.
func MakeEpoch(c Chain, k Clock) Epoch { return Epoch(uint64(c)<<32 | uint64(k)) }

// Chain returns the epoch's chain.
func (e Epoch) Chain() Chain { return Chain(e >> 32) }

// Clock returns the epoch's clock.
func (e Epoch) Clock() Clock { return Clock(e) }

func (e Epoch) String() string {
	return strconv.FormatUint(uint64(e.Chain()), 10) + "@" + strconv.FormatUint(uint64(e.Clock()), 10)
}

// chunkBits sets the size of the blocks a vector clock is made of, and
// pageBits how many blocks' pointers a page holds.
const (
	chunkBits = 5
	chunkSize = 1 << chunkBits
	pageBits  = 3
	pageSize  = 1 << pageBits
)

// chunk holds the clocks of chunkSize consecutive chains. Chunks are never
// written once a Time holds them, so times share them freely.
type chunk struct {
	clocks [chunkSize]Clock
	// at, if not 0, is a point whose time knows every clock of the block
	// (it was made for that point's time): a time that covers at knows
	// them all, and a join needs not compare them (see builder.timeOf).
	at Epoch
}

// page holds the pointers to pageSize consecutive blocks of a vector.
// Like blocks, pages are never written once a Time holds them: a new time
// shares the pages of the time it was made from whose blocks stayed the
// same (builder.time), so that where there are many chains (a looper's
// have a block of their own) a time costs the pages that changed, not a
// pointer per block up to its highest.
type page [pageSize]*chunk

// noBlocks is the page of a time that has none of its blocks, shared by
// all and never written: a time's pages are never nil, so that Covers
// inlines.
var noBlocks page

// Time is a vector clock: for every chain, the latest clock on it that
// happens before (or is) the point it describes. It is an immutable value,
// cheap to copy and to keep: times share the blocks they have in common,
// so an analysis may hold on to the Time of any operation.
//
// An operation α with epoch a happens before an operation β that comes
// later in the trace with time b exactly when b.Covers(a).
type Time struct {
	pages []*page // by chain>>(chunkBits+pageBits), none nil (noBlocks if empty); nil: all zero; never written once shared
	top   Epoch   // one more component (a task's own chain), at least the vector's clock of its chain
	// at, if not 0, is a point whose time knows every clock of the vector
	// (not necessarily top): the point the vector was made for
	// (builder.timeOf), kept while the vector stays the same. A time that
	// covers at knows the whole vector, and a join needs not look at it,
	// as chunk.at says of one block.
	at Epoch
}

// Get returns the clock of chain c.
func (t Time) Get(c Chain) Clock {
	k := t.vget(c)
	if t.top != 0 && t.top.Chain() == c {
		k = max(k, t.top.Clock())
	}
	return k
}

// vget returns the clock of chain c in the vector, ignoring top.
// (Written so that Covers inlines.)
func (t Time) vget(c Chain) Clock {
	if p := uint(c >> (chunkBits + pageBits)); p < uint(len(t.pages)) {
		if ch := t.pages[p][c>>chunkBits&(pageSize-1)]; ch != nil {
			return ch.clocks[c&(chunkSize-1)]
		}
	}
	return 0
}

// block returns the vector's block i (nil: all zero).
func (t Time) block(i int) *chunk {
	if p := i >> pageBits; p < len(t.pages) {
		return t.pages[p][i&(pageSize-1)]
	}
	return nil
}

// vector reports whether t has a vector besides its top.
func (t Time) vector() bool { return t.pages != nil }

// Covers reports whether epoch e happens before (or is) the point t
// describes: whether t's clock of e's chain is at least e's clock.
// (Written so that it inlines. The top covers e exactly when top-e, in
// uint64, is at most top's clock: for e on top's chain it is top's clock
// less e's; for e on an earlier chain at least 2^32 plus top's clock
// less e's, more than top's clock; for e after top it wraps around.)
func (t Time) Covers(e Epoch) bool {
	return uint64(t.top-e) <= uint64(t.top.Clock()) || e.Clock() <= t.vget(e.Chain())
}

// Leq reports whether every component of t is at most that of u: whatever
// happens before t happens before u.
func (t Time) Leq(u Time) bool {
	for e := range t.All() {
		if e.Clock() > u.Get(e.Chain()) {
			return false
		}
	}
	return true
}

// All yields the nonzero components of t, by chain.
func (t Time) All() iter.Seq[Epoch] {
	return func(yield func(Epoch) bool) {
		topDone := t.top == 0
		for i := range len(t.pages) << pageBits {
			ch := t.block(i)
			if ch == nil {
				continue
			}
			for j, k := range ch.clocks {
				c := Chain(i<<chunkBits | j)
				if !topDone && t.top.Chain() < c {
					topDone = true
					if !yield(t.top) {
						return
					}
				}
				if !topDone && t.top.Chain() == c {
					topDone = true
					k = max(k, t.top.Clock())
				}
				if k != 0 && !yield(MakeEpoch(c, k)) {
					return
				}
			}
		}
		if !topDone {
			yield(t.top)
		}
	}
}

// Len returns the number of nonzero components.
func (t Time) Len() int {
	n := 0
	for range t.All() {
		n++
	}
	return n
}

// String prints t as {chain@clock ...}.
func (t Time) String() string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for e := range t.All() {
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(e.String())
	}
	b.WriteByte('}')
	return b.String()
}

// with returns t with its top component replaced by top.
func (t Time) with(top Epoch) Time {
	if t.top != 0 && t.top.Chain() != top.Chain() && t.vget(t.top.Chain()) < t.top.Clock() {
		var b builder
		b.start(t)
		b.raise(t.top.Chain(), t.top.Clock())
		t = b.time(0)
	}
	t.top = top
	return t
}

// join returns t ⊔ u, keeping t's top (raised to u's clock of its chain).
// It allocates only when u adds something t does not have.
func (t Time) join(u Time) Time {
	var b builder
	r, _ := t.joinIn(&b, u, false)
	return r
}

// joinIn is join, computed in b; it also reports whether u added
// something (rarely, that it may have: the result is right either way).
// point says that t is the time of its top, a point no other time knows
// yet (a task's current time), and so is the result: its new blocks then
// record that point (builder.timeOf).
func (t Time) joinIn(b *builder, u Time, point bool) (Time, bool) {
	if t.top == 0 && !t.vector() {
		return u, u.top != 0 || u.vector() // its top is one more component, as any other (it keeps u's point)
	}
	top, extra := t.top, u.top
	if top != 0 {
		if k := u.Get(top.Chain()); k > top.Clock() {
			top = MakeEpoch(top.Chain(), k) // t is not its chain's latest point (a send's time)
		}
		if extra != 0 && extra.Chain() == top.Chain() {
			extra = 0
		}
	}
	if extra != 0 && t.Get(extra.Chain()) >= extra.Clock() {
		extra = 0 // t knows it already
	}
	// The builder starts from t as it was: what it knows before the join
	// must not include what it learns from u (builder.learnVector). Its
	// top stays apart, as the result's top is on the same chain; so t's
	// top is looked at here, to know whether t knows u's point.
	b.startVector(t)
	grew := false
	if u.at == 0 || !t.Covers(u.at) {
		grew = b.learnVector(u)
	}
	if extra != 0 {
		b.raise(extra.Chain(), extra.Clock())
		grew = true
	}
	if !grew {
		raised := top != t.top
		t.top = top
		return t, raised
	}
	if point && top == t.top && top != 0 {
		return b.timeOf(top), true
	}
	return b.time(top), true
}
