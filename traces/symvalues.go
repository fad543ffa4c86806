package traces

import "github.com/licorice-dev/licorice/internal/sympages"

// symValues maps Syms to nonzero uint64 values (0 means absent) for a
// record that grows with the trace, such as its finished tasks or its
// objects: a lookup is two indexings, not a hash (sympages). A trace's
// ids are mostly new Syms, issued one after the other, so its pages are
// full; a Sym of a table shared with earlier traces (a thread named as in
// the last trace) costs a page of its own, and a trace read again with
// the Symbols of its first read (detect's passes) finds every page
// dense, where a map of a million old Syms was 25 MiB and a tenth of
// detect's reading.
type symValues struct {
	vals sympages.Table[Sym, uint64]
	n    int // values set
}

func (s *symValues) get(y Sym) uint64 {
	if v := s.vals.Get(y); v != nil {
		return *v
	}
	return 0
}

// set records v (not 0) for y.
func (s *symValues) set(y Sym, v uint64) {
	p := s.vals.Slot(y)
	if *p == 0 {
		s.n++
	}
	*p = v
}

// len counts the Syms that have a value.
func (s *symValues) len() int { return s.n }
