package traces

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
	strs  []string // strs[0] == ""
	index map[string]Sym
	gen   uint64
}

// NewSymbols returns an empty table.
func NewSymbols() *Symbols {
	return &Symbols{strs: []string{""}, index: make(map[string]Sym)}
}

// Intern returns the Sym of s, adding s to the table if it is new. The
// empty string is NoSym.
func (t *Symbols) Intern(s string) Sym {
	if s == "" {
		return NoSym
	}
	if y, ok := t.index[s]; ok {
		return y
	}
	return t.add(s)
}

// InternBytes is Intern for a byte slice; it allocates only when b is new.
func (t *Symbols) InternBytes(b []byte) Sym {
	if len(b) == 0 {
		return NoSym
	}
	if y, ok := t.index[string(b)]; ok {
		return y
	}
	return t.add(string(b))
}

func (t *Symbols) add(s string) Sym {
	y := Sym(len(t.strs))
	t.strs = append(t.strs, s)
	t.index[s] = y
	return y
}

// Lookup returns the Sym of s if s is in the table.
func (t *Symbols) Lookup(s string) (Sym, bool) {
	if s == "" {
		return NoSym, true
	}
	y, ok := t.index[s]
	return y, ok
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
	clear(t.index)
	t.gen++
}

// Generation counts the calls of Reset; decoders that cache Syms compare it
// to know when their cache went stale.
func (t *Symbols) Generation() uint64 { return t.gen }
