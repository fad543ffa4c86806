package races

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/internal/sympages"
	"github.com/licorice-dev/licorice/traces"
)

// Kind is a kind of race.
type Kind uint8

const (
	DataRace Kind = iota + 1 // two accesses to a location, at least one a write
	UseFree                  // a use (dereferencing read) and a free (write of null)
)

func (k Kind) String() string {
	switch k {
	case DataRace:
		return "data"
	case UseFree:
		return "use-free"
	}
	return "invalid"
}

// ParseKind returns the kind spelled s ("data" or "use-free").
func ParseKind(s string) (Kind, bool) {
	switch s {
	case "data":
		return DataRace, true
	case "use-free":
		return UseFree, true
	}
	return 0, false
}

// Config says what a [Detector] looks for. The zero Config finds both
// kinds of race with the exact happens-before relation.
type Config struct {
	// Window is the time window of the happens-before engine
	// ([asyncclock.Config.Window], wide: [asyncclock.Config.WideWindow]);
	// 0 is the exact relation.
	Window time.Duration
	// Kind limits detection to one kind of race; 0 finds both.
	Kind Kind
	// All reports every racing pair of accesses, not only enough races to
	// cover every racing access. The shadow then keeps every access, so
	// memory grows with the trace and time with the accesses per location.
	All bool
	// Unfiltered keeps the use-free races CAFA's if-guard and
	// intra-event-allocation filters would drop.
	Unfiltered bool
	// Harmless drops the races it matches (nil: none).
	Harmless *Filter
	// PerGroup is how many races of each group the report lists (the
	// first found; every race is counted); 0 lists them all, a negative
	// number none (the report then has counts only, and no groups). Racy
	// traces have many races per group: listing a few keeps memory
	// bounded.
	PerGroup int
	// Groups is how many groups of each kind the report lists: the first
	// found (every group is counted); 0 lists them all. A racy trace of a
	// million events has millions of groups: listing a thousand keeps the
	// report readable and memory bounded.
	Groups int
}

// Detector finds the races of one trace as its operations stream by:
// [Detector.Step] every operation in trace order, then [Detector.Finish].
type Detector struct {
	cfg  Config
	eng  *asyncclock.Engine
	syms *traces.Symbols
	name string
	line int
	ops  int64

	threads map[traces.Sym]thread
	tasks   map[traces.Sym]*task
	lastID  traces.Sym
	last    *task
	pool    []*task
	frames  uint32 // handler invocations so far (frame ids)
	locks   *lockTable

	// Locations: objHead[obj] and classHead[class] start the list of the
	// locations of an object or class in locs (0: none), or, with bigBit,
	// say that they are in big.
	objHead, classHead []uint32
	big                map[traces.Location]uint32
	locs               []location
	freeLoc            uint32 // a list of unused locations, through next
	// ents holds the accesses the shadow keeps, in pages: where the
	// window holds millions (a dense trace), a slice would copy them
	// all each time it grew. Entry 0 is unused: index 0 is "none".
	ents    sympages.Table[uint32, entry]
	nEnts   uint32 // the entries taken so far, and the next's index
	freeEnt uint32 // a list of unused entries, through next

	site, typ []traces.Sym // by object: its allocation site and type

	recent  []asyncclock.Time // the times of recent task versions, by version & (len-1)
	version uint32            // the last version recorded

	// Aging (see aged): the window in ms (0: off), the latest ts seen,
	// and the ts at which the shadow is next swept of aged accesses.
	window, latest, sweepAt float64

	groups  *groupSet
	order   []*groupAcc              // the groups listed, in the order they were made
	listed  [UseFree + 1]listed      // the races listed, by kind, for coverage
	kinds   [UseFree + 1]KindSummary // counts, by kind
	hits    []int                    // races dropped, by rule of the harmless filter
	realloc map[int32]bool           // lines of frees followed by an allocation in their event
	srcs    map[traces.Sym]srcPos
	labels  map[traces.Sym]traces.Sym // thread labels of groups, by thread

	finished bool
}

