package detect

import (
	"math/rand/v2"
	"testing"

	"github.com/licorice-dev/licorice/internal/sympages"
	"github.com/licorice-dev/licorice/traces"
)

// TestEventTable checks the table against a map over random ids: what was
// added is found with its fields, anything else is not, and an id sent
// again starts a new record.
func TestEventTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var tab eventTable
	want := map[traces.Sym]int64{}
	for i := range 5000 {
		y := traces.Sym(r.IntN(1 << 14))
		if r.IntN(8) == 0 {
			y += 1 << 20 // a page far away, with none between
		}
		ev := tab.add(y)
		if ev.sendPos != 0 || ev.sender != traces.NoSym {
			t.Fatalf("record of %d added again is not new: %+v", y, ev)
		}
		ev.sendPos, ev.sender = int64(i+1), traces.Sym(i+1)
		want[y] = int64(i + 1)
	}
	for y := range traces.Sym(1<<20 + 1<<14 + 2<<sympages.Bits) {
		ev := tab.get(y)
		pos, ok := want[y]
		switch {
		case ok && (ev == nil || ev.sendPos != pos):
			t.Fatalf("get(%d) = %+v, want the record of send %d", y, ev, pos)
		case !ok && ev != nil:
			t.Fatalf("get(%d) = %+v, want nil", y, ev)
		}
	}
}

// TestSymSet checks the set against a map over random ids.
func TestSymSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var s symSet
	want := map[traces.Sym]bool{}
	for range 2000 {
		y := traces.Sym(r.IntN(1 << 15))
		s.add(y)
		want[y] = true
	}
	for y := range traces.Sym(1<<15 + 200) {
		if s.has(y) != want[y] {
			t.Fatalf("has(%d) = %v, want %v", y, s.has(y), want[y])
		}
	}
}
