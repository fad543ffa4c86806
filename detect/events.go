package detect

import (
	"github.com/licorice-dev/licorice/internal/sympages"
	"github.com/licorice-dev/licorice/traces"
)

// eventRec is what the second pass keeps of every event sent, for the
// whole trace: who sent it and at which op, what the dependences between
// events need (tracker.causes). What only matters while the event runs
// is in begun; what explanations say of an event is read again for the
// few that reports name (originRec). It holds no pointer, so that the
// garbage collector does not scan the million records of a long trace.
type eventRec struct {
	sendPos int64      // the send's op number
	sender  traces.Sym // NoSym: sent from outside the program
	sent    bool       // the slot holds an event (a zero slot does not)
}

// eventTable maps event ids to their records, by value (sympages):
// traces.Symbols hands Syms out in order of first appearance and most of
// a trace's ids are events', so the pages that hold any event are mostly
// full.
type eventTable struct {
	recs sympages.Table[traces.Sym, eventRec]
}

// get returns the record of event y, or nil if y was not sent.
func (t *eventTable) get(y traces.Sym) *eventRec {
	if r := t.recs.Get(y); r != nil && r.sent {
		return r
	}
	return nil
}

// add returns the record of event y, made anew (zero but sent).
func (t *eventTable) add(y traces.Sym) *eventRec {
	r := t.recs.Slot(y)
	*r = eventRec{sent: true}
	return r
}

// symSet is a set of Syms, a bit each up to the largest added.
type symSet []uint64

// add puts y in the set.
func (s *symSet) add(y traces.Sym) {
	i := int(y >> 6)
	if i >= len(*s) {
		*s = append(*s, make([]uint64, i+1-len(*s))...)
	}
	(*s)[i] |= 1 << (y & 63)
}

// has reports whether y is in the set.
func (s symSet) has(y traces.Sym) bool {
	i := int(y >> 6)
	return i < len(s) && s[i]&(1<<(y&63)) != 0
}
