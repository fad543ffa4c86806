package detect

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/learn"
)

// Kind is the kind of a likely non-commutative pair of events (thesis
// §5.4), in order of severity.
type Kind uint8

const (
	// Violation: an event ran while a precondition it requires was false.
	Violation Kind = iota + 1
	// ReqKill: an event that requires a condition and one that kills it,
	// unordered.
	ReqKill
	// GenReq: an event that generates a condition and one that requires
	// it, unordered.
	GenReq
	// GenKill: an event that generates a condition and one that kills it,
	// unordered.
	GenKill
)

var kindNames = [...]string{Violation: "violation", ReqKill: "REQ-KILL", GenReq: "GEN-REQ", GenKill: "GEN-KILL"}

func (k Kind) String() string {
	if k >= Violation && k <= GenKill {
		return kindNames[k]
	}
	return "invalid"
}

// MarshalText spells the kind as in reports: "violation", "REQ-KILL",
// "GEN-REQ", "GEN-KILL".
func (k Kind) MarshalText() ([]byte, error) {
	if k < Violation || k > GenKill {
		return nil, fmt.Errorf("invalid kind %d", k)
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind as MarshalText spells it.
func (k *Kind) UnmarshalText(b []byte) error {
	for i := Violation; i <= GenKill; i++ {
		if kindNames[i] == string(b) {
			*k = i
			return nil
		}
	}
	return fmt.Errorf("unknown kind %q", b)
}

// Report is one group of findings: every pair of events, in every trace
// analysed, between the same two handlers on the same symbolic condition.
// docs/json.md documents its JSON form.
type Report struct {
	ID          int    `json:"id"`          // its rank, from 1
	Fingerprint string `json:"fingerprint"` // stable across runs: a hash of the handlers and the condition
	Kind        Kind   `json:"kind"`        // the most severe kind among its findings
	// Handlers are the two handlers, sorted (one for a violation that no
	// event explains, or when both events run the same handler).
	Handlers []string `json:"handlers"`
	// Condition is the example's learned condition. Conditions on
	// elements of one array ("a[0] != null", "a[1] != null") are one
	// report: Pattern is then the condition with the indices as [i]
	// ("a[i] != null") and Conditions the number of such conditions the
	// report covers.
	Condition  Condition   `json:"condition"`
	Pattern    string      `json:"pattern,omitempty"`
	Conditions int         `json:"conditions"`
	Findings   int         `json:"findings"` // pairs of events, over all traces
	Kinds      []KindCount `json:"kinds"`    // findings by kind, most severe first
	Traces     []string    `json:"traces"`   // the traces with a finding, in input order
	Example    Instance    `json:"example"`  // the first finding of the most severe kind
	HowToRead  string      `json:"how_to_read"`
	// Related are the lower-ranked reports on the same condition, folded
	// into this one: the same precondition, broken or made by third
	// handlers (one bug, one report). They are not reports of their own.
	Related []Related `json:"related,omitempty"`
}

// Related is a report folded into a higher-ranked one on the same
// condition.
type Related struct {
	Kind        Kind     `json:"kind"`
	Handlers    []string `json:"handlers"`
	Findings    int      `json:"findings"`
	Fingerprint string   `json:"fingerprint"`
}

// Pairs returns the handler pairs the report is about: its own, then
// those of the reports folded into it.
func (r *Report) Pairs() [][]string {
	out := [][]string{r.Handlers}
	for _, rel := range r.Related {
		out = append(out, rel.Handlers)
	}
	return out
}

// KindCount is how many findings of a report are of a kind.
type KindCount struct {
	Kind     Kind `json:"kind"`
	Findings int  `json:"findings"`
}

// Condition is a learned precondition, as the spec states it.
type Condition struct {
	Text       string   `json:"text"`    // "TrackDetailActivity.onUpdateResults: this.dataHub != null"
	Handler    string   `json:"handler"` // the handler that requires it
	Body       string   `json:"body"`    // "this.dataHub != null"
	Template   string   `json:"template"`
	Vars       []string `json:"vars"`
	Guard      string   `json:"guard,omitempty"` // an implication's guard: "guard ==> body's condition"
	Support    int64    `json:"support"`         // samples it was learned from
	Confidence float64  `json:"confidence"`      // 1 - the chance it held by accident
}

// Instance is one finding: a pair of events of one trace.
type Instance struct {
	Trace string `json:"trace"`
	Kind  Kind   `json:"kind"`
	// Concrete is the condition over the trace's locations:
	// "o1.dataHub != null".
	Concrete  string     `json:"concrete"`
	Locations []Location `json:"locations"`
	// Events are the two events, the earlier in the trace first (one for
	// a violation that no KILL explains).
	Events []Event `json:"events"`
	// Concurrent says why the two events are concurrent; nil if they are
	// ordered (a violation whose KILL happens before its REQ) or alone.
	Concurrent *Why `json:"why_concurrent,omitempty"`
	// Requires, Generates and Kills are the handlers of the trace's events
	// that require, generate and kill the concrete condition.
	Requires  []HandlerCount `json:"requires"`
	Generates []HandlerCount `json:"generates"`
	Kills     []HandlerCount `json:"kills"`
}

// Location is a concrete heap location: an object's field or a class's
// static field.
type Location struct {
	Object string `json:"obj,omitempty"`
	Class  string `json:"class,omitempty"`
	Field  string `json:"field"`
}

func (l Location) String() string {
	base := l.Object
	if l.Class != "" {
		base = l.Class
	}
	if strings.HasPrefix(l.Field, "[") {
		return base + l.Field
	}
	return base + "." + l.Field
}

// HandlerCount is a handler and how many events of a trace ran it in a
// role.
type HandlerCount struct {
	Handler string `json:"handler"`
	Events  int    `json:"events"`
}

// Event is one event of a finding and what it does to the condition.
type Event struct {
	Role  string `json:"role"` // "REQ", "GEN" or "KILL"
	Minor bool   `json:"minor,omitempty"`
	// MidEvent marks a KILL in the middle of its event: the event's own
	// writes made the condition false (Before: the values before the
	// event; After: those just after the write that made it false, At)
	// and true again before it ended.
	MidEvent bool   `json:"mid_event,omitempty"`
	ID       string `json:"id"`     // the event, or the thread for a write outside events
	Thread   string `json:"thread"` // the thread it ran on
	Handler  string `json:"handler"`
	Begin    Point  `json:"begin"`
	End      *Point `json:"end,omitempty"` // nil if it was still running when the trace ended
	// At is the op that places the touch: a REQ's first read of the
	// condition's data, a GEN's or KILL's last write to it.
	At Point `json:"at"`
	// Holds says, for a REQ, whether the condition held on the values it
	// read.
	Holds *bool `json:"holds,omitempty"`
	// Values are a REQ's values read; Before and After a GEN's or KILL's
	// values of the condition's data around it; each in the order of
	// Locations.
	Values []Value `json:"values,omitempty"`
	Before []Value `json:"before,omitempty"`
	After  []Value `json:"after,omitempty"`
}

// Value is a datum's value in a report: Text as the text report shows it
// (null, o17, 42, "text", ? if unknown) and JSON in the trace's spelling
// (null, {"ref":"o17"}, 42, "text"; {"unknown":true}), as every JSON
// output of licorice gives values.
type Value struct {
	Text string
	JSON json.RawMessage
}

// MarshalJSON writes the value's JSON form.
func (v Value) MarshalJSON() ([]byte, error) { return v.JSON, nil }

// String is the value's text.
func (v Value) String() string { return v.Text }

// Point is an op of the trace.
type Point struct {
	Line int      `json:"line"`
	TS   *float64 `json:"ts,omitempty"`  // its wall-clock time in ms, if the trace has it
	Src  string   `json:"src,omitempty"` // its source location, if the trace has it
}

// groupKey identifies a report.
type groupKey struct {
	handlers string // sorted, joined by " "
	cond     string // the symbolic condition's Pattern
}

var arrayIndex = regexp.MustCompile(`\[[0-9]+\]`)

// Pattern returns a condition's text with array indices as [i]: the
// elements of one array are one datum as far as reports go.
func Pattern(text string) string { return arrayIndex.ReplaceAllLiteralString(text, "[i]") }

// record is one finding as grouping needs it. example is its full form,
// built only for the first finding of its group and kind in its trace:
// the only ones that can be a report's example.
type record struct {
	key      groupKey
	handlers []string // distinct, sorted
	kind     Kind
	trace    string
	spec     *learn.Condition
	example  *Instance
}

// group merges the findings of all traces, in input order, into ranked
// reports.
func group(recs []record) []*Report {
	byKey := make(map[groupKey]*Report)
	keys := make(map[*Report]groupKey)
	specs := make(map[*Report][]*learn.Condition)
	var out []*Report
	for i := range recs {
		rc := &recs[i]
		r := byKey[rc.key]
		if r == nil {
			r = &Report{Handlers: rc.handlers, Condition: conditionOf(rc.spec), Kind: rc.kind, Example: *rc.example}
			sum := sha256.Sum256([]byte(rc.key.handlers + "\x00" + rc.key.cond))
			r.Fingerprint = hex.EncodeToString(sum[:8])
			byKey[rc.key] = r
			keys[r] = rc.key
			out = append(out, r)
		}
		if !slices.Contains(specs[r], rc.spec) {
			specs[r] = append(specs[r], rc.spec)
		}
		r.Findings++
		if rc.kind < r.Kind {
			r.Kind, r.Example, r.Condition = rc.kind, *rc.example, conditionOf(rc.spec)
		}
		j := slices.IndexFunc(r.Kinds, func(kc KindCount) bool { return kc.Kind == rc.kind })
		if j < 0 {
			r.Kinds = append(r.Kinds, KindCount{Kind: rc.kind})
			j = len(r.Kinds) - 1
		}
		r.Kinds[j].Findings++
		if len(r.Traces) == 0 || r.Traces[len(r.Traces)-1] != rc.trace {
			r.Traces = append(r.Traces, rc.trace)
		}
	}
	for _, r := range out {
		r.Conditions = len(specs[r])
		if p := Pattern(r.Condition.Text); p != r.Condition.Text {
			r.Pattern = p
		}
		slices.SortFunc(r.Kinds, func(a, b KindCount) int { return cmp.Compare(a.Kind, b.Kind) })
		r.HowToRead = howToRead(r)
	}
	rank(out)
	out = fold(out, keys)
	for i, r := range out {
		r.ID = i + 1
	}
	return out
}

// fold folds each report into the first (highest-ranked) report on the
// same condition, the same learned precondition of the same requiring
// handler: a GEN-REQ from a third handler on the condition a REQ-KILL
// breaks is the same bug seen from another side (ToDoList's onResume
// reopening what onPause closes).
func fold(rs []*Report, keys map[*Report]groupKey) []*Report {
	first := make(map[string]*Report)
	out := rs[:0]
	for _, r := range rs {
		cond := keys[r].cond
		if p := first[cond]; p != nil {
			p.Related = append(p.Related, Related{Kind: r.Kind, Handlers: r.Handlers, Findings: r.Findings, Fingerprint: r.Fingerprint})
			continue
		}
		first[cond] = r
		out = append(out, r)
	}
	return out
}

// rank orders reports: precondition violations first; then the others,
// those on a bound learned from the values seen (weak) after the rest;
// each by kind (REQ-KILL, GEN-REQ, GEN-KILL), then by the condition's
// support (a condition learned from more samples is more likely a real
// precondition), then by the number of findings, then by handlers and
// condition; and numbers them.
func rank(rs []*Report) {
	tier := func(r *Report) int {
		switch {
		case r.Kind == Violation:
			return 0
		case weak(r.Condition.Template):
			return 2
		}
		return 1
	}
	slices.SortStableFunc(rs, func(a, b *Report) int {
		return cmp.Or(
			cmp.Compare(tier(a), tier(b)),
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(b.Condition.Support, a.Condition.Support),
			cmp.Compare(b.Findings, a.Findings),
			strings.Compare(strings.Join(a.Handlers, " "), strings.Join(b.Handlers, " ")),
			strings.Compare(a.Condition.Text, b.Condition.Text),
		)
	})
	for i, r := range rs {
		r.ID = i + 1
	}
}

// weak reports whether a template states only a bound learned from the
// values seen (lo <= x <= hi, x >= lo, x <= hi): the weakest conditions,
// which say how far training went more often than what a handler relies
// on (Firefox's zoom, MyTracks' points >= 1; docs/detection.md).
func weak(template string) bool {
	switch template {
	case "range", "lower", "upper":
		return true
	}
	return false
}

func conditionOf(c *learn.Condition) Condition {
	return Condition{
		Text: c.Text(), Handler: c.Handler, Body: c.Body(), Template: c.Template,
		Vars: c.Vars, Guard: c.Guard, Support: c.Support, Confidence: c.Confidence,
	}
}

// short drops a handler's class: "onPause" for
// "TrackDetailActivity.onPause".
func short(handler string) string {
	if i := strings.LastIndexByte(handler, '.'); i >= 0 && i < len(handler)-1 {
		return handler[i+1:]
	}
	return handler
}

// howToRead says in a few sentences what a report means and what to do.
func howToRead(r *Report) string {
	ex := &r.Example
	body := r.Condition.Body
	name := func(e Event) string {
		if e.Handler == "" {
			return e.ID
		}
		return fmt.Sprintf("%s (%s)", short(e.Handler), e.ID)
	}
	switch ex.Kind {
	case Violation:
		rq := ex.Events[len(ex.Events)-1]
		s := fmt.Sprintf("%s ran while %s was false, although %s relied on it in every training run. "+
			"Either this run hit the bug the condition guards against, or it is not a real precondition "+
			`(then mark it "disabled": true in the spec).`, name(rq), body, short(r.Condition.Handler))
		if len(ex.Events) == 2 {
			k := ex.Events[0]
			if ex.Concurrent != nil {
				s += fmt.Sprintf(" %s made it false, and nothing orders the two events.", name(k))
			} else {
				s += fmt.Sprintf(" %s made it false before.", name(k))
			}
		}
		return s
	case ReqKill:
		rq, k := ex.Events[0], ex.Events[1]
		if k.MidEvent {
			return fmt.Sprintf("%s relies on %s, and %s makes it false between two of its writes and true again by its end. "+
				"The two run on different threads (%s, %s) and nothing orders them, so %s may run in the middle of %s "+
				"and find %s false: an atomicity violation. Make %s's writes atomic with respect to %s "+
				"(hold one lock in both, or post the update to thread %s), or make %s cope with it.",
				short(rq.Handler), body, short(k.Handler), rq.Thread, k.Thread, name(rq), name(k),
				body, short(k.Handler), short(rq.Handler), rq.Thread, short(rq.Handler))
		}
		return fmt.Sprintf("%s relies on %s and %s makes it false. Here %s ran first, but nothing orders the two "+
			"events: had %s run first, %s would have run with %s false. Order them, or make %s cope with it.",
			short(rq.Handler), body, short(k.Handler), name(rq), name(k), short(rq.Handler), body, short(rq.Handler))
	case GenReq:
		g, rq := ex.Events[0], ex.Events[1]
		return fmt.Sprintf("%s relies on %s, which %s made true. Here %s ran first, but nothing orders the two "+
			"events: had %s run first, it would have found %s false. Order them, or make %s cope with it.",
			short(rq.Handler), body, short(g.Handler), name(g), name(rq), body, short(rq.Handler))
	case GenKill:
		a, b := ex.Events[0], ex.Events[1]
		g, k := a, b
		if a.Role == "KILL" {
			g, k = b, a
		}
		return fmt.Sprintf("%s makes %s true and %s makes it false, and nothing orders them: whichever runs last "+
			"decides whether %s finds it true when it runs next. Here %s ran first.",
			short(g.Handler), body, short(k.Handler), short(r.Condition.Handler), name(a))
	}
	return ""
}
