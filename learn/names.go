package learn

import (
	"strconv"

	"github.com/licorice-dev/licorice/traces"
)

// NameKind says how a symbolic name designates the object (or class) that
// holds a datum.
type NameKind uint8

const (
	// NameThis is the handler's receiver: the one object touched by the
	// invocation whose type is the handler's class ("this.dataHub").
	NameThis NameKind = iota + 1
	// NameSite is an object named by its allocation site and its creation
	// order among the objects of that site the invocation touched
	// ("MyTracks.onCreate:120#1.dataHub"), or, with Index 0, an object whose
	// id is its own site, such as a database table ("db:Tracks.2").
	NameSite
	// NameClass is a static field ("Config.debug").
	NameClass
	// NameObject is an object never seen allocated, named by its id
	// ("@o17.count"): stable only if the recorder's ids are.
	NameObject
)

// Name is the symbolic name of a datum (thesis §5.3.2): execution
// independent, so the same datum has the same name in every training
// trace, and fixed for an invocation, so it designates the same location
// before and after any event. Its Syms are those of the Symbols table of
// the trace it was made from; [Names] turns it into the string a spec
// uses.
type Name struct {
	Kind  NameKind
	Base  traces.Sym // the site, class or object id (NoSym for this)
	Index int32      // NameSite: creation order among the site's touched objects, from 1
	Field traces.Sym
}

// AppendTo appends the name's text to b.
func (n Name) AppendTo(b []byte, syms *traces.Symbols) []byte {
	switch n.Kind {
	case NameThis:
		b = append(b, "this"...)
	case NameSite:
		b = append(b, syms.String(n.Base)...)
		if n.Index > 0 {
			b = append(b, '#')
			b = strconv.AppendInt(b, int64(n.Index), 10)
		}
	case NameClass:
		b = append(b, syms.String(n.Base)...)
	case NameObject:
		b = append(b, '@')
		b = append(b, syms.String(n.Base)...)
	}
	field := syms.String(n.Field)
	if len(field) == 0 || field[0] != '[' {
		b = append(b, '.')
	}
	return append(b, field...)
}

// String returns the name's text.
func (n Name) String(syms *traces.Symbols) string { return string(n.AppendTo(nil, syms)) }

// Names turns names into strings, allocating each distinct one once. It
// belongs to one Symbols table and is not safe for concurrent use.
type Names struct {
	syms  *traces.Symbols
	cache map[Name]string
	buf   []byte
}

// NewNames returns a cache for names made with syms.
func NewNames(syms *traces.Symbols) *Names {
	return &Names{syms: syms, cache: make(map[Name]string)}
}

// String returns the text of n.
func (c *Names) String(n Name) string {
	if s, ok := c.cache[n]; ok {
		return s
	}
	c.buf = n.AppendTo(c.buf[:0], c.syms)
	s := string(c.buf)
	c.cache[n] = s
	return s
}
