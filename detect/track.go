package detect

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// tracker is the second pass over a trace: with the realized conditions
// known, it follows the values of their locations (a shadow heap of the
// last value read or written), finds the events that GENERATE or KILL
// them, and gives every touching event its logical time from AsyncClock.
//
// An event's effect on a condition is its own: the values before it are
// those of the condition's locations just before its first write to one
// of them, the values after it are those with the event's own last
// writes applied. Writes of other tasks that run meanwhile (threads,
// binder events) are theirs, not the event's. A write outside any event
// (a thread's own code) is a unit of its own.
type tracker struct {
	syms  *traces.Symbols
	eng   *asyncclock.Engine
	conds *conds
	// reqList and reqEvents (the events that require some condition) are
	// the first pass's; pending are the REQs timed at their first op whose
	// event has not ended, and reqsOf their numbers by event.
	reqList   reqStore
	reqEvents symSet
	pending   map[int32]pendingReq
	reqsOf    map[traces.Sym][]int32
	// projectAt is the most writers of a condition on which a REQ's time
	// is projected (maxProjected; see touch.covers).
	projectAt int
	// chk checks the touches as they become final.
	chk *checker
	// now is the trace time: the largest ts so far; window is the time
	// window in ms (0: none); chk advances every advanceEvery ops, and
	// sinceAdvance counts the ops since it last did.
	now          float64
	window       float64
	advanceEvery int
	sinceAdvance int

	heap     map[traces.Location]traces.Value // the conditions' locations only
	handlers handlerStacks
	events   eventTable
	// origin are what explanations say of the events reports name, read
	// after the passes (readOrigins).
	origin map[traces.Sym]*originRec
	forks  map[traces.Sym]opBy  // thread -> who forked it
	begins map[traces.Sym]begun // running events: where they began
	open   map[traces.Sym][]openTouch
	units  int32 // units numbered so far

	// reqWrote is, for a location, the REQ events whose writes its value
	// carries: the last writer's if it was a REQ event's, and, when writes
	// updated the value in place (count--), those of the updates before
	// (at most maxCarried, the latest). readFrom is, for an event, where
	// it read values that REQ events' writes carried, and whose; carriedAt
	// is, for a running event, where it last read each location that
	// carried some (the read's src). See the package doc on pairs whose
	// later event read the earlier.
	reqWrote map[traces.Location][]traces.Sym
	readFrom map[traces.Sym][]carried
	// untrimmed, if not nil, keeps what trimReads drops, which dependent
	// reads if askUntrimmed (tests: the check of every touch at the end,
	// after the pass, asks what the streams asked as it went).
	untrimmed    map[traces.Sym][]carried
	askUntrimmed bool
	carriedAt    map[traces.Sym]map[traces.Location]traces.Sym

	// readAt is, for a running event, where it last read each datum of a
	// condition (the read's src): a write there from the same src updates
	// the value in place.
	readAt map[traces.Sym]map[traces.Location]traces.Sym
	spare  []map[traces.Location]traces.Sym // emptied maps of readAt and carriedAt

	// signaller is the last signal of each handle, waited the signals of
	// the handles each thread waited on (its first maxWaited waits): with
	// the senders, the causes of each event.
	signaller map[traces.Sym]cause
	waited    map[traces.Sym][]waitOf

	// condObjs are the objects some condition's data belong to; madeBy
	// is, for such an object that a running event allocated, that event,
	// and made the objects each running event allocated.
	condObjs map[traces.Sym]bool
	madeBy   map[traces.Sym]traces.Sym
	made     map[traces.Sym][]traces.Sym
}

// pendingReq is a REQ's touch, timed at its first op, and its condition.
type pendingReq struct {
	tc   *touch
	cond int32
}

