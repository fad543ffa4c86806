package detect

import (
	"strings"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// role is what an event does to a condition (thesis §5.2.2).
type role uint8

const (
	req  role = iota + 1 // the event requires the condition
	gen                  // it makes the condition true
	kill                 // it makes the condition false
	// midKill: the event's own writes make the condition false in its
	// middle and true again by its end (a NOP at event granularity); a
	// REQ on another thread may run in between.
	midKill
)

func (r role) String() string {
	switch r {
	case req:
		return "REQ"
	case gen:
		return "GEN"
	case kill, midKill:
		return "KILL"
	}
	return "NOP"
}

// cond is a realized condition of one trace: a logical boolean variable
// (thesis §5.4) identified by its template, its constants and its concrete
// locations. Every event that realizes the same triple shares it, whatever
// its handler and its symbolic names.
type cond struct {
	locs []traces.Location // in the order of the template's operands
	// eval is the first spec condition that realized it; every spec
	// condition of the same template and constants evaluates alike on
	// the same locations.
	eval *learn.Condition
	// touches are all of its touches, kept only for tests (the checker's
	// keepAll); the checks keep what they need in their stream.
	touches []touch
	// writers are the chains whose writes to the condition's data the
	// second pass has seen so far, in the order first seen.
	writers []asyncclock.Chain
}

// touch is one event's REQ, GEN or KILL of a condition.
//
// A touch is placed at its own ops, not at its event's begin and end: a
// REQ spans its event's first reads of the condition's data, a GEN or
// KILL its event's writes to it. from is the logical time of the first
// of those ops, to the epoch of the last; touch x happens before touch y
// when y.from covers x.to. On one looper this is the events' order
// (ATOMIC); across threads it is finer: a GEN whose write precedes the
// post of the REQ's event is ordered with the REQ even if the two events
// overlap.
type touch struct {
	role  role
	minor bool // a minor GEN or minor KILL (§5.2.2)
	// relative: a GEN or KILL whose every write to the condition's data
	// updated a value the event had read there, in place (count++, n -= 1):
	// its effect is a change, not the value it wrote.
	relative bool
	holds    bool // REQ: the condition held on the values the event read
	// projected: proj stands for from (see below).
	projected bool
	// unit numbers the touch's event (or thread's write), u describes it.
	unit int32
	u    *unit
	// from is the time of the touch's first op, and to the epoch of its
	// last. A held touch has no from: proj, for a REQ whose condition had
	// at most maxProjected writers when its from time was taken, is that
	// time's clocks of those writers (the nonzero ones), and for a touch
	// in its stream, those of the chains of the touches before it
	// (checker.enter): see covers.
	from *asyncclock.Time
	to   asyncclock.Epoch
	proj []asyncclock.Epoch
	// pos is the op number (from 1) that orders the touch among the
	// others: a REQ's first read of the condition's data, a GEN's or
	// KILL's last write to it, a mid-event KILL's write that made the
	// condition false. line and src are that op's. first and last are the
	// numbers of the touch's first and last ops (those of from and to; for
	// a mid-event KILL, the writes that made the condition false and true
	// again).
	pos         int64
	first, last int64
	// firstTS is the trace time at the first op (the largest ts up to it);
	// agedAt is the trace time at the last plus the window (+Inf without
	// one): a touch whose first op is later than that comes after it
	// (see before).
	firstTS, agedAt float64
	line            int
	src             traces.Sym
	handler         traces.Sym
	spec            *learn.Condition // REQ: the requiring handler's condition
	// vals are, for a REQ, the values the event read; for a GEN or KILL,
	// the values before the event and then the values after it (for a
	// mid-event KILL, just after the write that made the condition
	// false).
	vals []traces.Value
}

// before reports whether touch x happens before touch y: x's last op
// before y's first; false for two touches of one unit. (Covers answers
// for an op earlier in the trace than the time's: consecutive ops of a
// task may share an epoch.) With a window, the bet AsyncClock's window
// makes for events and the race detector's for accesses
// (docs/causality.md) holds for touches too: y comes after x if its
// first op is more than the window later in trace time than x's last.
func before(x, y *touch) bool {
	return x.unit != y.unit && x.last < y.first && (y.firstTS > x.agedAt || y.covers(x.to))
}

// covers reports whether epoch e happens before touch y's first op: y's
// from time covers it. A REQ keeps, instead of that time, its clocks of
// the chains that had written the condition's data by then (projected):
// a REQ is only ever asked about the last write of an earlier GEN, KILL
// or mid-event KILL (x.last < y.first), whose chain is among those. A
// full time keeps every block of clocks it was made of alive, which for
// the hundreds of thousands of REQs of a long trace was most of
// detect's memory.
func (y *touch) covers(e asyncclock.Epoch) bool {
	if !y.projected {
		return y.from.Covers(e)
	}
	c := e.Chain()
	for _, p := range y.proj {
		if p.Chain() == c {
			return e.Clock() <= p.Clock()
		}
	}
	return false
}

// maxProjected bounds the writer chains a REQ's from time is projected
// on; a REQ of a condition with more keeps its whole time.
const maxProjected = 32

// project returns the nonzero clocks of time at the chains ws.
func project(time asyncclock.Time, ws []asyncclock.Chain) []asyncclock.Epoch {
	var out []asyncclock.Epoch
	for _, c := range ws {
		if k := time.Get(c); k > 0 {
			out = append(out, asyncclock.MakeEpoch(c, k))
		}
	}
	return out
}

// unit is an event (or, for writes outside any event, one write of a
// thread) that touches a condition: what a report says about it.
type unit struct {
	task   traces.Sym
	thread traces.Sym // the thread it ran on (for a thread's write, itself)
	// begin and end are the lines and times of its begin and end (for a
	// thread's write, of the write); endLine is 0 for an event still
	// running when the trace ended.
	beginLine, endLine int
	beginTS, endTS     float64
	hasTS              bool
	// waiting counts its touches the checker has not replayed yet: until
	// then, the checks may ask what its event read (tracker.dependent).
	waiting int32
	// lastCause is the op number of its event's last send, fork or
	// signal (0 if none): of its reads, those before are what a later
	// event may depend on (tracker.trimReads).
	lastCause int64
}

// condKey identifies a realized condition.
type condKey struct {
	class int32 // the template and constants (conds.class)
	n     int8
	locs  [3]traces.Location // the data's, then a guard's
}

// conds is the table of a trace's realized conditions.
type conds struct {
	classOf map[*learn.Condition]int32
	classes map[string]int32
	byKey   map[condKey]int32
	list    []*cond
	byLoc   map[traces.Location][]int32 // the conditions over each location
}

func newConds() *conds {
	return &conds{
		classOf: make(map[*learn.Condition]int32),
		classes: make(map[string]int32),
		byKey:   make(map[condKey]int32),
		byLoc:   make(map[traces.Location][]int32),
	}
}

// class returns the number of c's template and constants: equal for spec
// conditions that differ only in their handler and symbolic names.
func (t *conds) class(c *learn.Condition) int32 {
	if k, ok := t.classOf[c]; ok {
		return k
	}
	var b strings.Builder
	b.WriteString(c.Template)
	if c.Guard != "" {
		b.WriteString("|guarded")
	}
	for _, v := range append([]invariants.Value{c.A, c.B}, c.Set...) {
		b.WriteByte('|')
		b.WriteString(v.String())
	}
	for _, p := range c.Pairs {
		b.WriteString("|(" + p.X.String() + "," + p.Y.String() + ")")
	}
	k, ok := t.classes[b.String()]
	if !ok {
		k = int32(len(t.classes))
		t.classes[b.String()] = k
	}
	t.classOf[c] = k
	return k
}

// seal drops the tables realize needs: every condition is realized (the
// first pass has ended).
func (t *conds) seal() {
	t.classOf, t.classes, t.byKey = nil, nil, nil
}

// realize returns the id of the condition rc realizes, adding it if new.
// Not after seal.
func (t *conds) realize(rc *learn.Realized) int32 {
	key := condKey{class: t.class(rc.Cond), n: int8(len(rc.Locs))}
	copy(key.locs[:], rc.Locs)
	if id, ok := t.byKey[key]; ok {
		return id
	}
	id := int32(len(t.list))
	t.byKey[key] = id
	c := &cond{locs: append([]traces.Location(nil), rc.Locs...), eval: rc.Cond}
	t.list = append(t.list, c)
	for i, l := range c.locs {
		if i > 0 && l == c.locs[0] {
			continue // x == x: index the location once
		}
		t.byLoc[l] = append(t.byLoc[l], id)
	}
	return id
}
