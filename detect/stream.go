package detect

import (
	"cmp"
	"math"
	"slices"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// checker runs the checks of §5.4 (the package doc's "The checks")
// condition by condition as the second pass finds the touches, instead
// of after it, so that what it keeps of a condition is what a later
// touch can still be paired with or decided by, not every touch of the
// trace.
//
// A touch is final when its event has ended (a thread's write at once).
// Every touch placed before the frontier — the begin of the oldest event
// still running, or the current op if none runs — is final, and every
// touch to come is placed at or after it, so a condition's touches before
// the frontier can be replayed in trace order. What a GEN or KILL does
// depends on whether it is minor, which depends on REQs to come: a GEN
// that some REQ is concurrent with, or follows with no KILL in between,
// is not minor whatever comes later; one that is minor so far is minor
// for good once a KILL it happens before is older than the window
// (touch.agedAt) at the frontier, since every later REQ comes after that
// KILL. Until one or the other, the GEN and the touches after it wait.
// A mid-event KILL is paired once the frontier is more than the window
// past it: no REQ to come can be concurrent with it.
//
// Without a window (or a trace without timestamps) nothing ages, and a
// condition whose GEN or KILL waits keeps its touches to the end: the
// result is then that of checking them all at the end.
type checker struct {
	streams   []*stream // by condition; nil until its first touch
	active    []*stream // with touches not yet in order, replayed or paired
	stats     *TraceStats
	dependent func(later, earlier *touch, except []traces.Location) bool
	holds     func(c *cond, vals []traces.Value) bool
	// replayed, if set, is told of a unit whose touches are all replayed:
	// no check asks about its event as the later of a pair again.
	replayed func(u *unit)
	// keepAll keeps every touch in its condition's touches as well (tests
	// check the streams against the check of them all at the end).
	keepAll bool
	// held counts the touches the streams hold (in buf and arrived),
	// peak the most they held at once.
	held, peak int
	// found are the pairs the streams found, in the order found (see
	// findings for the order they are given in).
	found []finding
	// ready is step's room for the touches it moves into a stream.
	ready []touch
	// pruneAt is the fewest replayed touches a buffer holds before it is
	// pruned (minPrune; tests: fewer), and again when they have doubled
	// since.
	pruneAt int
	// projectAt is the most chains a touch's from time is projected on
	// as it enters its stream (tracker.projectAt; -1: never).
	projectAt int
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// minPrune is checker.pruneAt unless told otherwise.
const minPrune = 8

// stream is the check of one condition.
type stream struct {
	id int32
	// active: in the checker's active list; many: see toChains.
	active, many bool
	c            *cond
	// buf holds the condition's touches in trace order that the check
	// still needs: those not yet replayed (from done on), and before
	// them the ones replay's state names and the REQs a touch to come
	// may be concurrent with.
	buf     []touch
	done    int
	arrived []touch // final touches not yet in buf
	// The state of replay (check): M_c, the last KILL, the last mid-event
	// KILL and the last relative GEN since M_c (indices in buf, -1 if
	// none), and R_c.
	m, lastKill, lastMid, relGen int32
	last                         []reqAt
	// groups are the REQs in buf by chain and spec, in the order their
	// first REQ came; mids the mid-event KILLs in buf not yet paired.
	groups []reqGroup
	mids   []int32
	// firstSpec is the spec condition of the first REQ: a GEN-KILL pair's.
	firstSpec *learn.Condition
	roles     []roleCount
	// wakeAt is the trace time after which the stream may go further
	// without a new touch (+Inf: only a new touch lets it).
	wakeAt float64
	// kept is how many replayed touches the last pruning kept, and
	// keptUntil the trace time after which one of the REQs it kept only
	// for their age could go (+Inf: none).
	kept      int
	keptUntil float64
	// toChains are the chains of the last ops (touch.to) of the touches
	// in buf, and of some pruned since; many: there were more than the
	// checker's projectAt, and toChains is not kept. See enter.
	toChains []asyncclock.Chain
}

// reqGroup is the REQs of one chain and requiring spec condition.
type reqGroup struct {
	chain asyncclock.Chain
	spec  *learn.Condition
	reqs  []int32 // in buf, in trace order
}

// roleCount counts the touches of one role and handler.
type roleCount struct {
	handler traces.Sym
	role    role
	n       int
}

func newChecker(n int, stats *TraceStats, dependent func(later, earlier *touch, except []traces.Location) bool, holds func(c *cond, vals []traces.Value) bool) *checker {
	return &checker{streams: make([]*stream, n), stats: stats, dependent: dependent, holds: holds, pruneAt: minPrune, projectAt: maxProjected}
}

// add hands the checker a final touch of condition id.
func (k *checker) add(id int32, c *cond, t touch) {
	s := k.streams[id]
	if s == nil {
		s = &stream{id: id, c: c, m: -1, lastKill: -1, lastMid: -1, relGen: -1, keptUntil: math.Inf(1)}
		k.streams[id] = s
	}
	if k.keepAll {
		c.touches = append(c.touches, t)
	}
	t.u.waiting++
	s.arrived = append(s.arrived, t)
	if k.held++; k.held > k.peak {
		k.peak = k.held
	}
	if !s.active {
		s.active = true
		k.active = append(k.active, s)
	}
}

// advance checks what the frontier allows: every touch placed before op
// frontier is final, and trace time there is tsF. final: the trace has
// ended, every touch is final and nothing more comes.
func (k *checker) advance(frontier int64, tsF float64, final bool) {
	if final {
		for _, s := range k.streams {
			if s != nil {
				k.step(s, math.MaxInt64, math.Inf(1), true)
			}
		}
		clear(k.active)
		k.active = k.active[:0]
		return
	}
	n := 0
	for _, s := range k.active {
		if len(s.arrived) > 0 || s.wakeAt < tsF {
			k.step(s, frontier, tsF, false)
		}
		if len(s.arrived) > 0 || !math.IsInf(s.wakeAt, 1) {
			k.active[n] = s
			n++
		} else {
			s.active = false // until its next touch
		}
	}
	clear(k.active[n:])
	k.active = k.active[:n]
}

// findings returns what the checks found, condition by condition, each
// in trace order (the mid-event pairs of a condition last), as checking
// every touch at the end would. Call it after the final advance.
func (k *checker) findings() []finding {
	out := slices.Clone(k.found)
	slices.SortStableFunc(out, func(x, y finding) int {
		if c := cmp.Compare(x.cond, y.cond); c != 0 {
			return c
		}
		return cmp.Compare(b2i(x.mid), b2i(y.mid))
	})
	return out
}

// step moves s's final touches before the frontier into buf, replays
// them as far as every GEN and KILL among them is decided, pairs the
// mid-event KILLs no REQ to come can be concurrent with, and drops what
// no touch to come needs.
func (k *checker) step(s *stream, frontier int64, tsF float64, final bool) {
	ready := k.ready[:0]
	n := 0
	for _, t := range s.arrived {
		if t.pos < frontier {
			ready = append(ready, t)
		} else {
			s.arrived[n] = t
			n++
		}
	}
	clear(s.arrived[n:])
	s.arrived = s.arrived[:n]
	if n == 0 {
		s.arrived = nil // most conditions are touched now and then: no room kept
	}
	slices.SortFunc(ready, func(x, y touch) int { return cmp.Compare(x.pos, y.pos) })
	for _, t := range ready {
		k.enter(s, t)
	}
	clear(ready) // what they point to goes with them
	k.ready = ready[:0]
	var reqs, gens, kills []int32 // for minor, made when first needed
	s.wakeAt = math.Inf(1)
	for ; s.done < len(s.buf); s.done++ {
		e := int32(s.done)
		t := &s.buf[e]
		if t.role == gen || t.role == kill {
			if reqs == nil {
				reqs, gens, kills = byRole(s.buf)
			}
			opposite := kills
			if t.role == kill {
				opposite = gens
			}
			isMinor := minor(s.buf, e, reqs, opposite)
			if isMinor && !final {
				if at := s.settlesAt(e, opposite); !(at < tsF) {
					s.wakeAt = at
					break // minor so far; a REQ to come may still need it
				}
			}
			if t.minor = isMinor; isMinor {
				if t.role == gen {
					k.stats.MinorGens++
				} else {
					k.stats.MinorKills++
				}
			}
		}
		k.replay(s, e)
		u := s.buf[e].u
		if u.waiting--; u.waiting == 0 && k.replayed != nil {
			k.replayed(u)
		}
	}
	for len(s.mids) > 0 {
		m := s.mids[0]
		if !final && !(s.buf[m].agedAt < tsF) {
			s.wakeAt = min(s.wakeAt, s.buf[m].agedAt)
			break
		}
		k.pairMid(s, m)
		s.mids = s.mids[1:]
	}
	// Prune when the replayed touches have doubled, when the stream
	// sleeps until its next touch (most conditions are touched now and
	// then, and all of them wait at once), or when REQs kept for their
	// age have aged; and wake up for that.
	sleeps := len(s.arrived) == 0 && math.IsInf(s.wakeAt, 1)
	if !final && (s.done > s.kept && (s.done >= max(2*s.kept, k.pruneAt) || sleeps) || s.keptUntil < tsF) {
		n := len(s.buf)
		s.prune(tsF, k.projectAt, sleeps)
		k.held -= n - len(s.buf)
	}
	s.wakeAt = min(s.wakeAt, s.keptUntil)
}

// enter appends touch t, next in trace order, to s.buf.
//
// t's from time is asked about only by before(x, t), for a touch x whose
// last op precedes t's first (x.last < t.first), of the same condition.
// Every such x came before t in trace order and, being final, is in buf
// now or never will be again (pruned). So t keeps, instead of its time,
// that time's clocks of the chains of buf's touches' last ops, if they
// are few. A GEN's or KILL's full time kept every block of clocks it
// was made of alive for as long as the condition held it (M_c, R_c).
func (k *checker) enter(s *stream, t touch) {
	if !t.projected && !s.many {
		t.proj, t.projected, t.from = project(*t.from, s.toChains), true, nil
	}
	s.noteTo(t.to.Chain(), k.projectAt)
	i := int32(len(s.buf))
	switch t.role {
	case req:
		k.stats.Reqs++
		if s.firstSpec == nil {
			s.firstSpec = t.spec
		}
		ch := t.to.Chain()
		j := slices.IndexFunc(s.groups, func(g reqGroup) bool { return g.chain == ch && g.spec == t.spec })
		if j < 0 {
			s.groups = append(s.groups, reqGroup{chain: ch, spec: t.spec})
			j = len(s.groups) - 1
		}
		s.groups[j].reqs = append(s.groups[j].reqs, i)
	case gen:
		k.stats.Gens++
	case kill:
		k.stats.Kills++
	case midKill:
		k.stats.MidKills++
		s.mids = append(s.mids, i)
	}
	if t.relative {
		k.stats.Relative++
	}
	r := t.role
	if r == midKill {
		r = kill // counted with the KILLs (roleCounts)
	}
	if j := slices.IndexFunc(s.roles, func(rc roleCount) bool { return rc.handler == t.handler && rc.role == r }); j >= 0 {
		s.roles[j].n++
	} else {
		s.roles = append(s.roles, roleCount{handler: t.handler, role: r, n: 1})
	}
	s.buf = append(s.buf, t)
}

// noteTo adds c to s.toChains, unless they would then be more than
// limit.
func (s *stream) noteTo(c asyncclock.Chain, limit int) {
	if s.many || slices.Contains(s.toChains, c) {
		return
	}
	if len(s.toChains) >= limit {
		s.many, s.toChains = true, nil
		return
	}
	s.toChains = append(s.toChains, c)
}

// byRole returns the indices of the REQs, GENs and KILLs among ts.
func byRole(ts []touch) (reqs, gens, kills []int32) {
	reqs, gens, kills = []int32{}, []int32{}, []int32{}
	for i := range ts {
		switch ts[i].role {
		case req:
			reqs = append(reqs, int32(i))
		case gen:
			gens = append(gens, int32(i))
		case kill:
			kills = append(kills, int32(i))
		}
	}
	return reqs, gens, kills
}

// settlesAt returns the trace time after which touch e, minor so far,
// stays minor: the earliest at which an opposite touch that e happens
// before is older than the window, since every REQ to come happens after
// that one (+Inf if none: only a new touch can decide e).
func (s *stream) settlesAt(e int32, opposite []int32) float64 {
	te := &s.buf[e]
	at := math.Inf(1)
	lo, _ := slices.BinarySearch(opposite, e+1)
	for _, o := range opposite[lo:] {
		if to := &s.buf[o]; before(te, to) {
			at = min(at, to.agedAt)
		}
	}
	return at
}

// replay is one step of the replay of §5.4 (the package doc's "The
// checks"): touch e of s.buf, the next in trace order, with every
// earlier one replayed.
func (k *checker) replay(s *stream, e int32) {
	c, buf := s.c, s.buf
	t := &buf[e]
	ordered := func(a, b int32) bool { // touch a is of b's event or happens before b
		ta, tb := &buf[a], &buf[b]
		return ta.unit == tb.unit || before(ta, tb)
	}
	commutes := func(r, x *touch, sign int64) bool {
		vals, ok := shifted(len(c.locs), x, r.vals, sign)
		return !ok || k.holds(c, vals)
	}
	add := func(kind Kind, a, b int32) {
		f := finding{kind: kind, cond: s.id, b: copyTouch(&buf[b])}
		if a >= 0 {
			f.a = copyTouch(&buf[a])
		}
		k.found = append(k.found, f)
	}
	switch t.role {
	case req:
		switch {
		case !t.holds:
			kt := s.lastKill
			if s.lastMid >= 0 && buf[s.lastMid].last > t.pos && (kt < 0 || buf[kt].pos < buf[s.lastMid].pos) {
				kt = s.lastMid // the REQ read in the middle of that event
			}
			add(Violation, kt, e)
		case s.m >= 0 && buf[s.m].role == gen && !ordered(s.m, e):
			if k.dependent(t, &buf[s.m], c.locs) {
				k.stats.ReadGen++
				break
			}
			add(GenReq, s.m, e)
		case s.relGen >= 0 && !ordered(s.relGen, e) && !commutes(t, &buf[s.relGen], -1):
			if k.dependent(t, &buf[s.relGen], c.locs) {
				k.stats.ReadGen++
				break
			}
			add(GenReq, s.relGen, e)
		}
		ch := t.to.Chain()
		j := slices.IndexFunc(s.last, func(r reqAt) bool { return r.chain == ch && r.spec == t.spec })
		if j < 0 {
			s.last = append(s.last, reqAt{chain: ch, spec: t.spec, touch: e})
		} else {
			s.last[j].touch = e
		}
	case kill:
		s.lastKill = e
		if t.minor {
			return
		}
		if t.relative {
			for _, r := range s.last {
				tr := &buf[r.touch]
				if !ordered(r.touch, e) && !commutes(tr, t, 1) && !k.dependent(t, tr, nil) {
					add(ReqKill, r.touch, e)
				}
			}
			return
		}
		for _, r := range s.last {
			switch {
			case ordered(r.touch, e):
			case k.dependent(t, &buf[r.touch], nil):
				k.stats.ReadReq++
			default:
				add(ReqKill, r.touch, e)
			}
		}
		if s.m >= 0 && buf[s.m].role == gen && !ordered(s.m, e) {
			add(GenKill, s.m, e)
		}
		s.m, s.relGen = e, -1
	case midKill:
		s.lastMid = e
	case gen:
		if t.minor {
			return
		}
		if t.relative {
			s.relGen = e
			return
		}
		if s.m >= 0 && buf[s.m].role == kill && !ordered(s.m, e) {
			add(GenKill, s.m, e)
		}
		s.m, s.relGen = e, -1
	}
}

// pairMid pairs mid-event KILL m of s.buf (the package doc's "Mid-event
// KILLs"): with the first REQ of each group that held, ran on another
// thread and is ordered neither way with the stretch.
func (k *checker) pairMid(s *stream, m int32) {
	tm := &s.buf[m]
	for _, g := range s.groups {
		i, _ := slices.BinarySearchFunc(g.reqs, true, func(r int32, _ bool) int {
			if before(&s.buf[r], tm) {
				return -1
			}
			return 1
		})
		for ; i < len(g.reqs); i++ {
			tr := &s.buf[g.reqs[i]]
			if before(tm, tr) {
				break
			}
			if tr.holds && tr.u.thread != tm.u.thread {
				k.found = append(k.found, finding{kind: ReqKill, cond: s.id, mid: true, a: copyTouch(tr), b: copyTouch(tm)})
				break
			}
		}
	}
}

// prune drops from s.buf the touches no touch to come needs: replayed,
// not named by replay's state (R_c included), not a mid-event KILL still
// to pair, and, for a REQ, older than the window at the mid-event KILLs
// still to pair and the touches to come (at tsF or later), so that it
// happens before each of those.
//
// A GEN or KILL e not yet replayed needs no other REQ before it than
// R_c's: a REQ r that e does not come after is a witness that e is not
// minor, and so is the last REQ r' of r's chain and spec, since r ≺ r'
// and r' ≺ e would give r ≺ e; and were r' of e's own event (which minor
// passes over), r, earlier on the same chain, would happen before e.
func (s *stream) prune(tsF float64, projectAt int, sleeps bool) {
	horizon := tsF
	for _, m := range s.mids {
		horizon = min(horizon, s.buf[m].firstTS)
	}
	for i := range s.arrived {
		horizon = min(horizon, s.arrived[i].firstTS)
	}
	keep := make([]bool, len(s.buf))
	for i := s.done; i < len(s.buf); i++ {
		keep[i] = true
	}
	for _, i := range []int32{s.m, s.lastKill, s.lastMid, s.relGen} {
		if i >= 0 {
			keep[i] = true
		}
	}
	for _, r := range s.last {
		keep[r.touch] = true
	}
	for _, m := range s.mids {
		keep[m] = true
	}
	// REQs kept for their age alone can go once the frontier's time
	// passes them, if nothing older holds the horizon back.
	s.keptUntil = math.Inf(1)
	for i := range s.buf[:s.done] {
		if t := &s.buf[i]; t.role == req && t.agedAt >= horizon && !keep[i] {
			keep[i] = true
			if horizon == tsF {
				s.keptUntil = min(s.keptUntil, t.agedAt)
			}
		}
	}
	at := make([]int32, len(s.buf)) // new index, or -1
	n := int32(0)
	for i := range s.buf {
		at[i] = -1
		if keep[i] {
			s.buf[n] = s.buf[i]
			at[i] = n
			n++
		}
	}
	done := 0
	for i := range s.done {
		if keep[i] {
			done++
		}
	}
	clear(s.buf[n:])
	s.buf, s.done, s.kept = s.buf[:n], done, done
	if cap(s.buf) > 2*len(s.buf)+8 || sleeps && cap(s.buf) > len(s.buf) {
		// Give back the room: all of it if the stream sleeps until its
		// next touch (tens of thousands of conditions, each holding two
		// or three touches, wait at once).
		s.buf = slices.Clone(s.buf)
	}
	for _, p := range []*int32{&s.m, &s.lastKill, &s.lastMid, &s.relGen} {
		if *p >= 0 {
			*p = at[*p]
		}
	}
	for i := range s.last {
		s.last[i].touch = at[s.last[i].touch]
	}
	for i := range s.mids {
		s.mids[i] = at[s.mids[i]]
	}
	for gi := range s.groups {
		g := &s.groups[gi]
		rs := g.reqs[:0]
		for _, r := range g.reqs {
			if at[r] >= 0 {
				rs = append(rs, at[r])
			}
		}
		g.reqs = rs
	}
	s.toChains, s.many = s.toChains[:0], false
	for i := range s.buf {
		s.noteTo(s.buf[i].to.Chain(), projectAt)
	}
}

// roleCounts are the handlers of s's REQ, GEN and KILL events.
func (s *stream) roleCounts(syms *traces.Symbols) *roleCounts {
	rc := &roleCounts{req: []HandlerCount{}, gen: []HandlerCount{}, kill: []HandlerCount{}}
	for _, r := range s.roles {
		hc := HandlerCount{Handler: syms.String(r.handler), Events: r.n}
		switch r.role {
		case req:
			rc.req = append(rc.req, hc)
		case gen:
			rc.gen = append(rc.gen, hc)
		default:
			rc.kill = append(rc.kill, hc)
		}
	}
	for _, l := range [][]HandlerCount{rc.req, rc.gen, rc.kill} {
		slices.SortFunc(l, func(a, b HandlerCount) int { return cmp.Compare(a.Handler, b.Handler) })
	}
	return rc
}

// copyTouch returns a copy of t for a finding, which outlives the buffer.
func copyTouch(t *touch) *touch {
	c := *t
	return &c
}
