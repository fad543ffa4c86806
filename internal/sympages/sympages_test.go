package sympages

import "testing"

// TestTable checks slots against a map: what is written is read back,
// a key of a page never written has no slot, and keys far apart make a
// page each.
func TestTable(t *testing.T) {
	var tab Table[uint32, int]
	if tab.Get(5) != nil {
		t.Fatal("an empty table has a slot")
	}
	want := map[uint32]int{3: 1, 4: 2, 1 << 20: 3, 1<<20 + 1: 4, 1 << 24: 5}
	for k, v := range want {
		*tab.Slot(k) = v
	}
	if got := tab.Pages(); got != 3 {
		t.Errorf("%d pages for keys on 3 pages", got)
	}
	for k, v := range want {
		if s := tab.Get(k); s == nil || *s != v {
			t.Errorf("Get(%d) = %v, want %d", k, s, v)
		}
		if s := tab.At(k); s != tab.Get(k) {
			t.Errorf("At(%d) = %p, Get's slot is %p", k, s, tab.Get(k))
		}
	}
	if s := tab.Get(5); s == nil || *s != 0 {
		t.Errorf("Get(5), on a page written, = %v, want a zero slot", s)
	}
	if tab.Get(1<<22) != nil || tab.Get(1<<25) != nil {
		t.Error("a key on a page never written has a slot")
	}
	sum, n := 0, 0
	for s := range tab.All() {
		sum += *s
		n++
	}
	if sum != 15 || n != 3<<Bits {
		t.Errorf("All: %d slots summing to %d, want %d summing to 15", n, sum, 3<<Bits)
	}
}
