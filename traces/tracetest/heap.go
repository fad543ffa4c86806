package tracetest

import (
	"math"
	"math/rand/v2"

	"github.com/licorice-dev/licorice/traces"
)

// The simulated heap: objects of a few classes, each class with fields of
// fixed kinds and a few static fields. Reads report the value last written
// (or the Java default), so the values of a trace are those of a real,
// sequentially consistent execution.

// valKind is the declared kind of a field.
type valKind uint8

const (
	vPtr valKind = iota
	vInt
	vFloat
	vBool
	vStr
	numValKinds
)

const (
	maxFields       = 6
	staticsPerClass = 2
)

// fieldsOf is the number of fields of class c.
func fieldsOf(c int) int { return 3 + c%(maxFields-2) }

// fieldKind is the kind of field k of class c: every class has a pointer
// and an integer field, the others vary.
func fieldKind(c, k int) valKind {
	switch k {
	case 0:
		return vPtr
	case 1:
		return vInt
	}
	return valKind((c + k) % int(numValKinds))
}

// staticKind is the kind of static field k of class c.
func staticKind(c, k int) valKind {
	if k == 0 {
		return vPtr
	}
	return valKind((c + 1) % int(numValKinds))
}

// val is a value in the heap: a traces.Value with names instead of Syms.
type val struct {
	kind traces.ValueKind
	bits uint64 // the int, the float's bits, the bool, the object's number or the string's index
}

// defaultVal is what a field holds before it is first written.
func defaultVal(k valKind) val {
	switch k {
	case vInt:
		return val{kind: traces.IntValue}
	case vFloat:
		return val{kind: traces.FloatValue}
	case vBool:
		return val{kind: traces.BoolValue}
	}
	return val{kind: traces.NullValue}
}

type object struct {
	num   int64
	class int
	vals  [maxFields]val
}

// location is a field of an object in the pool (by slot: whatever object
// is there when the location is used) or a static field of a class.
type location struct {
	static bool
	slot   int // objects: index in heap.objs
	class  int // statics: the class
	field  int
}

type heap struct {
	classes int
	objs    []object // the live pool, used as a ring
	next    int      // the slot of the next allocation once the pool is full
	cap     int
	statics []val // class*staticsPerClass + k
}

func newHeap(classes, objects int) heap {
	h := heap{classes: classes, cap: objects, statics: make([]val, classes*staticsPerClass)}
	for c := range classes {
		for k := range staticsPerClass {
			h.statics[c*staticsPerClass+k] = defaultVal(staticKind(c, k))
		}
	}
	return h
}

// alloc adds object num of class c to the pool, forgetting the oldest
// object if the pool is full.
func (h *heap) alloc(num int64, c int) {
	o := object{num: num, class: c}
	for k := range fieldsOf(c) {
		o.vals[k] = defaultVal(fieldKind(c, k))
	}
	if len(h.objs) < h.cap {
		h.objs = append(h.objs, o)
		return
	}
	h.objs[h.next] = o
	h.next = (h.next + 1) % h.cap
}

// resolve makes loc a field of the object now in its slot: the object a
// step was planned with may have been forgotten since, and its successor
// may have fewer fields.
func (h *heap) resolve(loc location) location {
	if !loc.static {
		loc.field %= fieldsOf(h.objs[loc.slot].class)
	}
	return loc
}

// kind is the declared kind of loc.
func (h *heap) kind(loc location) valKind {
	if loc.static {
		return staticKind(loc.class, loc.field)
	}
	o := &h.objs[loc.slot]
	return fieldKind(o.class, loc.field)
}

func (h *heap) get(loc location) val {
	if loc.static {
		return h.statics[loc.class*staticsPerClass+loc.field]
	}
	return h.objs[loc.slot].vals[loc.field]
}

func (h *heap) set(loc location, v val) {
	if loc.static {
		h.statics[loc.class*staticsPerClass+loc.field] = v
		return
	}
	h.objs[loc.slot].vals[loc.field] = v
}

