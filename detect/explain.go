package detect

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// Why says why two events are concurrent: no chain of happens-before
// rules (docs/causality.md) leads from the end of either to the begin of
// the other. To show what ordering is missing it traces how each event
// came to be — who sent it, who sent that, back to the outside world or
// to a task both descend from.
type Why struct {
	Text string `json:"text"`
	// Chains are, for each of the two events, the event and its origins:
	// the task that sent it, the one that sent or forked that, ...
	Chains [2][]Link `json:"chains"`
	// Common is the nearest task both events descend from, if any: the
	// last link of both chains.
	Common string `json:"common,omitempty"`
	// Missing says, from the happens-before explanation (races.Explain,
	// what `licorice hb` prints), how each event was sent and which rule
	// would have ordered them, and why it does not. Only for a report's
	// example, with Options.Explain.
	Missing []string `json:"missing,omitempty"`
	// After are the earliest events the first event happens before, Before
	// the latest events that happen before the second: a chain ordering
	// the two would need one of After to come before one of Before (from
	// the same explanation).
	After  []string `json:"after_first,omitempty"`
	Before []string `json:"before_second,omitempty"`
}

// Link is one task in an event's origins.
type Link struct {
	Task   string `json:"task"`             // an event or thread id
	Thread string `json:"thread,omitempty"` // an event's thread
	// Handler is, for the first link, the first handler the event called;
	// for the others, the handler the task was in when it sent (or
	// forked) the link before.
	Handler string `json:"handler,omitempty"`
	// Via is how the task came to be: "posted", "posted with a delay of
	// 500 ms", "posted for time 1200 ms", "posted at the front of the
	// queue", "sent from outside the app", "forked", or "" (a thread
	// whose start the trace does not show).
	Via  string `json:"via"`
	Line int    `json:"line,omitempty"` // the send or fork
	Src  string `json:"src,omitempty"`
}

// maxOrigins bounds the chains of an explanation.
const maxOrigins = 8

// origins returns the chain of task: itself, who sent or forked it, ...
// The records of the events it names are in t.origin (wantOrigins,
// readOrigins).
func (t *tracker) origins(task traces.Sym) []Link {
	var out []Link
	seen := map[traces.Sym]bool{}
	handler := traces.NoSym // the handler of task that made the previous link
	if ev := t.origin[task]; ev != nil {
		handler = ev.handler
	}
	for len(out) < maxOrigins && task != traces.NoSym && !seen[task] {
		seen[task] = true
		l := Link{Task: t.syms.String(task), Handler: t.syms.String(handler)}
		var by opBy
		if ev := t.origin[task]; ev != nil {
			by = ev.send
			l.Thread, l.Via = t.syms.String(ev.thread), via(ev)
		} else if f, ok := t.forks[task]; ok {
			by = f
			l.Via = "forked"
		}
		l.Line, l.Src = by.line, t.syms.String(by.src)
		out = append(out, l)
		task, handler = by.task, by.handler
	}
	return out
}

func via(ev *originRec) string {
	switch {
	case ev.external:
		return "sent from outside the app"
	case ev.kind == traces.AtFront:
		return "posted at the front of the queue"
	case ev.kind == traces.AtTime:
		return "posted for time " + strconv.FormatInt(ev.time, 10) + " ms"
	case ev.time > 0:
		return "posted with a delay of " + strconv.FormatInt(ev.time, 10) + " ms"
	}
	return "posted"
}

// why explains why units a and b, concurrent, are.
func (t *tracker) why(a, b *unit) *Why {
	w := &Why{Chains: [2][]Link{t.origins(a.task), t.origins(b.task)}}
	// Cut both chains at the nearest task they share.
	for i, l := range w.Chains[0] {
		if j := slices.IndexFunc(w.Chains[1], func(m Link) bool { return m.Task == l.Task }); j >= 0 {
			w.Common = l.Task
			w.Chains[0], w.Chains[1] = w.Chains[0][:i+1], w.Chains[1][:j+1]
			break
		}
	}
	x, y := w.Chains[0][0].Task, w.Chains[1][0].Task
	var s strings.Builder
	fmt.Fprintf(&s, "Nothing orders %s and %s: neither one's end happens before the other's begin.", x, y)
	for _, ch := range w.Chains {
		if len(ch) > 1 {
			s.WriteByte(' ')
			s.WriteString(describeChain(ch, w.Common))
		}
	}
	switch w.Common {
	case "":
	case x, y:
		// One event is an origin of the other: it sent (or started the
		// sender of) the other, but may still run when the other begins.
		anc, desc := x, y
		if w.Common == y {
			anc, desc = y, x
		}
		fmt.Fprintf(&s, " %s began after %s sent it on its way, but not after %s ended.", desc, anc, anc)
	default:
		fmt.Fprintf(&s, " Both descend from %s, but no rule orders the two branches.", w.Common)
	}
	w.Text = s.String()
	return w
}

// describeChain tells an event's origins in a sentence: "E57 was posted
// by E56 (TrackDataHub.loadTrack on TrackDataHub), which was sent from
// outside the app."
// The chain ends at the common origin (how that came to be is not part of
// the difference), at a thread that was not forked, or outside the app.
func describeChain(ch []Link, common string) string {
	var s strings.Builder
	for i, l := range ch {
		if i == 0 {
			s.WriteString(l.Task)
		} else {
			s.WriteString(mention(l))
		}
		if l.Via == "" || i > 0 && l.Task == common {
			break
		}
		if i == 0 {
			s.WriteString(" was ")
		} else {
			s.WriteString(", which was ")
		}
		s.WriteString(l.Via)
		if i+1 < len(ch) {
			s.WriteString(" by ")
		}
	}
	s.WriteByte('.')
	return s.String()
}

