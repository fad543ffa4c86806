package detect

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReqStore checks that the second pass takes the REQs in the order
// of their first ops and of their last ops, each at its op (stable among
// equals), against sorting them all, and that the orders give back the
// room of what was taken.
func TestReqStore(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n = 5*minShrink + 123
	var s reqStore
	firsts, lasts := make([]int64, n), make([]int64, n)
	for i := range n {
		first := int64(r.IntN(3 * n))
		last := first + int64(r.IntN(50))
		firsts[i], lasts[i] = first, last
		if got := s.add(reqRec{first: first, last: last, cond: int32(i)}); got != int32(i) {
			t.Fatalf("REQ %d numbered %d", i, got)
		}
	}
	s.sort()
	order := func(pos []int64) []int32 {
		o := make([]int32, n)
		for i := range o {
			o[i] = int32(i)
		}
		slices.SortStableFunc(o, func(a, b int32) int { return cmp.Compare(pos[a], pos[b]) })
		return o
	}
	wantFirst, wantLast := order(firsts), order(lasts)
	var gotFirst, gotLast []int32
	for pos := range int64(3*n + 60) {
		for {
			i, rec, ok := s.firstAt(pos)
			if !ok {
				break
			}
			if rec.first != pos || rec.cond != i {
				t.Fatalf("at op %d, firstAt gave REQ %d of first op %d (cond %d)", pos, i, rec.first, rec.cond)
			}
			gotFirst = append(gotFirst, i)
		}
		for {
			i, ok := s.lastAt(pos)
			if !ok {
				break
			}
			if lasts[i] != pos {
				t.Fatalf("at op %d, lastAt gave REQ %d of last op %d", pos, i, lasts[i])
			}
			gotLast = append(gotLast, i)
		}
		if left := n - len(gotFirst); cap(s.byFirst) > 2*left+2*minShrink {
			t.Fatalf("at op %d, %d REQs left to take by first op, but the order holds room for %d", pos, left, cap(s.byFirst))
		}
	}
	if !slices.Equal(gotFirst, wantFirst) || !slices.Equal(gotLast, wantLast) {
		t.Errorf("REQs taken out of order: by first %v..., by last %v...", gotFirst[:min(10, len(gotFirst))], gotLast[:min(10, len(gotLast))])
	}
	for c, ch := range s.chunks {
		if ch != nil {
			t.Errorf("chunk %d of REQs not freed after all were taken", c)
		}
	}
}
