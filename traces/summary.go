package traces

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Summary is what `licorice traces stat` tells about a trace: counts of
// what it holds, in memory that does not grow with the trace.
type Summary struct {
	File     string `json:"trace"` // the file name, as every JSON output names a trace
	Format   string `json:"format"`
	Platform string `json:"platform,omitempty"`
	App      string `json:"app,omitempty"`
	Run      string `json:"run,omitempty"`
	Shuffled bool   `json:"shuffled"`
	Seed     *int64 `json:"seed,omitempty"`

	Ops       int64            `json:"ops"`
	OpsByKind map[string]int64 `json:"ops_by_kind"` // every kind, 0 included
	Threads   map[string]int64 `json:"threads"`     // threads begun, by kind
	Queues    int              `json:"queues"`      // queues attached
	Events    EventCounts      `json:"events"`
	// Handlers maps each handler to the number of its calls.
	Handlers map[string]int64 `json:"handlers"`
	Objects  int64            `json:"objects"` // objects allocated
	Classes  int              `json:"classes"` // classes whose static fields are accessed
	Fields   int              `json:"fields"`  // distinct field names accessed
	Time     *TimeSpan        `json:"time,omitempty"`
	// Capped lists the counts above that stopped growing at
	// SummaryLimit distinct names: they are lower bounds.
	Capped []string `json:"capped,omitempty"`
}

// EventCounts counts a trace's events by what became of them.
type EventCounts struct {
	Sent     int64 `json:"sent"`
	External int64 `json:"external"` // sent from outside the program
	Run      int64 `json:"run"`
	Removed  int64 `json:"removed"`
	Pending  int64 `json:"pending"` // sent, neither run nor removed
}

// TimeSpan is the range of the trace's wall-clock times (ts, in ms).
type TimeSpan struct {
	First    float64 `json:"first_ms"`
	Last     float64 `json:"last_ms"`
	Duration float64 `json:"duration_ms"` // the largest ts minus the smallest
	Ops      int64   `json:"ops"`         // ops that have a ts
}

// SummaryLimit is the most distinct names (handlers, queues, classes,
// fields) a Summary keeps per kind, so that its memory stays bounded.
const SummaryLimit = 1 << 16

// symsResetAt is the table size at which Summarize forgets all strings.
const symsResetAt = 1 << 16

// nameCounts counts ops per distinct name, up to SummaryLimit names. It
// caches the Sym of each name, so that an op costs no string hashing.
type nameCounts struct {
	counts map[string]*int64
	bySym  map[Sym]*int64 // valid until the table is reset
	capped bool
}

func newNameCounts() *nameCounts {
	return &nameCounts{counts: make(map[string]*int64), bySym: make(map[Sym]*int64)}
}

func (c *nameCounts) add(y Sym, syms *Symbols) {
	p := c.bySym[y]
	if p == nil {
		s := syms.String(y)
		p = c.counts[s]
		if p == nil {
			if len(c.counts) >= SummaryLimit {
				c.capped = true
				return
			}
			p = new(int64)
			c.counts[s] = p
		}
		c.bySym[y] = p
	}
	*p++
}

func (c *nameCounts) values() map[string]int64 {
	m := make(map[string]int64, len(c.counts))
	for k, v := range c.counts {
		m[k] = *v
	}
	return m
}

// Summarize reads r to its end and counts what the trace holds. To keep
// its memory flat it resets r's Symbols as it goes, so r must not share
// its table with anything else; open r [WithoutValidation] too, since a
// validator remembers every thread and event. It stops at the first
// error.
func Summarize(ctx context.Context, r *Reader) (*Summary, error) {
	h := r.Header()
	s := &Summary{
		File: r.Name(), Format: r.Format().String(),
		Platform: h.Platform, App: h.App, Run: h.Run, Shuffled: h.Shuffled,
		OpsByKind: make(map[string]int64, NumKinds), Threads: make(map[string]int64),
	}
	if h.HasSeed {
		seed := h.Seed
		s.Seed = &seed
	}
	var byKind [NumKinds]int64
	var threads [3]int64
	handlers, queues, classes, fields := newNameCounts(), newNameCounts(), newNameCounts(), newNameCounts()
	all := []*nameCounts{handlers, queues, classes, fields}
	syms := r.Symbols()
	ts := TimeSpan{}
	minTS, maxTS := math.Inf(1), math.Inf(-1)
	access := func(loc Location) {
		if loc.Static {
			classes.add(loc.Obj, syms)
		}
		fields.add(loc.Field, syms)
	}
	var op Op
	for i := 0; ; i++ {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if syms.Len() > symsResetAt {
			syms.Reset()
			for _, c := range all {
				clear(c.bySym)
			}
		}
		if err := r.Next(&op); err != nil {
			if err == io.EOF {
				break
			}
			return nil, err
		}
		byKind[op.Kind]++
		switch op.Kind {
		case ThreadBegin:
			threads[op.ThreadKind]++
		case Attach:
			queues.add(op.Queue, syms)
		case Send:
			if op.External {
				s.Events.External++
			}
		case Call:
			handlers.add(op.Name, syms)
		case Read, Write, Branch:
			access(op.Loc)
		case Relate:
			access(op.Loc)
			access(op.Loc2)
		}
		if op.HasTS {
			if ts.Ops == 0 {
				ts.First = op.TS
			}
			ts.Last = op.TS
			ts.Ops++
			minTS, maxTS = min(minTS, op.TS), max(maxTS, op.TS)
		}
	}
	for k := Kind(1); k < numKinds; k++ {
		s.OpsByKind[k.String()] = byKind[k]
		s.Ops += byKind[k]
	}
	for k, n := range threads {
		s.Threads[ThreadKind(k).String()] = n
	}
	s.Events.Sent, s.Events.Run, s.Events.Removed = byKind[Send], byKind[Begin], byKind[Remove]
	s.Events.Pending = max(0, s.Events.Sent-s.Events.Run-s.Events.Removed)
	s.Handlers = handlers.values()
	s.Queues, s.Classes, s.Fields = len(queues.counts), len(classes.counts), len(fields.counts)
	s.Objects = byKind[Alloc]
	if ts.Ops > 0 {
		// Any JSON number is a ts: a difference past the largest float is
		// capped there, as JSON has no infinity.
		ts.Duration = min(maxTS-minTS, math.MaxFloat64)
		s.Time = &ts
	}
	for i, name := range []string{"handlers", "queues", "classes", "fields"} {
		if all[i].capped {
			s.Capped = append(s.Capped, name)
		}
	}
	return s, nil
}