// begun is what the tracker keeps of a running event: where it began
// (the op's number, the trace time there and the begin's line and ts),
// its last send, fork or signal, its thread, and whether its send was
// seen (it has an eventRec).
type begun struct {
	pos       int64
	ts        float64 // the largest ts up to the begin
	line      int
	beginTS   float64 // the begin's own ts
	lastCause int64   // 0 if none: what it read after that caused nothing (tracker.dependent)
	thread    traces.Sym
	hasTS     bool
	sent      bool
}

// advanceEvery is how many ops the second pass reads between two
// advances of the checker (tracker.advanceEvery).
const advanceEvery = 1 << 14

// carried is a read of a value that REQ events' writes carried: where,
// and the events, as reqWrote listed them then. Lists are shared, never
// changed in place: an event that reads a counter every REQ event
// updated keeps one list, not one entry per writer.
type carried struct {
	loc  traces.Location
	from []traces.Sym
	pos  int64 // the read (the first, of several alike)
}

// cause is a task that caused another by an op of its (a send, a
// signal) at pos: its reads before pos are what the other depends on.
type cause struct {
	task traces.Sym
	pos  int64
}

// waitOf is a thread's wait, at pos, for a signal.
type waitOf struct {
	signal cause
	pos    int64
}

// readFromAt reports whether event k read, before op number before, what
// event w wrote at a location not in except.
func (t *tracker) readFromAt(k, w traces.Sym, except []traces.Location, before int64) bool {
	reads := t.readFrom[k]
	if r, ok := t.untrimmed[k]; ok && t.askUntrimmed {
		reads = r
	}
	return k != w && slices.ContainsFunc(reads, func(c carried) bool {
		return c.pos < before && !slices.Contains(except, c.loc) && slices.Contains(c.from, w)
	})
}

// maxCauses bounds how many of an event's causes (its sender, the sender
// of that, and for an event a thread sent, what the thread waited for) a
// pair's check visits: a dependence further away is not seen, and the
// pair is kept (reported).
const maxCauses = 64

// maxWaited bounds the waits of a thread that count as its causes (the
// first ones: a delivery thread waits on its origin first).
const maxWaited = 4

// opBy is an op of a task: who did it, in which handler, and where.
type opBy struct {
	line    int
	task    traces.Sym
	handler traces.Sym
	src     traces.Sym
}

// openTouch is an event's effect on a condition while the event runs.
type openTouch struct {
	cond  int32
	vals  []traces.Value // before, then after
	from  asyncclock.Time
	to    asyncclock.Epoch
	first int64 // the first write
	at    opAt  // the last write
	// firstTS and lastTS are the trace times at the first and last write.
	firstTS, lastTS float64
	handler         traces.Sym
	held            bool // in an event: the condition held before it
	mid             *midStretch
	// absolute: some write of the event's to the condition's data did not
	// update in place the value it read there (see touch.relative).
	absolute bool
}

// midStretch is the first stretch of an event in which its own writes
// made false a condition that held before it: from the write that made it
// false to the one that made it true again (open until then).
type midStretch struct {
	from            asyncclock.Time
	to              asyncclock.Epoch
	first, last     int64
	firstTS, lastTS float64
	at              opAt
	handler         traces.Sym
	vals            []traces.Value // before the event, then when it turned false
	restored        bool
}

// newTracker returns the second pass over a trace whose first pass was
// rl, with the engine eng of time window window (0: none), that hands
// the touches it finds to its checker, which counts in stats.
func newTracker(syms *traces.Symbols, eng *asyncclock.Engine, window time.Duration, cs *conds, rl *realizer, stats *TraceStats) *tracker {
	t := &tracker{
		syms: syms, eng: eng, conds: cs, reqList: rl.reqList, reqEvents: rl.reqEvents, reqsOf: make(map[traces.Sym][]int32), projectAt: maxProjected,
		pending: make(map[int32]pendingReq), window: float64(window) / float64(time.Millisecond), advanceEvery: advanceEvery,
		heap:     make(map[traces.Location]traces.Value),
		handlers: newHandlerStacks(),
		forks:    make(map[traces.Sym]opBy),
		begins:   make(map[traces.Sym]begun),
		open:     make(map[traces.Sym][]openTouch),

		reqWrote:  make(map[traces.Location][]traces.Sym),
		readFrom:  make(map[traces.Sym][]carried),
		carriedAt: make(map[traces.Sym]map[traces.Location]traces.Sym),
		readAt:    make(map[traces.Sym]map[traces.Location]traces.Sym),
		signaller: make(map[traces.Sym]cause),
		waited:    make(map[traces.Sym][]waitOf),
		condObjs:  condObjects(cs),
		madeBy:    make(map[traces.Sym]traces.Sym),
		made:      make(map[traces.Sym][]traces.Sym),
	}
	t.chk = newChecker(len(cs.list), stats, t.dependent, t.holds)
	t.chk.replayed = func(u *unit) {
		if u.task != u.thread { // an event's unit, not a thread's write
			t.trimReads(u.task, u.lastCause)
		}
	}
	return t
}

