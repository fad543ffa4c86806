package traces

import "math"

// Numbered ids. Most strings new to a trace are ids that a program numbers
// as it goes: events E1, E2..., objects o17, handles m3, threads, locks.
// Symbols keeps such a string, prefix + number, in a dense array of its
// prefix indexed by the number, instead of in its hash table: consecutive
// numbers then find their Syms in consecutive memory, where the hash table
// would put them in random slots of a large table, one cache miss each.
//
// Which strings qualify: a prefix of at most numMaxPrefix bytes that does
// not end in a digit, then the canonical decimal of a number below 10^8
// (no sign, no leading zero but in "0"). Each string still has exactly one
// place. An array covers a range of its prefix's numbers, and grows only
// while it stays dense (numMaxSpan), so that its memory stays proportional
// to the strings it holds; a number it cannot take goes to the hash table,
// and the prefix remembers the range of the numbers it left there. A
// string is in its array unless its number is in that range and the array
// has no Sym for it: then it is in the hash table, or new, and if new it
// goes there too. A number outside the range needs no probe of the hash
// table.

const (
	numMaxPrefix = 7
	numMaxDigits = 8
	numMaxLen    = numMaxPrefix + numMaxDigits
	// numPrefixSlots is the size of the table of prefixes, which takes at
	// most half as many prefixes; the strings of any others go to the hash
	// table.
	numPrefixSlots = 64
	// numSlack is how far below its first number a prefix's range starts:
	// room for ids a trace uses a little out of order.
	numSlack = 32
)

// numMaxSpan is the most numbers a prefix that holds count strings may
// cover: 8 array slots (32 bytes) per string, plus some to start with.
func numMaxSpan(count int) int { return 8 * (count + 64) }

// numbered is the dense array of one prefix.
type numbered struct {
	base  uint32 // the number of syms[0]
	syms  []Sym  // syms[n-base] is the Sym of prefix+n, or NoSym
	count int    // strings in syms
	// hashLo..hashHi holds every number of this prefix whose string was
	// put in the hash table instead (empty if hashLo > hashHi).
	hashLo, hashHi uint32
}

// numKey returns the key of a numbered string's prefix, its number and
// true, or false if s is not a numbered string. The key is the prefix's
// bytes and its length plus one in the top byte, so it is never 0.
func numKey(s string) (key uint64, n uint32, ok bool) {
	if len(s) > numMaxLen {
		return 0, 0, false
	}
	i, ten := len(s), uint32(1)
	for ; i > 0 && s[i-1]-'0' < 10; i-- {
		n += uint32(s[i-1]-'0') * ten
		ten *= 10
	}
	d := len(s) - i
	if d == 0 || d > numMaxDigits || i > numMaxPrefix || (d > 1 && s[i] == '0') {
		return 0, 0, false
	}
	key = uint64(i+1) << 56
	for j := range i {
		key |= uint64(s[j]) << (8 * j)
	}
	return key, n, true
}

// numSlot is a slot of the table of prefixes: a prefix's key (0 if the
// slot is free) and its array.
type numSlot struct {
	key uint64
	numbered
}

// numFor returns the array of key's prefix; if there is none, it adds one
// if add is true and there is room, or returns nil.
func (t *Symbols) numFor(key uint64, add bool) *numbered {
	for i := key * 0x9e3779b97f4a7c15 >> 58; ; i = (i + 1) % numPrefixSlots {
		e := &t.numSlots[i]
		if e.key == key {
			return &e.numbered
		}
		if e.key == 0 {
			if !add || 2*t.prefixes >= numPrefixSlots {
				return nil
			}
			e.key, e.numbered = key, numbered{hashLo: math.MaxUint32}
			t.prefixes++
			return &e.numbered
		}
	}
}

// internNumbered returns the Sym of s, the numbered string prefix+n whose
// prefix has key, adding it if it is new, and true; or false if s belongs
// to the hash table (where it may or may not be yet).
func (t *Symbols) internNumbered(s string, key uint64, n uint32) (Sym, bool) {
	a := t.numFor(key, true)
	if a == nil {
		return NoSym, false
	}
	i := n - a.base
	if uint64(i) >= uint64(len(a.syms)) {
		if !a.cover(n) {
			a.hashLo, a.hashHi = min(a.hashLo, n), max(a.hashHi, n)
			return NoSym, false
		}
		i = n - a.base
	}
	if y := a.syms[i]; y != NoSym {
		return y, true
	}
	if a.hashLo <= n && n <= a.hashHi {
		return NoSym, false
	}
	y := t.addRef(t.copyShort(s))
	a.syms[i] = y
	a.count++
	return y, true
}

// lookupNumbered is internNumbered without adding: the Sym of s if it is
// in an array, and whether the answer is final (false: ask the hash
// table).
func (t *Symbols) lookupNumbered(key uint64, n uint32) (Sym, bool) {
	a := t.numFor(key, false)
	if a == nil {
		return NoSym, false
	}
	if i := n - a.base; uint64(i) < uint64(len(a.syms)) {
		if y := a.syms[i]; y != NoSym || n < a.hashLo || n > a.hashHi {
			return y, true
		}
	}
	return NoSym, false
}

// cover grows a's range to hold n and reports whether it could: the range
// at least doubles, but never beyond numMaxSpan of the strings it will
// hold.
func (a *numbered) cover(n uint32) bool {
	limit := uint64(numMaxSpan(a.count + 1))
	if len(a.syms) == 0 {
		a.base = n - min(n, numSlack)
		a.syms = make([]Sym, min(limit, 2*numSlack))
		return true
	}
	lo, hi := uint64(a.base), uint64(a.base)+uint64(len(a.syms)) // [lo, hi)
	grown := min(limit, 2*(hi-lo))
	if uint64(n) < lo {
		if hi-uint64(n) > limit {
			return false
		}
		lo = hi - min(hi, max(hi-uint64(n), grown))
	} else {
		if uint64(n)+1-lo > limit {
			return false
		}
		hi = lo + max(uint64(n)+1-lo, grown)
	}
	syms := make([]Sym, hi-lo)
	copy(syms[uint64(a.base)-lo:], a.syms)
	a.base, a.syms = uint32(lo), syms
	return true
}
