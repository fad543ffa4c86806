package traces

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestSymValues checks the record against a plain map, for Syms issued
// before it began (the map side) and after (the dense side).
func TestSymValues(t *testing.T) {
	for _, older := range []int{0, 1, 500} {
		syms := NewSymbols()
		for i := range older {
			syms.Intern("old" + strconv.Itoa(i))
		}
		s := newSymValues(syms)
		for i := range 3000 {
			syms.Intern("new" + strconv.Itoa(i))
		}
		want := make(map[Sym]uint64)
		rng := rand.New(rand.NewPCG(uint64(older), 1))
		for range 5000 {
			y := Sym(rng.IntN(syms.Len() + 100)) // some beyond any Sym issued
			if rng.IntN(2) == 0 {
				v := rng.Uint64() | 1
				s.set(y, v)
				want[y] = v
			}
			if got := s.get(y); got != want[y] {
				t.Fatalf("older %d: get(%d) = %d, want %d", older, y, got, want[y])
			}
		}
		for y := range Sym(syms.Len() + 100) {
			if got := s.get(y); got != want[y] {
				t.Fatalf("older %d: get(%d) = %d, want %d", older, y, got, want[y])
			}
		}
		if s.len() != len(want) {
			t.Errorf("older %d: len %d, want %d", older, s.len(), len(want))
		}
		if older > 0 && len(s.old) == 0 {
			t.Errorf("older %d: no Sym went to the map", older)
		}
	}
}