// condObjects returns the objects (not classes) whose fields are data of
// some condition.
func condObjects(cs *conds) map[traces.Sym]bool {
	objs := make(map[traces.Sym]bool)
	for l := range cs.byLoc {
		if !l.Static {
			objs[l.Obj] = true
		}
	}
	return objs
}

// step feeds op, the pos-th op of the trace at line, after the engine
// stepped it.
func (t *tracker) step(op *traces.Op, pos int64, line int) {
	if op.HasTS && op.TS > t.now {
		t.now = op.TS
	}
	if t.sinceAdvance++; t.sinceAdvance >= t.advanceEvery {
		t.sinceAdvance = 0
		t.advance(pos)
	}
	// The REQs that begin and end at this op get their times (a REQ's
	// first op before its last).
	for {
		i, rec, ok := t.reqList.firstAt(pos)
		if !ok {
			break
		}
		tc := &touch{role: req, holds: rec.holds, unit: -1, pos: rec.first, first: rec.first, last: rec.last,
			firstTS: t.now, agedAt: t.agedAt(), line: rec.line, src: rec.src, handler: rec.handler, spec: rec.spec, vals: rec.vals}
		if c := t.conds.list[rec.cond]; len(c.writers) <= t.projectAt {
			tc.proj, tc.projected = project(t.eng.Time(), c.writers), true
		} else {
			from := t.eng.Time()
			tc.from = &from
		}
		t.pending[i] = pendingReq{tc, rec.cond}
		t.reqsOf[op.Task] = append(t.reqsOf[op.Task], i) // at a read of the event's or its begin
	}
	for {
		i, ok := t.reqList.lastAt(pos)
		if !ok {
			break
		}
		if p, ok := t.pending[i]; ok {
			p.tc.to, p.tc.agedAt = t.eng.Epoch(), t.agedAt()
		}
	}
	switch op.Kind {
	case traces.Send:
		ev := t.events.add(op.Event)
		ev.sendPos, ev.sender = pos, op.Task
		if op.External {
			ev.sender = traces.NoSym
		}
		t.caused(op.Task, pos)
	case traces.Fork:
		t.forks[op.Thread] = opBy{task: op.Task, handler: t.handler(op.Task), line: line, src: op.Src}
		t.caused(op.Task, pos)
	case traces.Begin:
		sent := t.events.get(op.Task) != nil
		t.begins[op.Task] = begun{pos: pos, ts: t.now, line: line, beginTS: op.TS, hasTS: op.HasTS, thread: op.Thread, sent: sent}
		if sent {
			t.handlers.begin(op.Task)
		}
	case traces.Call:
		t.handlers.call(op.Task, op.Name)
	case traces.Ret:
		t.handlers.ret(op.Task)
	case traces.Read:
		if _, ok := t.conds.byLoc[op.Loc]; ok {
			if !op.Val.IsAbsent() {
				t.heap[op.Loc] = op.Val
			}
			if op.Src != traces.NoSym && t.running(op.Task) {
				t.srcMap(t.readAt, op.Task)[op.Loc] = op.Src
			}
		}
		if ws := t.reqWrote[op.Loc]; len(ws) > 0 && t.running(op.Task) {
			t.readCarried(op, ws, pos)
		}
	case traces.Alloc:
		if t.condObjs[op.Loc.Obj] && t.running(op.Task) {
			t.madeBy[op.Loc.Obj] = op.Task
			t.made[op.Task] = append(t.made[op.Task], op.Loc.Obj)
		}
	case traces.Signal:
		t.signaller[op.Name] = cause{task: op.Task, pos: pos}
		t.caused(op.Task, pos)
	case traces.Wait:
		if s, ok := t.signaller[op.Name]; ok && t.events.get(op.Task) == nil && len(t.waited[op.Task]) < maxWaited {
			t.waited[op.Task] = append(t.waited[op.Task], waitOf{signal: s, pos: pos})
		}
	case traces.Write:
		if op.Init { // a declared initial value: what "before" is
			if _, ok := t.conds.byLoc[op.Loc]; ok && !op.Val.IsAbsent() {
				t.heap[op.Loc] = op.Val
			}
			return
		}
		t.carry(op)
		t.write(op, opAt{pos: pos, line: line, src: op.Src})
	case traces.End:
		t.end(op.Task, line, op.TS, op.HasTS)
	}
}

