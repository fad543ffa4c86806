package traces

import (
	"hash/maphash"
	"sync"
	"unsafe"
)

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
// Symbols is not safe for concurrent use, except while [EachAhead] reads
// a trace into it: then its methods may be called by the visiting
// goroutine while the reading goroutine interns (see share).
type Symbols struct {
	// refs[y>>refBits][y&refMask] says where the bytes of Sym y are (see
	// strRef), for the nrefs Syms issued; refs grows a chunk at a time,
	// so that a large table is neither copied nor allocated twice over
	// as it grows. Most strings are copied into chunks of an arena, so
	// that a new string costs no allocation of its own and the table
	// holds no pointer per string for the garbage collector to scan.
	refs   [][]uint64
	nrefs  int
	chunks [][]byte // the arena; bytes once written into a chunk never change
	fill   int      // bytes used in the last chunk
	long   []string // strings longer than arenaMaxString; long[0] == ""

	// slots is an open-addressing hash table of the Syms that are not
	// numbered ids kept in numSlots, at most half full: each slot holds
	// the low 32 bits of the string's hash and its Sym, or 0 if empty (no
	// string but "" has Sym 0, and "" is not stored). One hash and one
	// probe sequence find a string or the slot to add it in; the hash
	// bits kept in the slot spare most string comparisons, and growing
	// the table, which needs no more bits of the hash than these, never
	// hashes a string again.
	slots  []uint64
	hashed int // Syms in slots
	seed   maphash.Seed
	// numSlots keeps most numbered ids (E12, o7) apart from slots, in an
	// array per prefix (numbered.go): a small hash table of the
	// prefixes, which holds prefixes of them.
	numSlots [numPrefixSlots]numSlot
	prefixes int
	// touched keeps the slots internSpans loads ahead of its probes, so
	// that the compiler does not drop the loads; its value means nothing.
	touched uint64
	gen     uint64

	// shared is set while two goroutines use the table, the one that
	// set it and one it started; every exported method then holds mu
	// (find and the other unexported methods assume it is held).
	shared bool
	mu     sync.Mutex
}

const (
	minSlots = 64
	// arenaChunk is the size of the arena's chunks; strings longer than
	// arenaMaxString are kept apart.
	arenaChunk     = 64 << 10
	arenaMaxString = 1 << 10

	// refs grows in chunks of 1<<refBits strRefs.
	refBits = 10
	refMask = 1<<refBits - 1

	// A strRef is longRef | an index in long, or a chunk index << 32 |
	// an offset in the chunk << 16 | a length.
	longRef = 1 << 63
)

// NewSymbols returns an empty table.
func NewSymbols() *Symbols {
	t := &Symbols{long: []string{""}, slots: make([]uint64, minSlots), seed: maphash.MakeSeed()}
	t.addRef(longRef) // NoSym is ""
	return t
}