// recentTimes is how many task versions (the time of a task between two
// of its synchronization operations) the detector remembers, for race
// coverage. A race whose first access is older than that many versions
// cannot be shown to cover another race (see [Race.Covered]).
const recentTimes = 1 << 14

// bigBit marks an object or class whose locations are in Detector.big;
// bigAt is how many locations an object gets before it moves there.
const (
	bigBit = 1 << 31
	bigAt  = 16
)

// location is the shadow of one heap location.
type location struct {
	field      traces.Sym
	next       uint32 // the next location of the same object or class
	data       uint32 // data races: the accesses that may race with a later one
	uses       uint32 // use-free races: the uses since the last free (every use with All)
	frees      uint32 // use-free races: the last free (every free with All)
	lastWriter traces.Sym
	lastRef    bool    // the last write stored a reference
	gloc       uint32  // 1 + the number of its group location (Detector.glocOf), 0 if not known yet
	seen       float64 // the latest ts of the trace at the last access
}

// access is one heap access as the shadow keeps it.
type access struct {
	epoch   asyncclock.Epoch
	ts      float64
	val     traces.Value
	line    int32
	task    traces.Sym
	thread  traces.Sym
	handler traces.Sym
	src     traces.Sym
	locks   uint32
	version uint32
	ctx     uint32 // the number of its context (Detector.ctxOf)
	write   bool
	flags   uint8
}

const (
	fEvent     uint8 = 1 << iota // by an event
	fLooper                      // by an event of a looper thread
	fHasTS                       // ts is set
	fDeref                       // a read whose value is dereferenced
	fGuarded                     // a use guarded by a null test (if-guard)
	fAllocated                   // a use after an allocation in its event
)

type entry struct {
	access
	next uint32
}

// found is a race as detection finds it.
type found struct {
	kind          Kind
	loc           traces.Location
	gloc          uint32 // the number of its group location (Detector.glocOf)
	first, second access
	now           asyncclock.Time // the time of the second access, until the race is filed
	cover         *found          // a listed race that covers it
}

// NewDetector returns a detector for a trace whose Syms come from syms.
func NewDetector(syms *traces.Symbols, cfg Config) *Detector {
	d := &Detector{
		cfg:     cfg,
		eng:     asyncclock.New(syms, asyncclock.Config{Window: cfg.Window, WideWindow: true}),
		syms:    syms,
		threads: make(map[traces.Sym]thread),
		tasks:   make(map[traces.Sym]*task),
		locks:   newLockTable(),
		big:     make(map[traces.Location]uint32),
		locs:    make([]location, 1, 1024),
		nEnts:   1,
		recent:  make([]asyncclock.Time, recentTimes),
		groups:  newGroupSet(),
		hits:    make([]int, cfg.Harmless.Len()),
		realloc: make(map[int32]bool),
		srcs:    make(map[traces.Sym]srcPos),
		labels:  make(map[traces.Sym]traces.Sym),
		window:  float64(cfg.Window) / float64(time.Millisecond),
	}
	return d
}

// SetFile sets the file name that errors and the report carry.
func (d *Detector) SetFile(name string) {
	d.name = name
	d.eng.SetFile(name)
}