// summaryTopHandlers is how many handlers the text form lists.
const summaryTopHandlers = 10

// WriteText writes the summary for people: one fact per line, zero counts
// left out.
func (s *Summary) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "%-10s %s\n", label, fmt.Sprintf(format, args...))
	}
	capped := func(name string) string {
		if slices.Contains(s.Capped, name) {
			return " or more"
		}
		return ""
	}
	line("file", "%s", s.File)
	line("format", "%s", s.Format)
	var hdr []string
	for _, kv := range [...][2]string{{"platform", s.Platform}, {"app", s.App}, {"run", s.Run}} {
		if kv[1] != "" {
			hdr = append(hdr, kv[0]+"="+kv[1])
		}
	}
	if s.Shuffled {
		hdr = append(hdr, "shuffled")
	}
	if s.Seed != nil {
		hdr = append(hdr, fmt.Sprintf("seed=%d", *s.Seed))
	}
	if len(hdr) > 0 {
		line("header", "%s", strings.Join(hdr, " "))
	}
	line("ops", "%d", s.Ops)
	for k := Kind(1); k < numKinds; k++ {
		if n := s.OpsByKind[k.String()]; n > 0 {
			fmt.Fprintf(&b, "  %-14s %d\n", k, n)
		}
	}
	var th []string
	var nth int64
	for _, k := range []ThreadKind{Looper, Binder, Worker} {
		if n := s.Threads[k.String()]; n > 0 {
			th = append(th, fmt.Sprintf("%s %d", k, n))
			nth += n
		}
	}
	if nth > 0 {
		line("threads", "%d (%s)", nth, strings.Join(th, ", "))
	} else {
		line("threads", "0")
	}
	line("queues", "%d%s", s.Queues, capped("queues"))
	e := s.Events
	line("events", "%d sent (%d external), %d run, %d removed, %d pending", e.Sent, e.External, e.Run, e.Removed, e.Pending)
	line("handlers", "%d%s", len(s.Handlers), capped("handlers"))
	type hc struct {
		name  string
		calls int64
	}
	var top []hc
	for name, n := range s.Handlers {
		top = append(top, hc{name, n})
	}
	slices.SortFunc(top, func(a, b hc) int {
		return cmp.Or(cmp.Compare(b.calls, a.calls), strings.Compare(a.name, b.name))
	})
	for i, h := range top {
		if i == summaryTopHandlers {
			fmt.Fprintf(&b, "  ... and %d more\n", len(top)-i)
			break
		}
		fmt.Fprintf(&b, "  %-40s %d call%s\n", h.name, h.calls, plural(h.calls))
	}
	line("objects", "%d allocated", s.Objects)
	line("classes", "%d%s", s.Classes, capped("classes"))
	line("fields", "%d%s", s.Fields, capped("fields"))
	if t := s.Time; t != nil {
		line("time", "%s ms (ts from %s to %s, on %d of %d ops)", fmtMS(t.Duration), fmtMS(t.First), fmtMS(t.Last), t.Ops, s.Ops)
	} else {
		line("time", "unknown (no op has a ts)")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func fmtMS(f float64) string { return string(appendNumber(nil, f)) }

// StatVersion is the version of the JSON form of summaries
// ("licorice_stat", [WriteSummariesJSON]).
const StatVersion = 1

// WriteSummariesJSON writes summaries as `licorice traces stat --format
// json` prints them: {"licorice_stat":1,"traces":[...]}, indented.
func WriteSummariesJSON(w io.Writer, summaries []*Summary) error {
	doc := struct {
		Version int        `json:"licorice_stat"`
		Traces  []*Summary `json:"traces"`
	}{StatVersion, summaries}
	if doc.Traces == nil {
		doc.Traces = []*Summary{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
