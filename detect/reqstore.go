package detect

import (
	"cmp"
	"slices"

	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// reqRec is a REQ as the first pass finds it: all of its touch but the
// times and the unit.
type reqRec struct {
	cond        int32
	holds       bool
	first, last int64 // its first and last ops: the event's first reads of the data
	line        int
	src         traces.Sym
	handler     traces.Sym
	spec        *learn.Condition
	vals        []traces.Value
}

// reqStore holds the REQs the first pass finds for the second, which
// takes each once, at its first op, and frees them a chunk at a time as
// it goes: they are most of what the first pass leaves.
type reqStore struct {
	chunks [][]reqRec
	left   []int32 // per chunk, its REQs not yet taken
	n      int32
	// byFirst and byLast are the REQs in the order of their first and
	// last ops (made by sort) not yet taken from nextFirst and nextLast
	// on, the next of each.
	byFirst             []int32
	byLast              []posRef
	nextFirst, nextLast int
}

// posRef is a REQ and one of its ops.
type posRef struct {
	pos int64
	req int32
}

// reqChunk is how many REQs a chunk holds.
const reqChunk = 1 << 12

// add stores r and returns its number.
func (s *reqStore) add(r reqRec) int32 {
	if s.n%reqChunk == 0 {
		s.chunks = append(s.chunks, make([]reqRec, 0, reqChunk))
		s.left = append(s.left, 0)
	}
	c := len(s.chunks) - 1
	s.chunks[c] = append(s.chunks[c], r)
	s.left[c]++
	s.n++
	return s.n - 1
}

// at returns REQ i, not yet taken.
func (s *reqStore) at(i int32) *reqRec { return &s.chunks[i/reqChunk][i%reqChunk] }

// sort orders the REQs by their first and last ops (the order found
// among equals), for the second pass.
func (s *reqStore) sort() {
	s.byFirst = make([]int32, s.n)
	s.byLast = make([]posRef, s.n)
	for i := range s.n {
		s.byFirst[i] = i
		s.byLast[i] = posRef{s.at(i).last, i}
	}
	slices.SortStableFunc(s.byFirst, func(a, b int32) int { return cmp.Compare(s.at(a).first, s.at(b).first) })
	slices.SortStableFunc(s.byLast, func(a, b posRef) int { return cmp.Compare(a.pos, b.pos) })
}

// firstAt returns the next REQ whose first op is pos (or before: only a
// trace that changed between the passes has one), taken (its chunk freed
// once all of its REQs are), or false.
func (s *reqStore) firstAt(pos int64) (int32, reqRec, bool) {
	if s.nextFirst == len(s.byFirst) {
		return 0, reqRec{}, false
	}
	i := s.byFirst[s.nextFirst]
	r := s.at(i)
	if r.first > pos {
		return 0, reqRec{}, false
	}
	s.byFirst, s.nextFirst = dropTaken(s.byFirst, s.nextFirst+1)
	rec := *r
	*r = reqRec{} // its values go with the touch
	c := i / reqChunk
	if s.left[c]--; s.left[c] == 0 {
		s.chunks[c] = nil
	}
	return i, rec, true
}

// lastAt returns the next REQ whose last op is pos (or before), or false.
func (s *reqStore) lastAt(pos int64) (int32, bool) {
	if s.nextLast == len(s.byLast) || s.byLast[s.nextLast].pos > pos {
		return 0, false
	}
	i := s.byLast[s.nextLast].req
	s.byLast, s.nextLast = dropTaken(s.byLast, s.nextLast+1)
	return i, true
}

// dropTaken returns order and next, the index of its first entry not
// yet taken, or once the entries taken are at least minShrink and half
// of it, a copy of order without them and 0.
func dropTaken[T any](order []T, next int) ([]T, int) {
	if next >= minShrink && next >= len(order)/2 {
		return slices.Clone(order[next:]), 0
	}
	return order, next
}

// minShrink is the fewest REQs taken from the front of an order before
// it is copied without them, once they are half of it: the copies cost
// O(1) per REQ, and the order's memory goes as the pass goes.
const minShrink = 1 << 12