// maxCarried bounds the REQ events a location's value carries through
// in-place updates: a dependence on an older one is not seen, and the
// pair is kept (reported).
const maxCarried = 64

// readCarried records that running event op.Task read, at op.Loc and
// op number pos, what the REQ events ws wrote.
func (t *tracker) readCarried(op *traces.Op, ws []traces.Sym, pos int64) {
	from := t.readFrom[op.Task]
	if !slices.ContainsFunc(from, func(c carried) bool {
		return c.loc == op.Loc && len(c.from) == len(ws) && &c.from[0] == &ws[0]
	}) {
		t.readFrom[op.Task] = append(from, carried{op.Loc, ws, pos})
	}
	if op.Src != traces.NoSym {
		t.srcMap(t.carriedAt, op.Task)[op.Loc] = op.Src
	}
}

// srcMap returns task's map in m, made (or reused) if it has none.
func (t *tracker) srcMap(m map[traces.Sym]map[traces.Location]traces.Sym, task traces.Sym) map[traces.Location]traces.Sym {
	at := m[task]
	if at == nil {
		if n := len(t.spare); n > 0 {
			at, t.spare = t.spare[n-1], t.spare[:n-1]
		} else {
			at = make(map[traces.Location]traces.Sym)
		}
		m[task] = at
	}
	return at
}

// dropSrcMap forgets task's map in m, keeping it for reuse.
func (t *tracker) dropSrcMap(m map[traces.Sym]map[traces.Location]traces.Sym, task traces.Sym) {
	if at := m[task]; at != nil {
		clear(at)
		t.spare = append(t.spare, at)
		delete(m, task)
	}
}

// carry updates which REQ events the value at op.Loc carries after the
// write op: a write in place (from the src of the event's last read
// there) keeps those the value carried, and adds its event if that is a
// REQ; any other write leaves its event's alone (or none).
func (t *tracker) carry(op *traces.Op) {
	req := t.reqEvents.has(op.Task)
	ws := t.reqWrote[op.Loc]
	// Only the src convention (the Node.js recorder's) carries: a
	// write marked update whose event merely copies the value on (a
	// counter saved to a database) is no dependence on every increment.
	inPlace := len(ws) > 0 && op.Src != traces.NoSym && t.running(op.Task) && t.carriedAt[op.Task][op.Loc] == op.Src
	switch {
	case inPlace && req && !slices.Contains(ws, op.Task):
		if len(ws) == maxCarried {
			ws = ws[1:]
		}
		t.reqWrote[op.Loc] = append(ws, op.Task)
	case inPlace:
	case req:
		t.reqWrote[op.Loc] = append(ws[:0:0], op.Task)
	default:
		delete(t.reqWrote, op.Loc)
	}
}

