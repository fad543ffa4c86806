package traces

// symValues maps Syms to nonzero uint64 values (0 means absent) for a
// record that grows with the trace, such as its finished tasks or its
// objects. The Syms issued since the record began, which are most of
// what a trace adds (its event and object ids are new strings), index a
// dense table, read without hashing; older ones, from a table shared with
// earlier traces, go to a map.
type symValues struct {
	from  Sym
	dense []uint64 // by Sym - from
	old   map[Sym]uint64
}

// newSymValues returns a record for Syms of syms from now on (and older
// ones, less cheaply).
func newSymValues(syms *Symbols) symValues {
	return symValues{from: Sym(syms.Len()), old: make(map[Sym]uint64)}
}

func (s *symValues) get(y Sym) uint64 {
	if y < s.from {
		return s.old[y]
	}
	if i := int(y - s.from); i < len(s.dense) {
		return s.dense[i]
	}
	return 0
}

// set records v (not 0) for y.
func (s *symValues) set(y Sym, v uint64) {
	if y < s.from {
		s.old[y] = v
		return
	}
	i := int(y - s.from)
	if i >= len(s.dense) {
		s.dense = append(s.dense, make([]uint64, max(i+1-len(s.dense), len(s.dense), 1024))...)
	}
	s.dense[i] = v
}

// len counts the Syms that have a value.
func (s *symValues) len() int {
	n := len(s.old)
	for _, v := range s.dense {
		if v != 0 {
			n++
		}
	}
	return n
}