// find returns the Sym of s, or 0 and the slot where s belongs.
func (t *Symbols) find(s string, h uint64) (Sym, int) {
	mask := uint64(len(t.slots) - 1)
	tag := uint64(uint32(h))
	for i := h & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return NoSym, int(i)
		}
		if e>>32 == tag && t.str(Sym(uint32(e))) == s {
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
	if t.shared {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if key, n, ok := numKey(s); ok {
		if y, ok := t.internNumbered(s, key, n); ok {
			return y
		}
	}
	h := maphash.String(t.seed, s)
	y, slot := t.find(s, h)
	if y != NoSym {
		return y
	}
	if len(s) > arenaMaxString {
		return t.addHashed(t.addLong(s), h, slot)
	}
	return t.addHashed(t.copyShort(s), h, slot)
}

// InternBytes is Intern for a byte slice; it allocates only when b is new
// and long, or fills a chunk of the arena.
func (t *Symbols) InternBytes(b []byte) Sym {
	if len(b) == 0 {
		return NoSym
	}
	if t.shared {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	s := unsafe.String(unsafe.SliceData(b), len(b)) // nothing keeps a reference to it
	if key, n, ok := numKey(s); ok {
		if y, ok := t.internNumbered(s, key, n); ok {
			return y
		}
	}
	h := maphash.Bytes(t.seed, b)
	y, slot := t.find(s, h)
	if y != NoSym {
		return y
	}
	return t.addBytes(b, h, slot)
}

// addBytes adds b, a new string of hash h whose place in slots is slot.
func (t *Symbols) addBytes(b []byte, h uint64, slot int) Sym {
	if len(b) > arenaMaxString {
		return t.addHashed(t.addLong(string(b)), h, slot)
	}
	return t.addHashed(t.copyShort(unsafe.String(unsafe.SliceData(b), len(b))), h, slot)
}

// internSpans appends to out the Syms of the strings raw[sp.start:sp.end]
// for each of spans (none of them empty), as InternBytes would, in order.
// Most strings new to a block are numbered ids, which need no hash; it
// hashes the others of a group of strings, and loads their first slots,
// before it probes for any of them, so that the cache misses of a group's
// probes overlap instead of coming one after the other.
func (t *Symbols) internSpans(raw []byte, spans []strSpan, out []Sym) []Sym {
	if t.shared {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	const group = 32
	var (
		hs   [group]uint64 // a string's hash, if it is not numbered
		keys [group]uint64 // a numbered string's prefix, or 0
		ns   [group]uint32 // and its number
	)
	for len(spans) > 0 {
		g := spans[:min(group, len(spans))]
		spans = spans[len(g):]
		mask := uint64(len(t.slots) - 1)
		var touch uint64
		for i, sp := range g {
			b := raw[sp.start:sp.end]
			if keys[i], ns[i], _ = numKey(unsafe.String(unsafe.SliceData(b), len(b))); keys[i] != 0 {
				continue
			}
			hs[i] = maphash.Bytes(t.seed, b)
			touch |= t.slots[hs[i]&mask]
		}
		t.touched |= touch
		for i, sp := range g {
			b := raw[sp.start:sp.end]
			s := unsafe.String(unsafe.SliceData(b), len(b))
			h := hs[i]
			if keys[i] != 0 {
				if y, ok := t.internNumbered(s, keys[i], ns[i]); ok {
					out = append(out, y)
					continue
				}
				h = maphash.Bytes(t.seed, b)
			}
			y, slot := t.find(s, h)
			if y == NoSym {
				y = t.addBytes(b, h, slot)
			}
			out = append(out, y)
		}
	}
	return out
}

// copyShort copies b (at most arenaMaxString bytes) into the arena and
// returns its strRef.
func (t *Symbols) copyShort(b string) uint64 {
	if len(t.chunks) == 0 || t.fill+len(b) > arenaChunk {
		t.chunks = append(t.chunks, make([]byte, arenaChunk))
		t.fill = 0
	}
	off := t.fill
	t.fill += copy(t.chunks[len(t.chunks)-1][off:], b)
	return uint64(len(t.chunks)-1)<<32 | uint64(off)<<16 | uint64(len(b))
}

// addLong keeps a long string apart and returns its strRef.
func (t *Symbols) addLong(s string) uint64 {
	t.long = append(t.long, s)
	return longRef | uint64(len(t.long)-1)
}

// addRef issues the Sym of a new string whose strRef is ref.
func (t *Symbols) addRef(ref uint64) Sym {
	y := t.nrefs
	if y>>refBits == len(t.refs) {
		t.refs = append(t.refs, make([]uint64, 1<<refBits))
	}
	t.refs[y>>refBits][y&refMask] = ref
	t.nrefs++
	return Sym(y)
}

// addHashed issues the Sym of a new string whose strRef is ref and puts
// it in the hash table, in slot, which find returned for its hash h.
func (t *Symbols) addHashed(ref, h uint64, slot int) Sym {
	y := t.addRef(ref)
	t.slots[slot] = uint64(uint32(h))<<32 | uint64(y)
	t.hashed++
	if 2*t.hashed > len(t.slots) {
		t.grow()
	}
	return y
}

// grow doubles the hash table. A slot's hash bits are all it needs to
// find the entry's place in the new table (tables never have more than
// 2^32 slots, since Syms are 32 bits).
func (t *Symbols) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := e >> 32 & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = e
	}
}

// Lookup returns the Sym of s if s is in the table.
func (t *Symbols) Lookup(s string) (Sym, bool) {
	if s == "" {
		return NoSym, true
	}
	if t.shared {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if key, n, ok := numKey(s); ok {
		if y, ok := t.lookupNumbered(key, n); ok {
			return y, y != NoSym
		}
	}
	y, _ := t.find(s, maphash.String(t.seed, s))
	return y, y != NoSym
}

// String returns the string of y. It panics if y was not issued by t (a
// programming error, never a property of input).
func (t *Symbols) String(y Sym) string {
	if t.shared {
		return t.sharedString(y)
	}
	return t.str(y)
}

func (t *Symbols) sharedString(y Sym) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.str(y)
}

// str is String.
func (t *Symbols) str(y Sym) string {
	r := t.refs[y>>refBits][y&refMask]
	if r&longRef != 0 {
		return t.long[uint32(r)]
	}
	c := t.chunks[r>>32]
	return unsafe.String(&c[r>>16&0xffff], int(r&0xffff))
}

// Len is the number of Syms issued, counting NoSym.
func (t *Symbols) Len() int {
	if t.shared {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	return t.nrefs
}

// Reset forgets every string, so the table's memory no longer grows with
// the trace. Every Sym issued before is invalid afterwards. Consumers that
// keep only counts (for example `traces stat`) call it periodically to read
// traces of any size in flat memory. It must not be called during
// [EachAhead], whose reading goroutine may hold Syms not yet visited.
func (t *Symbols) Reset() {
	t.nrefs = 1     // the chunks of refs stay, to be filled again
	clear(t.chunks) // strings handed out keep their chunks alive
	t.chunks = t.chunks[:0]
	clear(t.long[1:])
	t.long = t.long[:1]
	clear(t.slots)
	t.hashed = 0
	t.numSlots = [numPrefixSlots]numSlot{} // let the arrays go
	t.prefixes = 0
	t.gen++
}

// Generation counts the calls of Reset; decoders that cache Syms compare it
// to know when their cache went stale.
func (t *Symbols) Generation() uint64 { return t.gen }

// share tells whether the table was shared already and, if not, makes it
// shared until the returned function is called: until then the exported
// methods lock. Call it before starting the second goroutine and the
// function after it stopped. A table already shared (an EachAhead inside
// another's visit) stays as it is.
func (t *Symbols) share() (unshare func()) {
	if t.shared {
		return func() {}
	}
	t.shared = true
	return func() { t.shared = false }
}
