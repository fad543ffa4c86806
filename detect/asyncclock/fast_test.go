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
