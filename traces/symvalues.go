package traces

// symValues maps Syms to nonzero uint64 values (0 means absent) for a
// record that grows with the trace, such as its finished tasks or its
// objects: a lookup is two indexings, not a hash. It keeps pages of
// symValuesPage values, made when first set: a trace's ids are mostly
// new Syms, issued one after the other, so its pages are full; a Sym of a
// table shared with earlier traces (a thread named as in the last trace)
// costs a page of its own, and a trace read again with the Symbols of
// its first read (detect's passes) finds every page dense, where a map
// of a million old Syms was 25 MiB and a tenth of detect's reading.
type symValues struct {
	pages [][]uint64 // by Sym >> symValuesBits; nil: no value there
	n     int        // values set
}

const (
	symValuesBits = 9
	symValuesPage = 1 << symValuesBits
)

func (s *symValues) get(y Sym) uint64 {
	if pn := int(y >> symValuesBits); pn < len(s.pages) {
		if p := s.pages[pn]; p != nil {
			return p[y&(symValuesPage-1)]
		}
	}
	return 0
}

// set records v (not 0) for y.
func (s *symValues) set(y Sym, v uint64) {
	pn := int(y >> symValuesBits)
	if pn >= len(s.pages) {
		s.pages = append(s.pages, make([][]uint64, pn+1-len(s.pages))...)
	}
	p := s.pages[pn]
	if p == nil {
		p = make([]uint64, symValuesPage)
		s.pages[pn] = p
	}
	if p[y&(symValuesPage-1)] == 0 {
		s.n++
	}
	p[y&(symValuesPage-1)] = v
}

// len counts the Syms that have a value.
func (s *symValues) len() int { return s.n }