// handler returns the handler task is in, or NoSym.
func (t *tracker) handler(task traces.Sym) traces.Sym { return t.handlers.of(task) }

func (t *tracker) write(op *traces.Op, at opAt) {
	ids := t.conds.byLoc[op.Loc]
	if len(ids) == 0 || op.Val.IsAbsent() {
		return // no condition's datum, or a write of unknown effect
	}
	inEvent := t.running(op.Task)
	h := t.handler(op.Task)
	inPlace := inEvent && (op.Update || op.Src != traces.NoSym && t.readAt[op.Task][op.Loc] == op.Src)
	var own []openTouch // a thread's write is a unit of its own
	for _, id := range ids {
		var ot *openTouch
		if inEvent {
			opens := t.open[op.Task]
			for i := range opens {
				if opens[i].cond == id {
					ot = &opens[i]
					break
				}
			}
		}
		c := t.conds.list[id]
		n := len(c.locs)
		if ot == nil {
			vals := make([]traces.Value, 2*n)
			for i, l := range c.locs {
				if !inEvent || l.Static || t.madeBy[l.Obj] != op.Task {
					vals[i] = t.heap[l]
				} // else the object did not exist before the event: no value
				vals[n+i] = t.heap[l]
			}
			o := openTouch{cond: id, vals: vals, from: t.eng.Time(), first: at.pos, firstTS: t.now, held: inEvent && t.holds(c, vals[:n])}
			if inEvent {
				t.open[op.Task] = append(t.open[op.Task], o)
				opens := t.open[op.Task]
				ot = &opens[len(opens)-1]
			} else {
				own = append(own, o)
				ot = &own[len(own)-1]
			}
		}
		for i, l := range c.locs {
			if l == op.Loc {
				ot.vals[n+i] = op.Val
			}
		}
		ot.at, ot.handler, ot.to, ot.lastTS = at, h, t.eng.Epoch(), t.now
		// Past projectAt writers, REQs keep whole times: no need to
		// look for more.
		if ch := ot.to.Chain(); len(c.writers) <= t.projectAt && !slices.Contains(c.writers, ch) {
			c.writers = append(c.writers, ch)
		}
		ot.absolute = ot.absolute || !inPlace
		if ot.held {
			t.midEvent(c, ot, at, h)
		}
	}
	t.heap[op.Loc] = op.Val
	if len(own) == 0 {
		return
	}
	u := &unit{task: op.Task, thread: op.Task, beginLine: at.line, endLine: at.line, beginTS: op.TS, endTS: op.TS, hasTS: op.HasTS}
	id := t.newUnit()
	t.close(own, func() (int32, *unit) { return id, u })
}

// midEvent follows an event's writes to a condition that held before
// it: the first write that makes it false opens a mid-event KILL, the
// next that makes it true again closes it.
func (t *tracker) midEvent(c *cond, ot *openTouch, at opAt, h traces.Sym) {
	n := len(c.locs)
	switch m := ot.mid; {
	case m == nil:
		if !t.holds(c, ot.vals[n:]) {
			ot.mid = &midStretch{from: t.eng.Time(), first: at.pos, firstTS: t.now, at: at, handler: h, vals: slices.Clone(ot.vals)}
		}
	case !m.restored:
		if t.holds(c, ot.vals[n:]) {
			m.restored, m.to, m.last, m.lastTS = true, t.eng.Epoch(), at.pos, t.now
		}
	}
}

// newUnit numbers a new unit.
func (t *tracker) newUnit() int32 {
	t.units++
	return t.units - 1
}

// agedAt is the trace time after which an op is more than the window
// later than now (+Inf without a window).
func (t *tracker) agedAt() float64 { return t.aged(t.now) }

func (t *tracker) aged(ts float64) float64 {
	if t.window <= 0 {
		return math.Inf(1)
	}
	return ts + t.window
}

