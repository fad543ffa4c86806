package asyncclock

import (
	"math/rand/v2"
	"testing"
)

// TestAnyAbove checks the two-clocks-at-a-time test against a loop over
// the clocks: it must never miss a clock of u above t's (a join would
// lose it), and it may only say "maybe" where a clock's top bit differs.
func TestAnyAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	values := []Clock{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1}
	pick := func() Clock {
		if r.IntN(4) == 0 {
			return values[r.IntN(len(values))]
		}
		return Clock(r.Uint32())
	}
	for n := range 200_000 {
		ub, vb := new(chunk), new(chunk) // allocated alone, as the engine's blocks are (anyAbove reads them 8 bytes at a time)
		u, v := &ub.clocks, &vb.clocks
		for j := range u {
			v[j] = pick()
			switch r.IntN(3) {
			case 0:
				u[j] = v[j]
			case 1:
				u[j] = v[j] - Clock(r.IntN(3)) // at most v's, unless it wraps
				if u[j] > v[j] {
					u[j] = v[j]
				}
			default:
				u[j] = pick()
			}
		}
		if n%2 == 0 { // mostly dominated: the common case at a begin
			for j := range u {
				u[j] = min(u[j], v[j])
			}
			if r.IntN(2) == 0 {
				j := r.IntN(chunkSize)
				u[j] = v[j] + 1
				if u[j] == 0 {
					u[j] = 1
					v[j] = 0
				}
			}
		}
		want, exact := false, true
		for j := range u {
			if u[j] > v[j] {
				want = true
			}
			if u[j]>>31 == 0 && v[j]>>31 == 1 {
				exact = false // v's top bit may hide a smaller u: "maybe" is allowed
			}
		}
		got := anyAbove(ub, vb)
		if want && !got {
			t.Fatalf("anyAbove(%v, %v) = false, but a clock of u is above", *u, *v)
		}
		if !want && got && exact {
			t.Fatalf("anyAbove(%v, %v) = true, but no clock of u is above", *u, *v)
		}
	}
}

// TestLastBegun checks the search from the end against a scan.
func TestLastBegun(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20_000 {
		n := 1 + r.IntN(100)
		ivs := make([]interval, n)
		k := Clock(1 + r.IntN(3))
		for i := range ivs {
			ivs[i].begin = k
			k += Clock(1 + r.IntN(4))
			ivs[i].end = k
			k += Clock(r.IntN(3))
		}
		q := ivs[0].begin + Clock(r.IntN(int(k-ivs[0].begin)+2))
		want := 0
		for i, iv := range ivs {
			if iv.begin <= q {
				want = i
			}
		}
		if got := lastBegun(ivs, q); got != &ivs[want] {
			t.Fatalf("lastBegun(%v, %d) = %v, want index %d", ivs, q, *got, want)
		}
	}
}

// TestBlocksVec checks the AVX2 compare and raise of blocks against the
// obvious loops (and maxBlocksGo), with clocks of every size, top bits
// included: compareVec must be exact both ways, and maxBlocksVec must write the
// larger clock of each pair, in place or into another block, and nothing
// past the clocks.
func TestBlocksVec(t *testing.T) {
	if !vecBlocks {
		t.Skip("no AVX2 on this machine: blocks are compared in Go")
	}
	r := rand.New(rand.NewPCG(9, 10))
	values := []Clock{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<31 + 1, 1<<32 - 1}
	pick := func() Clock {
		if r.IntN(4) == 0 {
			return values[r.IntN(len(values))]
		}
		return Clock(r.Uint32() >> r.IntN(32))
	}
	var seen [2][2]int // cases by whether u has a clock above v's, and one below
	for n := range 200_000 {
		ub, vb := &chunk{at: 7}, &chunk{at: 9}
		u, v := &ub.clocks, &vb.clocks
		for j := range u {
			v[j], u[j] = pick(), pick()
			switch n % 4 {
			case 0: // dominated: the common case at a begin
				u[j] = min(u[j], v[j])
			case 1: // dominating: a block taken whole
				u[j] = max(u[j], v[j])
			case 2:
				u[j] = v[j]
			}
		}
		if j := r.IntN(chunkSize); r.IntN(2) == 0 && v[j] < 1<<32-1 { // one clock just above, anywhere
			u[j] = v[j] + 1
		} else if r.IntN(2) == 0 && v[j] > 0 { // or just below
			u[j] = v[j] - 1
		}
		want, wantBelow := false, false
		for j := range u {
			want = want || u[j] > v[j]
			wantBelow = wantBelow || u[j] < v[j]
		}
		if got, gotBelow := compareVec(ub, vb); got != want || gotBelow != wantBelow {
			t.Fatalf("compareVec(%v, %v) = %v, %v, want %v, %v", *u, *v, got, gotBelow, want, wantBelow)
		}
		seen[b2i(want)][b2i(wantBelow)]++
		for _, pair := range [2][2]*chunk{{ub, vb}, {vb, ub}} {
			inPlace, made, ref := *pair[0], &chunk{at: 5}, new(chunk)
			maxBlocksVec(&inPlace, &inPlace, pair[1])
			maxBlocksVec(made, pair[0], pair[1])
			maxBlocksGo(ref, pair[0], pair[1])
			for j := range chunkSize {
				want := max(pair[0].clocks[j], pair[1].clocks[j])
				if inPlace.clocks[j] != want || made.clocks[j] != want || ref.clocks[j] != want {
					t.Fatalf("maxBlocks(%v, %v): clock %d is %d in place, %d into a new block and %d in Go, want %d",
						pair[0].clocks, pair[1].clocks, j, inPlace.clocks[j], made.clocks[j], ref.clocks[j], want)
				}
			}
			if inPlace.at != pair[0].at || made.at != 5 {
				t.Fatalf("maxBlocksVec wrote past the clocks: at %v and %v", inPlace.at, made.at)
			}
		}
	}
	for a := range 2 {
		for b := range 2 {
			if seen[a][b] < 10_000 {
				t.Fatalf("cases by (a clock above, a clock below): %v: the test checks little", seen)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
