package asyncclock

import "slices"

// state is what a point of the computation knows: its vector clock, and
// its AsyncClocks. The AsyncClock of queue q is kept as the set of chains
// whose sends to q the point may still need to look at (thesis §4.1): for
// each such chain j, the sends to q it knows are those on j's send list up
// to its clock of j, so the events themselves are read off the clock. A
// state is a value; its slices are never written once shared.
type state struct {
	t  Time
	ac acSet
}

// acSet is a sorted set of (queue, chain) pairs, packed queue<<32|chain.
type acSet []uint64

func acKey(q uint32, c Chain) uint64 { return uint64(q)<<32 | uint64(c) }

// rangeOf returns the bounds of queue q's entries.
func (s acSet) rangeOf(q uint32) (lo, hi int) {
	lo, _ = slices.BinarySearch(s, uint64(q)<<32)
	hi, _ = slices.BinarySearch(s, uint64(q+1)<<32)
	return lo, hi
}

// union returns s ∪ u; s itself if u adds nothing.
func (s acSet) union(u acSet) acSet {
	if len(u) == 0 || s.contains(u) {
		return s
	}
	out := make(acSet, 0, len(s)+len(u))
	i, j := 0, 0
	for i < len(s) && j < len(u) {
		switch {
		case s[i] < u[j]:
			out = append(out, s[i])
			i++
		case s[i] > u[j]:
			out = append(out, u[j])
			j++
		default:
			out = append(out, s[i])
			i++
			j++
		}
	}
	out = append(out, s[i:]...)
	return append(out, u[j:]...)
}

// contains reports whether u ⊆ s.
func (s acSet) contains(u acSet) bool {
	if len(u) > len(s) {
		return false
	}
	i := 0
	for _, x := range u {
		for i < len(s) && s[i] < x {
			i++
		}
		if i == len(s) || s[i] != x {
			return false
		}
	}
	return true
}

// join makes dst know what src knows.
func (dst *state) join(src *state) {
	dst.t = dst.t.join(src.t)
	dst.ac = dst.ac.union(src.ac)
}
