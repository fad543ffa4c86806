package asyncclock

import (
	"iter"
	"math/bits"

	"github.com/licorice-dev/licorice/traces"
)

// symTable maps Syms to non-nil *T, in place of a map[traces.Sym]*T on
// the engine's path per operation: a lookup is two indexings, not a hash.
//
// traces.Symbols hands Syms out in order of first appearance, so the ids
// live at one time (running tasks, tracked events) sit mostly in a band
// just below the newest Sym, with a few old ones (threads' own tasks,
// long-pending events) far below. The table keeps them in pages of symPageSize slots,
// allocated when a page gets its first entry and dropped with its last,
// so that its memory follows the entries held, not the length of the
// trace: the pages that hold entries, and a directory of one pointer per
// page (8 bytes per 1024 Syms) from the page of the lowest entry held to
// that of the highest entry set since it was the lowest. It does not
// suit ids that are kept for good and spread over the whole trace, such
// as threads': it would keep a page for most of them.
type symTable[T any] struct {
	base  int           // the page number of pages[0]
	pages []*symPage[T] // by page number − base; nil: holds nothing
	n     int           // entries held
	spare *symPage[T]   // the last page dropped, empty, for the next page needed
}

// symPageBits is the log₂ of the slots of a page: 1024 slots, 8 KiB.
const (
	symPageBits = 10
	symPageSize = 1 << symPageBits
	symPageMask = symPageSize - 1
)

type symPage[T any] struct {
	n     int                      // non-nil slots
	used  [symPageSize / 64]uint64 // bit j%64 of used[j/64]: slots[j] is not nil (for all)
	slots [symPageSize]*T
}

// get returns the entry of y, or nil.
func (t *symTable[T]) get(y traces.Sym) *T {
	if p := t.page(int(y >> symPageBits)); p != nil {
		return p.slots[y&symPageMask]
	}
	return nil
}

// page returns page pn, or nil.
func (t *symTable[T]) page(pn int) *symPage[T] {
	if i := pn - t.base; uint(i) < uint(len(t.pages)) {
		return t.pages[i]
	}
	return nil
}

// set makes v, which must not be nil, the entry of y.
func (t *symTable[T]) set(y traces.Sym, v *T) {
	pn := int(y >> symPageBits)
	switch {
	case len(t.pages) == 0:
		t.base = pn
		t.pages = append(t.pages[:0], nil)
	case pn < t.base:
		// Rare: an id older than every entry held.
		grown := make([]*symPage[T], t.base-pn+len(t.pages))
		copy(grown[t.base-pn:], t.pages)
		t.pages, t.base = grown, pn
	case pn-t.base >= len(t.pages):
		t.pages = append(t.pages, make([]*symPage[T], pn-t.base+1-len(t.pages))...)
	}
	p := t.pages[pn-t.base]
	if p == nil {
		p = t.spare
		t.spare = nil
		if p == nil {
			p = new(symPage[T])
		}
		t.pages[pn-t.base] = p
	}
	j := y & symPageMask
	if p.slots[j] == nil {
		p.n++
		t.n++
		p.used[j/64] |= 1 << (j % 64)
	}
	p.slots[j] = v
}

// delete removes the entry of y, if any.
func (t *symTable[T]) delete(y traces.Sym) {
	i := int(y>>symPageBits) - t.base
	if uint(i) >= uint(len(t.pages)) {
		return
	}
	p, j := t.pages[i], y&symPageMask
	if p == nil || p.slots[j] == nil {
		return
	}
	p.slots[j] = nil
	p.used[j/64] &^= 1 << (j % 64)
	t.n--
	if p.n--; p.n > 0 {
		return
	}
	// The page is empty: drop it, and the directory's empty pages below
	// the lowest entry (each page passes there once), but not above the
	// highest: the page of the next new id is there, at or near the top.
	t.pages[i] = nil
	t.spare = p
	if t.n == 0 {
		clear(t.pages)
		t.pages, t.base = t.pages[:0], 0
		return
	}
	if i == 0 {
		lo := 1
		for t.pages[lo] == nil {
			lo++
		}
		t.pages = t.pages[lo:]
		t.base += lo
	}
}

// len returns the number of entries.
func (t *symTable[T]) len() int { return t.n }

// all yields the entries in order of Sym. The body may delete the entry
// it is given, and set or delete others (whether the iteration then
// yields an entry set meanwhile is unspecified).
func (t *symTable[T]) all() iter.Seq2[traces.Sym, *T] {
	return func(yield func(traces.Sym, *T) bool) {
		for pn := t.base; pn-t.base < len(t.pages); pn++ {
			for w := range symPageSize / 64 {
				p := t.page(pn)
				if p == nil {
					break
				}
				for used := p.used[w]; used != 0; used &= used - 1 {
					// Look the page up again for every entry: the body may
					// have dropped it, or moved the directory.
					j := w*64 + bits.TrailingZeros64(used)
					if p := t.page(pn); p != nil && p.slots[j] != nil && !yield(traces.Sym(pn<<symPageBits|j), p.slots[j]) {
						return
					}
				}
			}
		}
	}
}
