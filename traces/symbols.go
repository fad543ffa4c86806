package traces

import "hash/maphash"

// Sym is an interned string: a task, queue, object or field id, a handler
// name, a source location, the contents of a string value. Syms are only
// meaningful with the [Symbols] table that issued them. The zero Sym is
// [NoSym], which stands for "absent".
type Sym uint32

// NoSym is the absent symbol; its string is "".
const NoSym Sym = 0

// Symbols interns strings. Equal strings get equal Syms, so analyses compare
// and hash 4-byte ids instead of strings. A table may be shared by several
// readers (see [WithSymbols]) to make Syms comparable across traces.
//
// Symbols is not safe for concurrent use.
type Symbols struct {
	strs []string // strs[0] == ""
	// slots is an open-addressing hash table of the Syms, at most half
	// full: each slot holds the high 32 bits of the string's hash and its
	// Sym, or 0 if empty (no string but "" has Sym 0, and "" is not
	// stored). One hash and one probe sequence find a string or the slot
	// to add it in; the hash bits kept in the slot spare most string
	// comparisons.
	slots []uint64
	seed  maphash.Seed
	gen   uint64
}

const minSlots = 64

// NewSymbols returns an empty table.
func NewSymbols() *Symbols {
	return &Symbols{strs: []string{""}, slots: make([]uint64, minSlots), seed: maphash.MakeSeed()}
}

// find returns the Sym of s, or 0 and the slot where s belongs.
func (t *Symbols) find(s string, h uint64) (Sym, int) {
	mask := uint64(len(t.slots) - 1)
	tag := h >> 32
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return NoSym, int(i)
		}
		if e>>32 == tag && t.strs[uint32(e)] == s {
			return Sym(uint32(e)), int(i)
		}
	}
}

// Intern returns the Sym of s, adding s to the table if it is new. The
// empty string is NoSym.
func (t *Symbols) Intern(s string) Sym {
	if s == "" {
		return NoSym
	}
	h := maphash.String(t.seed, s)
	y, slot := t.find(s, h)
	if y != NoSym {
		return y
	}
	return t.add(s, h, slot)
}

// InternBytes is Intern for a byte slice; it allocates only when b is new.
func (t *Symbols) InternBytes(b []byte) Sym {
	if len(b) == 0 {
		return NoSym
	}
	h := maphash.Bytes(t.seed, b)
	y, slot := t.find(string(b), h) // the conversion does not allocate
	if y != NoSym {
		return y
	}
	return t.add(string(b), h, slot)
}

func (t *Symbols) add(s string, h uint64, slot int) Sym {
	y := Sym(len(t.strs))
	t.strs = append(t.strs, s)
	t.slots[slot] = h>>32<<32 | uint64(y)
	if 2*len(t.strs) > len(t.slots) {
		t.grow()
	}
	return y
}

// grow doubles the hash table.
func (t *Symbols) grow() {
	t.slots = make([]uint64, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for y, s := range t.strs[1:] {
		h := maphash.String(t.seed, s)
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = h>>32<<32 | uint64(y+1)
	}
}

// Lookup returns the Sym of s if s is in the table.
func (t *Symbols) Lookup(s string) (Sym, bool) {
	if s == "" {
		return NoSym, true
	}
	y, _ := t.find(s, maphash.String(t.seed, s))
	return y, y != NoSym
}

// String returns the string of y. It panics if y was not issued by t (a
// programming error, never a property of input).
func (t *Symbols) String(y Sym) string { return t.strs[y] }

// Len is the number of Syms issued, counting NoSym.
func (t *Symbols) Len() int { return len(t.strs) }

// Reset forgets every string, so the table's memory no longer grows with
// the trace. Every Sym issued before is invalid afterwards. Consumers that
// keep only counts (for example `traces stat`) call it periodically to read
// traces of any size in flat memory.
func (t *Symbols) Reset() {
	clear(t.strs[1:])
	t.strs = t.strs[:1]
	clear(t.slots)
	t.gen++
}

// Generation counts the calls of Reset; decoders that cache Syms compare it
// to know when their cache went stale.
func (t *Symbols) Generation() uint64 { return t.gen }
