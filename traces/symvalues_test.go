package traces

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/licorice-dev/licorice/internal/sympages"
)

// TestSymValues checks the record against a plain map, for Syms issued
// before it began (a table shared with earlier traces) and after, and
// that Syms far apart cost pages only where values are.
func TestSymValues(t *testing.T) {
	for _, older := range []int{0, 1, 500} {
		syms := NewSymbols()
		for i := range older {
			syms.Intern("old" + strconv.Itoa(i))
		}
		var s symValues
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
		made, page := s.vals.Pages(), 1<<sympages.Bits
		if pages := (syms.Len() + 100 + page - 1) / page; made > pages {
			t.Errorf("older %d: %d pages made for %d Syms", older, made, syms.Len()+100)
		}
	}
}

// TestSymValuesSparse: values for a few Syms far apart take a page each,
// not a table up to the largest.
func TestSymValuesSparse(t *testing.T) {
	var s symValues
	for _, y := range []Sym{3, 1 << 20, 1<<20 + 1, 1 << 24} {
		s.set(y, uint64(y)+1)
	}
	if made := s.vals.Pages(); made != 3 || s.len() != 4 {
		t.Errorf("%d pages and %d values for 4 Syms on 3 pages", s.vals.Pages(), s.len())
	}
	if s.get(1<<20+1) != 1<<20+2 || s.get(1<<20+2) != 0 || s.get(1<<25) != 0 {
		t.Error("values lost or invented")
	}
}
