package asyncclock

import (
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Chain identifies a chain of the decomposition: a sequence of tasks (a
// thread, or events one after the other) whose operations are totally
// ordered. Chains are numbered densely from 1, so an analysis can index
// per-chain data by Chain (see [Engine.NumChains]).
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

// Time is a vector clock: for every chain, the latest clock on it that
// happens before (or is) the point it describes. It is an immutable value,
// cheap to copy and to keep (the engine shares the storage of equal
// times), so an analysis may hold on to the Time of any operation.
//
// An operation α with epoch a happens before an operation β that comes
// later in the trace with time b exactly when b.Covers(a).
type Time struct {
	vc  []Epoch // sorted by chain, one entry per chain; never written after it is shared
	top Epoch   // one more component (a task's own chain), at least vc's entry for its chain
}

// Get returns the clock of chain c.
func (t Time) Get(c Chain) Clock {
	if t.top.Chain() == c && t.top != 0 {
		return t.top.Clock()
	}
	return lookup(t.vc, c)
}

func lookup(vc []Epoch, c Chain) Clock {
	i, _ := slices.BinarySearch(vc, MakeEpoch(c, 0))
	if i < len(vc) && vc[i].Chain() == c {
		return vc[i].Clock()
	}
	return 0
}

// Covers reports whether epoch e happens before (or is) the point t
// describes: whether t's clock of e's chain is at least e's clock.
func (t Time) Covers(e Epoch) bool { return e.Clock() <= t.Get(e.Chain()) }

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
		for _, e := range t.vc {
			if !topDone && t.top.Chain() <= e.Chain() {
				topDone = true
				if t.top.Chain() < e.Chain() {
					if !yield(t.top) {
						return
					}
				} else {
					if !yield(max(t.top, e)) {
						return
					}
					continue
				}
			}
			if !yield(e) {
				return
			}
		}
		if !topDone {
			yield(t.top)
		}
	}
}

// Len returns the number of nonzero components (an upper bound when t's
// own component is also in its vector).
func (t Time) Len() int {
	if t.top != 0 {
		return len(t.vc) + 1
	}
	return len(t.vc)
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

// with returns t with its top component replaced by e (e's chain's clock
// in t must be at most e's).
func (t Time) with(top Epoch) Time {
	if t.top != 0 && t.top.Chain() != top.Chain() {
		t.vc = mergeVC(t.vc, nil, t.top)
	}
	t.top = top
	return t
}

// join returns t ⊔ u, keeping t's top. It allocates only when u adds
// something t does not have.
func (t Time) join(u Time) Time {
	extra := u.top
	if extra != 0 && t.top != 0 && extra.Chain() == t.top.Chain() {
		if extra.Clock() > t.top.Clock() {
			t.top = extra // cannot happen for a task's own chain; keeps join total
		}
		extra = 0
	}
	t.vc = mergeVC(t.vc, u.vc, extra)
	if t.top != 0 {
		// t may be a time that is not its chain's latest (a send's):
		// keep top the largest clock of its chain.
		if k := lookup(u.vc, t.top.Chain()); k > t.top.Clock() {
			t.top = MakeEpoch(t.top.Chain(), k)
		}
	}
	return t
}

// mergeVC returns the component-wise maximum of a, b and the single
// component x (x may be 0). It returns a itself when nothing in b or x
// exceeds it, so joins that add nothing do not allocate.
func mergeVC(a, b []Epoch, x Epoch) []Epoch {
	if !addsTo(a, b, x) {
		return a
	}
	out := make([]Epoch, 0, len(a)+len(b)+1)
	i, j := 0, 0
	xDone := x == 0
	for i < len(a) || j < len(b) || !xDone {
		// the smallest chain among the three heads
		var c Chain = ^Chain(0)
		if i < len(a) {
			c = min(c, a[i].Chain())
		}
		if j < len(b) {
			c = min(c, b[j].Chain())
		}
		if !xDone {
			c = min(c, x.Chain())
		}
		var k Clock
		if i < len(a) && a[i].Chain() == c {
			k = max(k, a[i].Clock())
			i++
		}
		if j < len(b) && b[j].Chain() == c {
			k = max(k, b[j].Clock())
			j++
		}
		if !xDone && x.Chain() == c {
			k = max(k, x.Clock())
			xDone = true
		}
		out = append(out, MakeEpoch(c, k))
	}
	return out
}

// addsTo reports whether b or x has a component greater than a's.
func addsTo(a, b []Epoch, x Epoch) bool {
	if x != 0 && lookup(a, x.Chain()) < x.Clock() {
		return true
	}
	if len(b) > len(a) {
		return true
	}
	i := 0
	for _, e := range b {
		for i < len(a) && a[i].Chain() < e.Chain() {
			i++
		}
		if i == len(a) || a[i].Chain() != e.Chain() || a[i].Clock() < e.Clock() {
			return true
		}
	}
	return false
}

// learn makes t know what u knows.
func (t *Time) learn(u Time) { *t = t.join(u) }
