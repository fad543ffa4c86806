package sympages

import "iter"

// Bits is the log₂ of the slots of a page.
const (
	Bits = 9
	size = 1 << Bits
)

// Table maps keys to slots of type V. The zero Table is empty.
type Table[K ~uint32, V any] struct {
	pages []*[size]V // by key >> Bits; nil: never written
}

// Get returns k's slot, or nil if no slot of its page was ever taken.
func (t *Table[K, V]) Get(k K) *V {
	if pn := int(k >> Bits); pn < len(t.pages) {
		if p := t.pages[pn]; p != nil {
			return &p[k&(size-1)]
		}
	}
	return nil
}

// At returns k's slot, which must have been taken (by Slot) before: a
// lookup without a test, for a table whose keys a caller hands out.
func (t *Table[K, V]) At(k K) *V { return &t.pages[k>>Bits][k&(size-1)] }

// Slot returns k's slot, making its page (of zero values) if need be.
func (t *Table[K, V]) Slot(k K) *V {
	pn := int(k >> Bits)
	if pn >= len(t.pages) {
		t.pages = append(t.pages, make([]*[size]V, pn+1-len(t.pages))...)
	}
	p := t.pages[pn]
	if p == nil {
		p = new([size]V)
		t.pages[pn] = p
	}
	return &p[k&(size-1)]
}

// Pages counts the pages made.
func (t *Table[K, V]) Pages() int {
	n := 0
	for _, p := range t.pages {
		if p != nil {
			n++
		}
	}
	return n
}

// All yields every slot of the pages made, in key order.
func (t *Table[K, V]) All() iter.Seq[*V] {
	return func(yield func(*V) bool) {
		for _, p := range t.pages {
			if p == nil {
				continue
			}
			for i := range p {
				if !yield(&p[i]) {
					return
				}
			}
		}
	}
}
