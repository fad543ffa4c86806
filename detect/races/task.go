package races

import (
	"slices"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// thread is what the detector knows of a thread.
type thread struct {
	kind traces.ThreadKind
	name traces.Sym
}

// task is a running task: a thread's own operations, or an event while
// it runs.
type task struct {
	id     traces.Sym
	thread traces.Sym // the thread itself, or the thread running the event
	event  bool
	looper bool // an event on a looper thread: CAFA's filters apply to it

	frames []frame      // open handler calls, innermost last; frames[0] is the task's base
	held   []traces.Sym // locks held, once per acquisition
	locks  uint32       // the lockset id of held
	ctx    uint32       // 1 + the number of its context in its current invocation (Detector.ctxOf), 0 if not known yet

	// version is the slot of the task's current time in the detector's
	// recent times (0: not recorded since the task last synchronized),
	// recorded at epoch versionEpoch.
	version      uint32
	versionEpoch asyncclock.Epoch

	guards    []guard    // looper events: the if-guards of open frames
	openFrees []openFree // looper events: frees not yet followed by an allocation
	pending   []found    // looper events: use-free races of its frees, decided at its end
}

// frame is one handler invocation.
type frame struct {
	handler traces.Sym // NoSym for the task's base, outside any call
	id      uint32     // unique in the trace
}

// guard is a null test that guarantees a location is not null in a region
// of the handler invocation that made it (thesis Fig. 3.8).
type guard struct {
	loc    traces.Location // not its shadow's index: a location may be swept and its index reused
	frame  uint32
	file   string // with lo, hi: the region, in source lines of file; "" for the rest of the invocation
	lo, hi int64
}

// openFree is a free by a looper event; a later allocation of the location
// in the same event makes it harmless (intra-event allocation).
type openFree struct {
	loc  traces.Location // as guard.loc
	line int32
}

func (t *task) handler() traces.Sym { return t.frames[len(t.frames)-1].handler }

func (t *task) frameID() uint32 { return t.frames[len(t.frames)-1].id }

// reset makes t a fresh task for reuse.
func (t *task) reset() {
	*t = task{frames: t.frames[:0], held: t.held[:0], guards: t.guards[:0], openFrees: t.openFrees[:0], pending: t.pending[:0]}
}

// lockTable interns locksets: sorted sets of locks, id 0 the empty one.
type lockTable struct {
	ids  map[string]uint32
	sets [][]traces.Sym
	buf  []byte
}

func newLockTable() *lockTable {
	return &lockTable{ids: map[string]uint32{"": 0}, sets: [][]traces.Sym{nil}}
}

// intern returns the id of the set of locks in held (which may repeat
// locks and is not sorted).
func (lt *lockTable) intern(held []traces.Sym) uint32 {
	if len(held) == 0 {
		return 0
	}
	set := slices.Clone(held)
	slices.Sort(set)
	set = slices.Compact(set)
	lt.buf = lt.buf[:0]
	for _, l := range set {
		lt.buf = append(lt.buf, byte(l), byte(l>>8), byte(l>>16), byte(l>>24))
	}
	if id, ok := lt.ids[string(lt.buf)]; ok {
		return id
	}
	id := uint32(len(lt.sets))
	lt.ids[string(lt.buf)] = id
	lt.sets = append(lt.sets, set)
	return id
}

// disjoint reports whether locksets a and b share no lock.
func (lt *lockTable) disjoint(a, b uint32) bool {
	if a == 0 || b == 0 {
		return true
	}
	if a == b {
		return false
	}
	x, y := lt.sets[a], lt.sets[b]
	for len(x) > 0 && len(y) > 0 {
		switch {
		case x[0] < y[0]:
			x = x[1:]
		case x[0] > y[0]:
			y = y[1:]
		default:
			return false
		}
	}
	return true
}

// subset reports whether lockset a is a subset of lockset b.
func (lt *lockTable) subset(a, b uint32) bool {
	if a == 0 || a == b {
		return true
	}
	if b == 0 {
		return false
	}
	x, y := lt.sets[a], lt.sets[b]
	for len(x) > 0 {
		if len(y) == 0 || y[0] > x[0] {
			return false
		}
		if y[0] == x[0] {
			x = x[1:]
		}
		y = y[1:]
	}
	return true
}