// names returns the object (or class) and field names of loc.
func (h *heap) names(loc location) (obj, field name) {
	if loc.static {
		return mkName(nClass, uint64(loc.class)), mkName(nStatic, uint64(loc.field))
	}
	return mkName(nObject, uint64(h.objs[loc.slot].num)), mkName(nField, uint64(loc.field))
}

// pick returns a random location, mostly of class home; with ptr set, a
// pointer field.
func (h *heap) pick(rng *rand.Rand, home int, ptr bool) location {
	if len(h.objs) == 0 || rng.IntN(5) == 0 {
		c := home
		if rng.IntN(3) == 0 {
			c = rng.IntN(h.classes)
		}
		loc := location{static: true, class: c}
		if !ptr {
			loc.field = rng.IntN(staticsPerClass)
		}
		return loc
	}
	slot := rng.IntN(len(h.objs))
	// Prefer an object of the home class: look at a few.
	for range 3 {
		if h.objs[slot].class == home {
			break
		}
		slot = rng.IntN(len(h.objs))
	}
	loc := location{slot: slot}
	if !ptr {
		loc.field = rng.IntN(fieldsOf(h.objs[slot].class))
	}
	return loc
}

// pickLike returns a location whose kind goes with kind k in a relation:
// both numeric, both pointers, or both the same. It gives up after a few
// tries and returns any location.
func (h *heap) pickLike(rng *rand.Rand, home int, k valKind) location {
	var loc location
	for range 8 {
		loc = h.pick(rng, home, false)
		if compatible(h.kind(loc), k) {
			break
		}
	}
	return loc
}

func numeric(k valKind) bool { return k == vInt || k == vFloat }

func compatible(a, b valKind) bool {
	if numeric(a) && numeric(b) {
		return true
	}
	return a == b || (a == vPtr && b == vStr) || (a == vStr && b == vPtr)
}

// randomVal returns a value of kind k to write over cur: small numbers,
// counters, extremes, every float spelling, strings to escape, and nulls.
func (h *heap) randomVal(rng *rand.Rand, k valKind, cur val) val {
	switch k {
	case vInt:
		var n int64
		switch rng.IntN(8) {
		case 0, 1, 2, 3:
			n = rng.Int64N(10)
		case 4:
			n = rng.Int64N(11) - 5
		case 5:
			if cur.kind == traces.IntValue {
				n = int64(cur.bits) + 1
			}
		case 6:
			n = int64(rng.Uint64())
		default:
			n = [...]int64{math.MinInt64, math.MaxInt64, 1<<53 + 1, -1}[rng.IntN(4)]
		}
		return val{kind: traces.IntValue, bits: uint64(n)}
	case vFloat:
		var f float64
		switch rng.IntN(6) {
		case 0, 1:
			f = float64(rng.IntN(41)-20) / 2
		case 2:
			f = rng.Float64() * 1000
		case 3:
			f = [...]float64{1e-7, 1.5e21, 3.141592653589793, 0.1, 1e300, 5e-324}[rng.IntN(6)]
		case 4:
			f = math.Copysign(0, -1)
		default:
			f = -rng.ExpFloat64()
		}
		return val{kind: traces.FloatValue, bits: math.Float64bits(f)}
	case vBool:
		return val{kind: traces.BoolValue, bits: uint64(rng.IntN(2))}
	case vStr:
		if rng.IntN(6) == 0 {
			return val{kind: traces.NullValue}
		}
		return val{kind: traces.StringValue, bits: uint64(rng.IntN(len(stringValues)))}
	}
	if len(h.objs) == 0 || rng.IntN(4) == 0 {
		return val{kind: traces.NullValue}
	}
	return val{kind: traces.RefValue, bits: uint64(h.objs[rng.IntN(len(h.objs))].num)}
}
