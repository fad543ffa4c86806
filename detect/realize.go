package detect

import (
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// realizer is the first pass over a trace: it names every handler
// invocation's live-in data with learn's Sampler, binds the spec's
// conditions to them (P[e], thesis §5.2.1) and records each event's REQ
// touches. Which locations matter for GEN and KILL is only known once
// every REQ is, hence the second pass (tracker).
type realizer struct {
	syms    *traces.Symbols
	sampler *learn.Sampler
	rz      *learn.Realizer
	conds   *conds
	stats   *TraceStats
	spec    *learn.Spec
	// reads holds, per running event, its first read of each location:
	// where its REQs are placed among the other touches.
	reads map[traces.Sym]map[traces.Location]opAt
	spare []map[traces.Location]opAt
	// begins is where each running event began, for REQs of conditions
	// over data the event did not read itself (extra fields).
	begins map[traces.Sym]opAt
	// reqList are the REQs of the trace, which become touches in the
	// second pass, once timed at their first and last ops and their event
	// ended; reqs are those of each running event (their numbers), and
	// reqEvents the events that had any.
	reqList   reqStore
	reqs      map[traces.Sym][]int32
	reqEvents symSet
	buf       []learn.Realized
}

// opAt is where an op is: its number, line and source location.
type opAt struct {
	pos  int64
	line int
	src  traces.Sym
}

func newRealizer(sp *learn.Spec, syms *traces.Symbols, cs *conds, stats *TraceStats) *realizer {
	sampler, rz := learn.NewSampler(syms), learn.NewRealizer(sp, syms)
	sampler.SetExtraFilter(rz)
	return &realizer{
		syms:    syms,
		sampler: sampler,
		rz:      rz,
		spec:    sp,
		conds:   cs,
		stats:   stats,
		reads:   make(map[traces.Sym]map[traces.Location]opAt),
		begins:  make(map[traces.Sym]opAt),
		reqs:    make(map[traces.Sym][]int32),
	}
}

// finish ends the pass: it orders the REQs for the second.
func (r *realizer) finish() {
	r.reqList.sort()
	r.conds.seal()
	for task := range r.reqs { // events still running at the end
		r.reqEvents.add(task)
	}
	r.reqs = nil
}

// step feeds op, the pos-th op of the trace, at line.
func (r *realizer) step(op *traces.Op, pos int64, line int) {
	at := opAt{pos: pos, line: line, src: op.Src}
	r.stats.Ops++
	switch op.Kind {
	case traces.Send:
		r.stats.Events++
	case traces.Begin:
		m := r.newReads()
		r.reads[op.Task] = m
		r.begins[op.Task] = at
	case traces.End:
		if m := r.reads[op.Task]; m != nil {
			clear(m)
			r.spare = append(r.spare, m)
			delete(r.reads, op.Task)
		}
		delete(r.begins, op.Task)
	case traces.Read:
		if m := r.reads[op.Task]; m != nil {
			if _, seen := m[op.Loc]; !seen {
				m[op.Loc] = at
			}
		}
	case traces.Error:
		if r.stats.Crash == "" {
			r.stats.Crash = r.syms.String(op.Name)
			r.stats.CrashLine = line
		}
	}
	inv := r.sampler.Step(op)
	if op.Kind == traces.End { // after the step: the sampler's last invocation of an event is at a ret
		if _, ok := r.reqs[op.Task]; ok {
			r.reqEvents.add(op.Task)
			delete(r.reqs, op.Task)
		}
	}
	if inv == nil || !inv.Event {
		return
	}
	r.stats.Invocations++
	if h := r.spec.Handler(r.syms.String(inv.Handler)); h != nil && len(h.Conditions) > 0 {
		r.stats.SpecInvocations++
	}
	r.buf = r.rz.Realize(inv, r.buf[:0])
	for i := range r.buf {
		r.require(inv, &r.buf[i])
	}
}

func (r *realizer) newReads() map[traces.Location]opAt {
	if n := len(r.spare); n > 0 {
		m := r.spare[n-1]
		r.spare = r.spare[:n-1]
		return m
	}
	return make(map[traces.Location]opAt)
}

// require records that inv's event requires rc.
func (r *realizer) require(inv *learn.Invocation, rc *learn.Realized) {
	id := r.conds.realize(rc)
	for _, i := range r.reqs[inv.Task] {
		if r.reqList.at(i).cond == id {
			return // an earlier invocation of the event required it already
		}
	}
	holds, ok := rc.Cond.EvalTrace(rc.Vals, r.syms)
	if !ok {
		r.stats.Undecided++
		return
	}
	// The REQ spans the event's first reads of the condition's data; a
	// condition over data the event did not read (extra fields) is
	// required from its begin.
	at, last, found := opAt{}, int64(0), false
	reads := r.reads[inv.Task]
	for _, l := range rc.Locs {
		a, ok := reads[l]
		if !ok {
			continue
		}
		if !found || a.pos < at.pos {
			at = a
		}
		last, found = max(last, a.pos), true
	}
	if !found {
		at = r.begins[inv.Task]
		at.src = traces.NoSym
		last = at.pos
	}
	i := r.reqList.add(reqRec{
		cond: id, holds: holds, first: at.pos, last: last, line: at.line, src: at.src,
		handler: inv.Handler, spec: rc.Cond, vals: rc.Vals,
	})
	r.reqs[inv.Task] = append(r.reqs[inv.Task], i)
}