// advance lets the checker go as far as the second pass allows at op
// pos: every touch before the oldest running event's begin, or before
// pos if none runs, is final.
func (t *tracker) advance(pos int64) {
	frontier, ts := pos, t.now
	for _, b := range t.begins {
		if b.pos < frontier {
			frontier, ts = b.pos, b.ts
		}
	}
	t.chk.advance(frontier, ts, false)
}

// end finishes event task: its REQs get their unit, its effects become
// GEN or KILL touches. line is 0 for an event still running at the end
// of the trace.
func (t *tracker) end(task traces.Sym, line int, ts float64, hasTS bool) {
	ev := t.events.get(task)
	b, ok := t.begins[task]
	delete(t.begins, task)
	t.handlers.end(task)
	refs := t.reqsOf[task]
	delete(t.reqsOf, task)
	if ev == nil || !ok {
		for _, i := range refs {
			delete(t.pending, i)
		}
		return
	}
	opens := t.open[task]
	delete(t.open, task)
	t.dropSrcMap(t.readAt, task)
	t.dropSrcMap(t.carriedAt, task)
	for _, o := range t.made[task] {
		delete(t.madeBy, o)
	}
	delete(t.made, task)
	if len(refs) == 0 && len(opens) == 0 {
		// No REQ, GEN or KILL: only its reads before it caused something
		// matter, and of those, only whom it read from, not where.
		t.trimReads(task, b.lastCause)
		from := t.readFrom[task]
		for i := range from {
			from[i].loc = traces.Location{}
		}
		from = slices.CompactFunc(from, func(a, b carried) bool {
			return len(a.from) == len(b.from) && &a.from[0] == &b.from[0]
		})
		if len(from) > 0 {
			t.readFrom[task] = slices.Clip(from)
		}
		return
	}
	ui, u := int32(-1), (*unit)(nil)
	mk := func() (int32, *unit) {
		if u == nil {
			ui, u = t.newUnit(), &unit{task: task, thread: b.thread, lastCause: b.lastCause,
				beginLine: b.line, beginTS: b.beginTS, endLine: line, endTS: ts, hasTS: b.hasTS && hasTS}
		}
		return ui, u
	}
	for _, i := range refs {
		p, ok := t.pending[i]
		if !ok {
			continue // not timed: only a trace that changed between the passes
		}
		delete(t.pending, i)
		p.tc.unit, p.tc.u = mk()
		t.chk.add(p.cond, t.conds.list[p.cond], *p.tc)
	}
	t.close(opens, mk)
}

// close turns effects into GEN and KILL touches, which it hands to the
// checker; a NOP leaves nothing.
func (t *tracker) close(opens []openTouch, unitOf func() (int32, *unit)) {
	for _, ot := range opens {
		c := t.conds.list[ot.cond]
		n := len(c.locs)
		before, known := c.eval.EvalTrace(ot.vals[:n], t.syms)
		if !known {
			continue // a datum had no value yet: the event initializes c
		}
		after := t.holds(c, ot.vals[n:])
		var r role
		switch {
		case !before && after:
			r = gen
		case before && !after:
			r = kill
		case before && after && ot.mid != nil:
			m := ot.mid
			tc := touch{role: midKill, from: &m.from, to: m.to, pos: m.first, first: m.first, last: m.last,
				firstTS: m.firstTS, agedAt: t.aged(m.lastTS), line: m.at.line, src: m.at.src, handler: m.handler, vals: m.vals}
			tc.unit, tc.u = unitOf()
			t.chk.add(ot.cond, c, tc)
			continue
		default:
			continue
		}
		from := ot.from
		tc := touch{role: r, relative: !ot.absolute, from: &from, to: ot.to, pos: ot.at.pos, first: ot.first, last: ot.at.pos,
			firstTS: ot.firstTS, agedAt: t.aged(ot.lastTS), line: ot.at.line, src: ot.at.src, handler: ot.handler, vals: ot.vals}
		tc.unit, tc.u = unitOf()
		t.chk.add(ot.cond, c, tc)
	}
}

