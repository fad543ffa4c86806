package detect

import (
	"cmp"
	"slices"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// The checks of §5.4 over every touch of a condition at once, after the
// second pass: the reference that the streams (checker) must agree
// with, and what the package doc describes.

// check runs the checks of thesis §5.4 on every realized condition of a
// trace, then pairs its mid-event KILLs, and returns what they find,
// condition by condition, each in trace order (the mid-event pairs of a
// condition last). units are the trace's units, by number.
//
// dependent(later, earlier, except) reports whether later's event depends
// on what earlier's wrote (see replay and tracker.dependent); holds
// evaluates a condition on values.
func check(cs *conds, stats *TraceStats, dependent func(later, earlier *touch, except []traces.Location) bool, holds func(c *cond, vals []traces.Value) bool) []finding {
	var out []finding
	for id, c := range cs.list {
		// A REQ whose event never began in the second pass has no time
		// (only a trace that changed between the passes has one).
		c.touches = slices.DeleteFunc(c.touches, func(t touch) bool { return t.unit < 0 })
		slices.SortStableFunc(c.touches, func(x, y touch) int { return cmp.Compare(x.pos, y.pos) })
		classify(c, stats)
		out = replay(out, int32(id), c, dependent, holds, stats)
		out = midPairs(out, int32(id), c, stats)
	}
	return out
}

// midPairs pairs every mid-event KILL of c — an event whose own writes
// made c false and then true again — with the REQs of c on other threads
// that are concurrent with the stretch in which c was false: such a REQ
// may run in the middle and find c false (an atomicity violation, thesis
// §4.5.5). The pair is a REQ-KILL finding, the REQ first. Events of one
// looper never interleave, so a REQ on the event's own thread is no pair;
// nor is one that happens before the write that made c false or after
// the write that made it true again. A REQ that did read c false is a
// precondition violation, which replay pairs with the mid-event KILL it
// read the middle of. There is no minor mid-event KILL beyond that: the
// event restores c itself, so no GEN can stand between it and a REQ.
//
// As R_c does for KILLs, one REQ stands for the others of its chain and
// requiring spec condition: the REQs of a chain are ordered, those that
// happen before the stretch are a prefix and those after it a suffix, so
// the concurrent ones lie between, and the first of them that held is
// paired. Each mid-event KILL costs a binary search per chain and
// condition, not a pass over every REQ.
func midPairs(out []finding, id int32, c *cond, stats *TraceStats) []finding {
	type group struct {
		chain asyncclock.Chain
		spec  *learn.Condition
		reqs  []int32 // in trace order, which is the chain's order
	}
	var groups []group
	var mids []int32
	for i := range c.touches {
		t := &c.touches[i]
		switch t.role {
		case req:
			ch := t.to.Chain()
			j := slices.IndexFunc(groups, func(g group) bool { return g.chain == ch && g.spec == t.spec })
			if j < 0 {
				groups = append(groups, group{chain: ch, spec: t.spec})
				j = len(groups) - 1
			}
			groups[j].reqs = append(groups[j].reqs, int32(i))
		case midKill:
			mids = append(mids, int32(i))
		}
	}
	stats.MidKills += len(mids)
	for _, m := range mids {
		tm := &c.touches[m]
		for _, g := range groups {
			k, _ := slices.BinarySearchFunc(g.reqs, true, func(r int32, _ bool) int {
				if before(&c.touches[r], tm) {
					return -1
				}
				return 1
			})
			for ; k < len(g.reqs); k++ {
				r := g.reqs[k]
				tr := &c.touches[r]
				if before(tm, tr) {
					break
				}
				if tr.holds && tr.u.thread != tm.u.thread {
					out = append(out, finding{kind: ReqKill, cond: id, mid: true, a: tr, b: tm})
					break
				}
			}
		}
	}
	return out
}

// classify marks the minor GENs and minor KILLs of c (§5.2.2). A GEN e is
// minor if every event e' requiring c either is e or happens before e, or
// happens after e with a KILL e* of c strictly in between (e ≺ e* ≺ e');
// a minor KILL is the same with the roles of GEN and KILL exchanged. The
// in-between event must be distinct from both: an event that requires c
// and then kills it relied on the GEN before it. Minor events commute
// with every other event as far as c is concerned.
func classify(c *cond, stats *TraceStats) {
	reqs, gens, kills := byRole(c.touches)
	for i := range c.touches {
		if c.touches[i].relative {
			stats.Relative++
		}
	}
	stats.Reqs += len(reqs)
	stats.Gens += len(gens)
	stats.Kills += len(kills)
	for _, g := range gens {
		if c.touches[g].minor = minor(c.touches, g, reqs, kills); c.touches[g].minor {
			stats.MinorGens++
		}
	}
	for _, k := range kills {
		if c.touches[k].minor = minor(c.touches, k, reqs, gens); c.touches[k].minor {
			stats.MinorKills++
		}
	}
}

// replay runs the epoch checks of §5.4 over c's touches in trace order,
// treating c as a logical variable that REQs read and non-minor GENs and
// KILLs write, and appends what it finds to out:
//
//  1. a REQ on a false condition is a precondition violation (paired with
//     the last KILL before it, or the mid-event KILL it read the middle
//     of, if any); on a true one, if the last write
//     M_c is a GEN that does not happen before it, a GEN-REQ pair;
//  2. a non-minor KILL forms a REQ-KILL pair with the last REQ of every
//     chain that does not happen before it (R_c^(i)), and a GEN-KILL pair
//     with M_c if M_c is a GEN that does not happen before it;
//  3. a non-minor GEN forms a GEN-KILL pair with M_c if M_c is a KILL
//     that does not happen before it.
//
// The thesis infers what M_c holds from S_c (the condition's state);
// here the role of M_c is checked instead, so that writes outside the
// events considered (or a trace that began with the condition true)
// cannot pair two GENs or two KILLs. R_c^(i) is not cleared by a KILL: an
// earlier REQ concurrent with a later KILL is a pair too. And it is kept
// per requiring spec condition, not only per chain: reports are grouped by
// handlers and condition, and the last REQ of a chain stands for the
// earlier ones of the same condition only (if it happens before a KILL,
// so do they), not for those of another handler.
//
// A relative GEN or KILL (an update in place, count++) is judged by its
// change, not by the value it wrote: had it run on the other side of a
// REQ, the REQ would have read its values with the change applied (a
// KILL) or undone (a GEN). It pairs with the REQ only if the condition is
// false on those values: two increments of a bounded counter commute, an
// increment past a bound that a reader needs does not. A relative touch
// whose change is not a number at each location it changed (an append)
// pairs with nothing. Relative touches are no M_c and form no GEN-KILL
// pairs; the last relative GEN since M_c is kept for GEN-REQ pairs.
//
// A REQ-KILL pair whose KILL's event depends on what the REQ's event
// wrote (dependent: it, or one of its causes, read it) is left out and
// counted in stats.ReadReq; as the last REQ of its chain, that REQ stands
// for the earlier ones (the KILL cannot run before them without running
// before it). A GEN-REQ pair likewise (stats.ReadGen), except for the
// REQ's own reads of the condition's data.
func replay(out []finding, id int32, c *cond, dependent func(later, earlier *touch, except []traces.Location) bool,
	holds func(c *cond, vals []traces.Value) bool, stats *TraceStats) []finding {
	m, lastKill, lastMid, relGen := int32(-1), int32(-1), int32(-1), int32(-1)
	// commutes reports whether REQ r still holds with relative touch x's
	// change applied (sign 1) or undone (-1).
	commutes := func(r, x *touch, sign int64) bool {
		vals, ok := shifted(len(c.locs), x, r.vals, sign)
		return !ok || holds(c, vals)
	}
	var last []reqAt
	at := func(i int32) *touch { // nil for -1
		if i < 0 {
			return nil
		}
		return &c.touches[i]
	}
	ordered := func(a, b int32) bool { // touch a is of b's event or happens before b
		ta, tb := &c.touches[a], &c.touches[b]
		return ta.unit == tb.unit || before(ta, tb)
	}
	for i := range c.touches {
		e := int32(i)
		t := &c.touches[i]
		switch t.role {
		case req:
			switch {
			case !t.holds:
				k := lastKill
				if lastMid >= 0 && c.touches[lastMid].last > t.pos && (k < 0 || c.touches[k].pos < c.touches[lastMid].pos) {
					k = lastMid // the REQ read in the middle of that event
				}
				out = append(out, finding{kind: Violation, cond: id, a: at(k), b: at(e)})
			case m >= 0 && c.touches[m].role == gen && !ordered(m, e):
				if dependent(t, &c.touches[m], c.locs) {
					stats.ReadGen++
					break
				}
				out = append(out, finding{kind: GenReq, cond: id, a: at(m), b: at(e)})
			case relGen >= 0 && !ordered(relGen, e) && !commutes(t, &c.touches[relGen], -1):
				if dependent(t, &c.touches[relGen], c.locs) {
					stats.ReadGen++
					break
				}
				out = append(out, finding{kind: GenReq, cond: id, a: at(relGen), b: at(e)})
			}
			ch := t.to.Chain()
			j := slices.IndexFunc(last, func(r reqAt) bool { return r.chain == ch && r.spec == t.spec })
			if j < 0 {
				last = append(last, reqAt{chain: ch, spec: t.spec, touch: e})
			} else {
				last[j].touch = e
			}
		case kill:
			lastKill = e
			if t.minor {
				continue
			}
			if t.relative {
				for _, r := range last {
					tr := &c.touches[r.touch]
					if !ordered(r.touch, e) && !commutes(tr, t, 1) && !dependent(t, tr, nil) {
						out = append(out, finding{kind: ReqKill, cond: id, a: at(r.touch), b: at(e)})
					}
				}
				continue
			}
			for _, r := range last {
				switch {
				case ordered(r.touch, e):
				case dependent(t, &c.touches[r.touch], nil):
					stats.ReadReq++
				default:
					out = append(out, finding{kind: ReqKill, cond: id, a: at(r.touch), b: at(e)})
				}
			}
			if m >= 0 && c.touches[m].role == gen && !ordered(m, e) {
				out = append(out, finding{kind: GenKill, cond: id, a: at(m), b: at(e)})
			}
			m, relGen = e, -1
		case midKill:
			lastMid = e
		case gen:
			if t.minor {
				continue
			}
			if t.relative {
				relGen = e
				continue
			}
			if m >= 0 && c.touches[m].role == kill && !ordered(m, e) {
				out = append(out, finding{kind: GenKill, cond: id, a: at(m), b: at(e)})
			}
			m, relGen = e, -1
		}
	}
	return out
}