// Detect streams the trace r reads through a new detector and returns its
// report. It stops at the first error: the reader's, or the engine's (a
// *[asyncclock.ConflictError] for a trace that contradicts the causality
// model).
func Detect(ctx context.Context, r *traces.Reader, cfg Config) (*Report, error) {
	d := NewDetector(r.Symbols(), cfg)
	d.SetFile(r.Name())
	err := traces.EachChunkAhead(ctx, r, func(ops []traces.Op, lines []int) error {
		lines = lines[:len(ops)]
		for i := range ops {
			if err := d.Step(&ops[i], lines[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d.Finish()
}

func (d *Detector) wants(k Kind) bool { return d.cfg.Kind == 0 || d.cfg.Kind == k }

// Step processes the next operation of the trace, at the given line.
// Operations must come in trace order and obey the trace contract (as a
// validating [traces.Reader] gives them).
func (d *Detector) Step(op *traces.Op, line int) error {
	if d.finished {
		return fmt.Errorf("races: Step after Finish")
	}
	if err := d.eng.Step(op, line); err != nil {
		return err
	}
	d.line = line
	d.ops++
	switch op.Kind {
	case traces.Read, traces.Write:
		if !op.Init { // a declared initial value is no access
			d.access(op)
		}
	case traces.Call:
		t := d.task(op.Task)
		d.frames++
		t.frames = append(t.frames, frame{handler: op.Name, id: d.frames})
		t.ctx = 0
	case traces.Ret:
		t := d.task(op.Task)
		t.ctx = 0
		if len(t.frames) > 1 {
			id := t.frameID()
			t.frames = t.frames[:len(t.frames)-1]
			t.guards = slices.DeleteFunc(t.guards, func(g guard) bool { return g.frame == id })
		}
	case traces.Lock:
		t := d.task(op.Task)
		t.held = append(t.held, op.Name)
		t.locks = d.locks.intern(t.held)
	case traces.Unlock:
		t := d.task(op.Task)
		for i := len(t.held) - 1; i >= 0; i-- {
			if t.held[i] == op.Name {
				t.held = append(t.held[:i], t.held[i+1:]...)
				break
			}
		}
		t.locks = d.locks.intern(t.held)
	case traces.Alloc:
		d.alloc(op)
	case traces.Branch:
		d.branch(op)
	case traces.Relate, traces.Error:
	case traces.ThreadBegin:
		d.threads[op.Task] = thread{kind: op.ThreadKind, name: op.Name}
		d.start(op.Task, op.Task, false, false)
	case traces.Begin:
		d.start(op.Task, op.Thread, true, d.threads[op.Thread].kind == traces.Looper)
	case traces.End, traces.ThreadEnd:
		if t := d.task(op.Task); len(t.pending) > 0 {
			// Its frees are final: no allocation in the event can follow.
			for i := range t.pending {
				d.process(&t.pending[i])
			}
			clear(t.pending)
			t.pending = t.pending[:0]
		}
		d.stop(op.Task)
	default:
		// An operation that may order: the task's time may change.
		if op.Task != traces.NoSym {
			d.task(op.Task).version = 0
		}
	}
	return nil
}

// start begins task id on thread th.
func (d *Detector) start(id, th traces.Sym, event, looper bool) {
	var t *task
	if n := len(d.pool); n > 0 {
		t, d.pool = d.pool[n-1], d.pool[:n-1]
		t.reset()
	} else {
		t = &task{}
	}
	t.id, t.thread, t.event, t.looper = id, th, event, looper
	d.frames++
	t.frames = append(t.frames, frame{id: d.frames})
	d.tasks[id] = t
}

func (d *Detector) stop(id traces.Sym) {
	t := d.tasks[id]
	delete(d.tasks, id)
	if d.lastID == id {
		d.last = nil
	}
	if t != nil {
		d.pool = append(d.pool, t)
	}
}

// task returns the running task id. The engine has stepped the op, so the
// task is running.
func (d *Detector) task(id traces.Sym) *task {
	if id == d.lastID && d.last != nil {
		return d.last
	}
	t := d.tasks[id]
	d.lastID, d.last = id, t
	return t
}

func (d *Detector) alloc(op *traces.Op) {
	o := int(op.Loc.Obj)
	if o >= len(d.site) {
		n := max(o+1, d.syms.Len())
		d.site = append(d.site, make([]traces.Sym, n-len(d.site))...)
		d.typ = append(d.typ, make([]traces.Sym, n-len(d.typ))...)
	}
	d.site[o], d.typ[o] = op.Site, op.Type
	// The object's group locations name its site from now on.
	if o < len(d.objHead) {
		if h := d.objHead[o]; h&bigBit != 0 {
			for loc, i := range d.big {
				if !loc.Static && loc.Obj == op.Loc.Obj {
					d.locs[i].gloc = 0
				}
			}
		} else {
			for i := h; i != 0; i = d.locs[i].next {
				d.locs[i].gloc = 0
			}
		}
	}
}

// location returns the shadow of loc, making it if it is new.
func (d *Detector) location(loc traces.Location) uint32 {
	heads := &d.objHead
	if loc.Static {
		heads = &d.classHead
	}
	o := int(loc.Obj)
	if o >= len(*heads) {
		*heads = append(*heads, make([]uint32, max(o+1, d.syms.Len())-len(*heads))...)
	}
	h := (*heads)[o]
	if h&bigBit != 0 {
		if i, ok := d.big[loc]; ok {
			return i
		}
		i := d.newLocation(loc.Field, 0)
		d.big[loc] = i
		return i
	}
	n := 0
	for i := h; i != 0; i = d.locs[i].next {
		if d.locs[i].field == loc.Field {
			return i
		}
		n++
	}
	if n+1 < bigAt {
		i := d.newLocation(loc.Field, h)
		(*heads)[o] = i
		return i
	}
	// Many fields (a large array): index them in a map from now on.
	for i := h; i != 0; {
		next := d.locs[i].next
		d.locs[i].next = 0
		d.big[traces.Location{Obj: loc.Obj, Field: d.locs[i].field, Static: loc.Static}] = i
		i = next
	}
	(*heads)[o] = bigBit
	i := d.newLocation(loc.Field, 0)
	d.big[loc] = i
	return i
}

func (d *Detector) newLocation(field traces.Sym, next uint32) uint32 {
	if i := d.freeLoc; i != 0 {
		d.freeLoc = d.locs[i].next
		d.locs[i] = location{field: field, next: next}
		return i
	}
	i := uint32(len(d.locs))
	d.locs = append(d.locs, location{field: field, next: next})
	return i
}

// newEntry stores a with the given successor and returns its index.
func (d *Detector) newEntry(a *access, next uint32) uint32 {
	if i := d.freeEnt; i != 0 {
		d.freeEnt = d.ents.At(i).next
		*d.ents.At(i) = entry{access: *a, next: next}
		return i
	}
	i := d.nEnts
	d.nEnts++
	*d.ents.Slot(i) = entry{access: *a, next: next}
	return i
}

func (d *Detector) dropEntry(i uint32) {
	*d.ents.At(i) = entry{next: d.freeEnt}
	d.freeEnt = i
}

func (d *Detector) dropList(i uint32) {
	for i != 0 {
		next := d.ents.At(i).next
		d.dropEntry(i)
		i = next
	}
}

// aged reports whether access e is older than the time window: its ts
// more than the window before the latest ts of the trace. The time window
// approximation (docs/causality.md) takes such an access as ordered before
// every access to come, as AsyncClock takes events of one looper that far
// apart: it races with none, and the shadow lets it go. An access without
// ts never ages.
func (d *Detector) aged(e *access) bool {
	return d.window > 0 && e.flags&fHasTS != 0 && e.ts < d.latest-d.window
}

// sweep drops the aged accesses of every location, and the locations
// left without any that were last accessed more than a window ago. It
// runs every half window of trace time, so that the shadow holds about
// one and a half windows of accesses and locations, whatever the trace's
// length: the fields of objects the program forgot go.
func (d *Detector) sweep() {
	defer d.sweepLocations()
	for li := 1; li < len(d.locs); li++ {
		l := &d.locs[li]
		for _, head := range []*uint32{&l.data, &l.uses, &l.frees} {
			prev := head
			for i := *head; i != 0; {
				e := d.ents.At(i)
				next := e.next
				if d.aged(&e.access) {
					*prev = next
					d.dropEntry(i)
				} else {
					prev = &e.next
				}
				i = next
			}
		}
	}
}

// sweepLocations unlinks the idle locations from their object's or
// class's list (or the map of big objects) and frees them for reuse.
func (d *Detector) sweepLocations() {
	cutoff := d.latest - d.window
	idle := func(l *location) bool {
		return l.data == 0 && l.uses == 0 && l.frees == 0 && l.seen < cutoff
	}
	for _, heads := range [][]uint32{d.objHead, d.classHead} {
		for o, h := range heads {
			if h == 0 || h&bigBit != 0 {
				continue
			}
			prev := &heads[o]
			for i := h; i != 0; {
				l := &d.locs[i]
				next := l.next
				if idle(l) {
					*prev = next
					d.freeLocation(i)
				} else {
					prev = &l.next
				}
				i = next
			}
		}
	}
	for loc, i := range d.big {
		if idle(&d.locs[i]) {
			delete(d.big, loc)
			d.freeLocation(i)
		}
	}
}

func (d *Detector) freeLocation(i uint32) {
	d.locs[i] = location{next: d.freeLoc}
	d.freeLoc = i
}

// timeOf returns the time of task version v, if it is still remembered.
func (d *Detector) timeOf(v uint32) (asyncclock.Time, bool) {
	if v == 0 || d.version-v >= recentTimes {
		return asyncclock.Time{}, false
	}
	return d.recent[v&(recentTimes-1)], true
}

// access checks a read or write against the shadow of its location.
func (d *Detector) access(op *traces.Op) {
	t := d.task(op.Task)
	if op.HasTS {
		d.latest = max(d.latest, op.TS)
		if d.window > 0 && d.latest >= d.sweepAt {
			d.sweep()
			d.sweepAt = d.latest + d.window/2
		}
	}
	li := d.location(op.Loc)
	d.locs[li].seen = d.latest
	now, epoch := d.eng.Time(), d.eng.Epoch()
	// A task's time changes at its synchronization operations (which
	// reset its version) and when its epoch moves on (as a looper
	// thread's own does after one of its events).
	if _, ok := d.timeOf(t.version); !ok || t.versionEpoch != epoch {
		d.version++
		d.recent[d.version&(recentTimes-1)] = now
		t.version, t.versionEpoch = d.version, epoch
	}
	a := access{
		epoch:   epoch,
		ts:      op.TS,
		val:     op.Val,
		line:    int32(d.line),
		task:    t.id,
		thread:  t.thread,
		handler: t.handler(),
		src:     op.Src,
		locks:   t.locks,
		version: t.version,
		ctx:     d.ctxOf(t),
		write:   op.Kind == traces.Write,
	}
	if op.HasTS {
		a.flags |= fHasTS
	}
	if t.event {
		a.flags |= fEvent
		if t.looper {
			a.flags |= fLooper
		}
	}
	if op.Deref {
		a.flags |= fDeref
	}
	if d.wants(DataRace) {
		d.checkData(li, op.Loc, &a, now)
	}
	if d.wants(UseFree) {
		switch {
		case !a.write && op.Deref:
			d.use(li, op.Loc, t, &a, now)
		case a.write && op.Val.Kind() == traces.NullValue:
			d.free(li, op.Loc, t, &a, now)
		case a.write && op.Val.Kind() == traces.RefValue && t.looper:
			// Intra-event allocation: the frees of this event before it
			// never reach another event of the looper.
			n := 0
			for _, f := range t.openFrees {
				if f.loc == op.Loc {
					d.realloc[f.line] = true
				} else {
					t.openFrees[n] = f
					n++
				}
			}
			t.openFrees = t.openFrees[:n]
		}
		if a.write {
			l := &d.locs[li]
			l.lastWriter, l.lastRef = t.id, op.Val.Kind() == traces.RefValue
			t.guards = slices.DeleteFunc(t.guards, func(g guard) bool { return g.loc == op.Loc })
		}
	}
}

// race makes the race of accesses first and second (the current op) to
// loc, whose shadow is li.
func (d *Detector) race(k Kind, li uint32, loc traces.Location, first, second *access, now asyncclock.Time) found {
	return found{kind: k, loc: loc, gloc: d.glocOf(li, loc), first: *first, second: *second, now: now}
}

// checkData checks a against the accesses of location li that may race
// with it, and updates the shadow. Without All, an access is dropped from
// the shadow once a later one stands for it: a later access after it, with
// no more locks, that conflicts with whatever it conflicts with (a write
// stands for reads and writes, a read for reads). Whatever would race with
// the dropped access races with the one that stands for it, so every
// access that races with an earlier one is found racing with one of the
// accesses kept: the latest, which is the one reported (with All, every
// one).
func (d *Detector) checkData(li uint32, loc traces.Location, a *access, now asyncclock.Time) {
	l := &d.locs[li]
	prev := &l.data
	raced := false
	for i := l.data; i != 0; {
		e := d.ents.At(i)
		next := e.next
		if d.aged(&e.access) {
			*prev = next
			d.dropEntry(i)
			i = next
			continue
		}
		covered := now.Covers(e.epoch)
		if !covered && (!raced || d.cfg.All) && (a.write || e.write) && (oneLooper(&e.access, a) || d.locks.disjoint(e.locks, a.locks)) {
			f := d.race(DataRace, li, loc, &e.access, a, now)
			d.process(&f)
			raced = true
		}
		if !d.cfg.All && covered && (a.write || !e.write) && d.locks.subset(a.locks, e.locks) && standsFor(a, &e.access) {
			*prev = next
			d.dropEntry(i)
		} else {
			prev = &e.next
		}
		i = next
	}
	l.data = d.newEntry(a, l.data)
}

// oneLooper reports whether accesses a and b are by events of one looper
// thread. A lock both hold does not order such events: they never run at
// the same time anyway, and either may run first; so their locks do not
// suppress a race between them.
func oneLooper(a, b *access) bool {
	return a.flags&b.flags&fLooper != 0 && a.thread == b.thread
}

// standsFor reports whether a later access a, covering e and holding no
// lock e does not, stands for e for every access still to come: one that
// races with e by the locksets (it shares no lock with e) shares none
// with a either, but one that races with e only because both are events
// of e's looper thread races with a only if a is an event of that thread
// too, or holds no lock.
func standsFor(a, e *access) bool {
	return e.flags&fLooper == 0 || a.locks == 0 || oneLooper(a, e)
}

// use checks a use against the free before it (every free, with All).
func (d *Detector) use(li uint32, loc traces.Location, t *task, a *access, now asyncclock.Time) {
	if t.looper {
		if d.guarded(t, loc, a.src) {
			a.flags |= fGuarded
		}
		if l := &d.locs[li]; l.lastWriter == t.id && l.lastRef {
			a.flags |= fAllocated
		}
	}
	l := &d.locs[li]
	for i := l.frees; i != 0; i = d.ents.At(i).next {
		if f := d.ents.At(i); !now.Covers(f.epoch) && !d.aged(&f.access) {
			r := d.race(UseFree, li, loc, &f.access, a, now)
			d.process(&r)
		}
	}
	if !d.cfg.All {
		// A later use on the same chain, with the same filter flags,
		// stands for an earlier one: the next free races with both or
		// with neither, and the filters say the same of both.
		const same = fGuarded | fAllocated | fLooper | fEvent
		for i := l.uses; i != 0; i = d.ents.At(i).next {
			if e := d.ents.At(i); e.epoch.Chain() == a.epoch.Chain() && e.flags&same == a.flags&same {
				e.access = *a
				return
			}
		}
	}
	l.uses = d.newEntry(a, l.uses)
}

// free checks a free against the uses since the free before it (every
// use, with All).
func (d *Detector) free(li uint32, loc traces.Location, t *task, a *access, now asyncclock.Time) {
	l := &d.locs[li]
	for i := l.uses; i != 0; i = d.ents.At(i).next {
		if u := d.ents.At(i); !now.Covers(u.epoch) && !d.aged(&u.access) {
			r := d.race(UseFree, li, loc, &u.access, a, now)
			if t.looper {
				// An allocation later in the event may still make the
				// free harmless: decide when the event ends.
				t.pending = append(t.pending, r)
			} else {
				d.process(&r)
			}
		}
	}
	if d.cfg.All {
		l.frees = d.newEntry(a, l.frees)
	} else {
		d.dropList(l.uses)
		d.dropList(l.frees)
		l.uses = 0
		l.frees = d.newEntry(a, 0)
	}
	if t.looper {
		t.openFrees = append(t.openFrees, openFree{loc: loc, line: a.line})
	}
}