// caused notes that task, if an event, sent, forked or signalled at op
// number pos.
func (t *tracker) caused(task traces.Sym, pos int64) {
	if b, ok := t.begins[task]; ok && b.sent {
		b.lastCause = pos
		t.begins[task] = b
	}
}

// trimReads keeps of the reads of ended event task only those a later
// event may depend on: those before its last send, fork or signal, at op
// number before (0 if none). Called once no check asks about its own
// reads (its touches are all replayed, or it has none).
func (t *tracker) trimReads(task traces.Sym, before int64) {
	from := t.readFrom[task]
	if len(from) == 0 {
		return
	}
	if t.untrimmed != nil {
		t.untrimmed[task] = slices.Clone(from)
	}
	n := 0
	for _, c := range from {
		if c.pos < before {
			from[n] = c
			n++
		}
	}
	switch {
	case n == 0:
		delete(t.readFrom, task)
	case n < len(from):
		t.readFrom[task] = slices.Clone(from[:n]) // the rest of the array goes
	}
}

// running reports whether task is an event that runs.
func (t *tracker) running(task traces.Sym) bool {
	b, ok := t.begins[task]
	return ok && b.sent
}

// dependent reports whether touch later's event depends on what touch
// earlier's event wrote: it read a value that event wrote (the last write
// to the location when it read it) at a location not in except, or one
// of its causes read one before causing it: up its senders (an event's
// reads before it sent the next), and for an event a thread sent (or a
// thread's own write), the tasks whose signals the thread waited on
// before (their reads before the signal). Had later's event run first,
// it would have read something else, or not have been sent as it was.
// Only ops before later's event ended count, so the answer is the same
// whenever it is asked after that.
func (t *tracker) dependent(later, earlier *touch, except []traces.Location) bool {
	k, w := later.u.task, earlier.u.task
	if t.readFromAt(k, w, except, math.MaxInt64) {
		return true
	}
	seen := map[traces.Sym]bool{k: true}
	todo := t.causes(k, later.first, nil)
	for n := 0; len(todo) > 0 && n < maxCauses; n++ {
		c := todo[0]
		todo = todo[1:]
		if seen[c.task] {
			continue
		}
		seen[c.task] = true
		if t.readFromAt(c.task, w, nil, c.pos) {
			return true
		}
		todo = t.causes(c.task, c.pos, todo)
	}
	return false
}

// causes appends to out the causes of event (or thread) task: an event's
// sender if that is an event, else the signals the sending thread waited
// for before the send; a thread's, the signals it waited for before op
// number before.
func (t *tracker) causes(task traces.Sym, before int64, out []cause) []cause {
	ev := t.events.get(task)
	if ev == nil {
		return t.waitedBefore(task, before, out)
	}
	s := ev.sender
	if s == traces.NoSym {
		return out
	}
	if t.events.get(s) != nil {
		return append(out, cause{task: s, pos: ev.sendPos})
	}
	return t.waitedBefore(s, ev.sendPos, out)
}

// waitedBefore appends to out the signals thread waited for before op
// number before.
func (t *tracker) waitedBefore(thread traces.Sym, before int64, out []cause) []cause {
	for _, w := range t.waited[thread] {
		if w.pos < before {
			out = append(out, w.signal)
		}
	}
	return out
}

// holds evaluates c on vals; a condition that cannot be decided does not
// hold.
func (t *tracker) holds(c *cond, vals []traces.Value) bool {
	h, ok := c.eval.EvalTrace(vals, t.syms)
	return h && ok
}

// finish ends the events still running when the trace ends, in the order
// they began.
func (t *tracker) finish() {
	tasks := make([]traces.Sym, 0, len(t.begins))
	for task := range t.begins {
		tasks = append(tasks, task)
	}
	slices.SortFunc(tasks, func(a, b traces.Sym) int { return cmp.Compare(t.begins[a].pos, t.begins[b].pos) })
	for _, task := range tasks {
		t.end(task, 0, 0, false)
	}
	t.chk.advance(0, 0, true)
}