// mention names a task with its handler and thread: "E56
// (TrackDataHub.loadTrack on TrackDataHub)", "thread Relay". (Every event
// in a chain ran: it sent the next one, or it is the one explained.)
func mention(l Link) string {
	switch {
	case l.Thread == "" && l.Handler != "":
		return fmt.Sprintf("thread %s (in %s)", l.Task, l.Handler)
	case l.Thread == "":
		return "thread " + l.Task
	case l.Handler != "":
		return fmt.Sprintf("%s (%s on %s)", l.Task, l.Handler, l.Thread)
	}
	return fmt.Sprintf("%s (on %s)", l.Task, l.Thread)
}

// instance turns a finding into its report form.
func (t *tracker) instance(f finding, cat *invariants.Catalog, path string, roles map[int32]*roleCounts) Instance {
	c := t.conds.list[f.cond]
	in := Instance{Trace: path, Kind: f.kind}
	for _, l := range c.locs {
		loc := Location{Field: t.syms.String(l.Field)}
		if l.Static {
			loc.Class = t.syms.String(l.Obj)
		} else {
			loc.Object = t.syms.String(l.Obj)
		}
		in.Locations = append(in.Locations, loc)
	}
	in.Concrete = concreteText(c.eval, in.Locations, cat)
	var pair []*touch
	for _, tc := range []*touch{f.a, f.b} {
		if tc != nil {
			pair = append(pair, tc)
			in.Events = append(in.Events, t.event(tc, tc.u))
		}
	}
	if len(pair) == 2 && !before(pair[0], pair[1]) && !before(pair[1], pair[0]) {
		in.Concurrent = t.why(pair[0].u, pair[1].u)
	}
	rc := roles[f.cond]
	if rc == nil {
		rc = t.chk.streams[f.cond].roleCounts(t.syms)
		roles[f.cond] = rc
	}
	in.Requires, in.Generates, in.Kills = rc.req, rc.gen, rc.kill
	return in
}

// specOf returns the symbolic condition of a finding of stream s: the
// REQ's own, or for a GEN-KILL pair that of the condition's first REQ.
func specOf(f finding, s *stream) *learn.Condition {
	switch f.kind {
	case ReqKill:
		return f.a.spec
	case Violation, GenReq:
		return f.b.spec
	}
	return s.firstSpec // a condition exists only because some event requires it
}

// event describes touch tc of unit u.
func (t *tracker) event(tc *touch, u *unit) Event {
	e := Event{Role: tc.role.String(), Minor: tc.minor, MidEvent: tc.role == midKill, ID: t.syms.String(u.task), Thread: t.syms.String(u.thread),
		Handler: t.syms.String(tc.handler),
		Begin:   t.point(u.beginLine, u.beginTS, u.hasTS, traces.NoSym),
		At:      t.point(tc.line, 0, false, tc.src)}
	if u.endLine > 0 {
		end := t.point(u.endLine, u.endTS, u.hasTS, traces.NoSym)
		e.End = &end
	}
	if tc.role == req {
		holds := tc.holds
		e.Holds = &holds
		e.Values = t.values(tc.vals)
	} else {
		n := len(tc.vals) / 2
		e.Before, e.After = t.values(tc.vals[:n]), t.values(tc.vals[n:])
	}
	return e
}

func (t *tracker) point(line int, ts float64, hasTS bool, src traces.Sym) Point {
	p := Point{Line: line, Src: t.syms.String(src)}
	if hasTS {
		p.TS = &ts
	}
	return p
}

func (t *tracker) values(vs []traces.Value) []Value {
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = Value{Text: formatValue(v, t.syms), JSON: json.RawMessage(`{"unknown":true}`)}
		if !v.IsAbsent() {
			out[i].JSON = traces.AppendValueJSON(nil, v, t.syms)
		}
	}
	return out
}

// formatValue writes a trace value as a report shows it: null, o17 (a
// reference: the object's id), 42, 1.5, true, "text", or ? if unknown.
func formatValue(v traces.Value, syms *traces.Symbols) string {
	switch v.Kind() {
	case traces.NullValue:
		return "null"
	case traces.RefValue:
		return syms.String(v.Sym())
	case traces.IntValue:
		return strconv.FormatInt(v.Int(), 10)
	case traces.FloatValue:
		return invariants.FloatValue(v.Float()).String()
	case traces.BoolValue:
		return strconv.FormatBool(v.Bool())
	case traces.StringValue:
		return strconv.Quote(syms.String(v.Sym()))
	}
	return "?"
}

// concreteText writes spec condition c over concrete locations:
// "o1.dataHub != null".
func concreteText(c *learn.Condition, locs []Location, cat *invariants.Catalog) string {
	t, ok := cat.Lookup(c.Template)
	if !ok {
		return c.Body()
	}
	vars := make([]string, len(locs))
	for i, l := range locs {
		vars[i] = l.String()
	}
	ic := invariants.Condition{Template: t, Vars: vars, A: c.A, B: c.B, Set: c.Set, Pairs: c.Pairs}
	return ic.Text()
}

// roleCounts are the handlers of a condition's REQ, GEN and KILL events.
type roleCounts struct{ req, gen, kill []HandlerCount }
