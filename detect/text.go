package detect

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// TextOptions configure [WriteText].
type TextOptions struct {
	// Color highlights kinds and handlers with ANSI escapes (for a
	// terminal).
	Color bool
	// Width is the column long lines are wrapped at (default 100).
	Width int
	// Full is how many reports are printed in full; the others get one
	// line each. 0 prints every report in full.
	Full int
}

// WriteText writes res for people: a summary, then each report with its
// example pair, why the two events are concurrent, who requires,
// generates and kills the condition, and how to read it.
func WriteText(w io.Writer, res *Result, opts TextOptions) error {
	if opts.Width <= 0 {
		opts.Width = 100
	}
	p := &printer{w: bufio.NewWriter(w), opts: opts}
	p.summary(res)
	for i, r := range res.Reports {
		if opts.Full > 0 && i >= opts.Full {
			if i == opts.Full {
				p.line("")
				p.line("%s, in short:", plural(len(res.Reports)-opts.Full, "more report"))
			}
			p.brief(r)
			continue
		}
		p.line("")
		p.report(r)
	}
	p.suppressed(res)
	return p.w.Flush()
}

type printer struct {
	w    *bufio.Writer
	opts TextOptions
}

const (
	ansiReset  = "\033[0m"
	ansiBold   = "\033[1m"
	ansiDim    = "\033[2m"
	ansiRed    = "\033[31m"
	ansiYellow = "\033[33m"
)

func (p *printer) color(code, s string) string {
	if !p.opts.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p *printer) line(format string, args ...any) {
	fmt.Fprintf(p.w, format, args...)
	p.w.WriteByte('\n')
}

// para writes text after a label, wrapped, continuation lines indented
// to the text's column.
func (p *printer) para(indent, label, text string) {
	lead := indent + label
	pad := strings.Repeat(" ", len(indent)+len(label))
	p.w.WriteString(p.color(ansiDim, lead))
	col := len(lead)
	first := true
	for _, word := range strings.Fields(text) {
		if !first && col+1+len(word) > p.opts.Width {
			p.w.WriteString("\n" + pad)
			col = len(pad)
			first = true
		}
		if !first {
			p.w.WriteByte(' ')
			col++
		}
		p.w.WriteString(word)
		col += len(word)
		first = false
	}
	p.w.WriteByte('\n')
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func (p *printer) summary(res *Result) {
	var t TraceStats
	findings := 0
	for _, s := range res.Traces {
		t.Ops += s.Ops
		t.Events += s.Events
		t.Conditions += s.Conditions
		t.Reqs += s.Reqs
		t.Gens += s.Gens
		t.Kills += s.Kills
		t.MinorGens += s.MinorGens
		t.MinorKills += s.MinorKills
		t.MidKills += s.MidKills
		t.ReadReq += s.ReadReq
		t.Relative += s.Relative
		t.ReadGen += s.ReadGen
		t.Falsified += s.Falsified
		findings += s.Findings
	}
	what := plural(len(res.Traces), "trace")
	if len(res.Traces) == 1 {
		what = filepath.Base(res.Traces[0].File)
	}
	p.line("licorice detect: %s (%s) in %s: %s ops, %s",
		plural(len(res.Reports), "report"), plural(findings, "finding"), what, strconv.FormatInt(t.Ops, 10), plural(t.Events, "event"))
	mid := ""
	if t.MidKills > 0 {
		mid = fmt.Sprintf(", %d mid-event KILL", t.MidKills)
	}
	p.line("%s realized: %d REQ, %d GEN (%d minor), %d KILL (%d minor)%s",
		plural(t.Conditions, "condition"), t.Reqs, t.Gens, t.MinorGens, t.Kills, t.MinorKills, mid)
	if t.Relative > 0 {
		p.line("%d GEN or KILL updated the data in place (count++), judged by the change", t.Relative)
	}
	if t.ReadReq > 0 {
		p.line("%s left out: the KILL read what the REQ wrote", plural(t.ReadReq, "REQ-KILL pair"))
	}
	if t.Falsified > 0 {
		p.line("%s in correct runs left out: the spec is too strong there (learn with these runs)", plural(t.Falsified, "precondition violation"))
	}
	if t.ReadGen > 0 {
		p.line("%s left out: the REQ read other data the GEN wrote", plural(t.ReadGen, "GEN-REQ pair"))
	}
	for _, s := range res.Traces {
		if s.Crash != "" {
			p.line("note: %s is not a correct execution (line %d: %s)", s.File, s.CrashLine, s.Crash)
		}
	}
	for _, w := range res.Warnings {
		p.line("warning: %s", w)
	}
}

func (p *printer) kind(k Kind) string {
	code := ansiYellow
	if k <= ReqKill {
		code = ansiRed
	}
	return p.color(ansiBold+code, k.String())
}

func (p *printer) report(r *Report) {
	hs := make([]string, len(r.Handlers))
	for i, h := range r.Handlers {
		hs[i] = p.color(ansiBold, h)
	}
	kind := p.kind(r.Kind)
	if r.Kind == Violation {
		kind = p.color(ansiBold+ansiRed, "precondition violation")
	}
	p.line("#%d %s  %s", r.ID, kind, strings.Join(hs, " × "))
	const in = "   "
	ex := &r.Example
	p.para(in, "condition  ", r.Condition.Text)
	if r.Pattern != "" {
		p.para(in, "           ", fmt.Sprintf("(for %s: %s)", plural(r.Conditions, "element condition"), r.Pattern))
	}
	p.para(in, "           ", fmt.Sprintf("learned from %s, confidence %s", plural(int(r.Condition.Support), "sample"),
		strconv.FormatFloat(r.Condition.Confidence, 'g', 4, 64)))
	p.para(in, "concrete   ", ex.Concrete+"   in "+filepath.Base(ex.Trace))
	for _, e := range ex.Events {
		p.event(in, e, ex.Locations)
	}
	if w := ex.Concurrent; w != nil {
		p.para(in, "why        ", w.Text)
		if len(w.Missing) > 0 {
			p.para(in, "missing    ", strings.Join(w.Missing, ". ")+".")
		}
	} else if len(ex.Events) == 2 {
		p.para(in, "order      ", fmt.Sprintf("%s happens before %s.", ex.Events[0].ID, ex.Events[1].ID))
	}
	p.para(in, "who        ", fmt.Sprintf("requires: %s; generates: %s; kills: %s",
		handlerCounts(ex.Requires), handlerCounts(ex.Generates), handlerCounts(ex.Kills)))
	var kinds []string
	for _, kc := range r.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", kc.Kind, kc.Findings))
	}
	p.para(in, "seen       ", fmt.Sprintf("%s (%s) in %s", plural(r.Findings, "finding"), strings.Join(kinds, ", "), plural(len(r.Traces), "trace")))
	for i, rel := range r.Related {
		label := "           "
		if i == 0 {
			label = "also       "
		}
		p.para(in, label, related(rel))
	}
	p.para(in, "how        ", r.HowToRead)
}

// related says what a folded report was: its pair and findings, on the
// same condition.
func related(rel Related) string {
	return fmt.Sprintf("%s %s on the same condition (%s)", rel.Kind, strings.Join(rel.Handlers, " × "), plural(rel.Findings, "finding"))
}

// brief writes a report on one line.
func (p *printer) brief(r *Report) {
	also := ""
	if n := len(r.Related); n > 0 {
		also = fmt.Sprintf("; %s folded in", plural(n, "other pair"))
	}
	p.line("#%d %s  %s on %s (%s%s)", r.ID, p.kind(r.Kind), strings.Join(r.Handlers, " × "), r.Condition.Text, plural(r.Findings, "finding"), also)
}

// event writes one event of an example: what it is, what it did to the
// condition, where.
func (p *printer) event(in string, e Event, locs []Location) {
	role := e.Role
	switch {
	case e.Minor:
		role = "minor " + role
	case e.MidEvent:
		role = "mid " + role
	}
	when := ""
	if e.Begin.TS != nil {
		when = fmt.Sprintf(", at %s ms", strconv.FormatFloat(*e.Begin.TS, 'f', 1, 64))
	}
	head := fmt.Sprintf("%s %s on %s, lines %s%s", e.ID, p.color(ansiBold, e.Handler), e.Thread, span(e), when)
	if e.Handler == "" {
		head = fmt.Sprintf("%s on %s, lines %s%s", e.ID, e.Thread, span(e), when)
	}
	p.para(in, fmt.Sprintf("%-11s", role), head)
	var did string
	if e.Role == "REQ" {
		var parts []string
		for i, l := range locs {
			parts = append(parts, l.String()+" = "+e.Values[i].Text)
		}
		verdict := "holds"
		if e.Holds != nil && !*e.Holds {
			verdict = "false"
		}
		did = "read " + strings.Join(parts, ", ") + ": " + verdict
	} else {
		var parts []string
		for i, l := range locs {
			if e.Before[i].Text == e.After[i].Text {
				parts = append(parts, l.String()+" = "+e.After[i].Text)
			} else {
				parts = append(parts, l.String()+": "+e.Before[i].Text+" → "+e.After[i].Text)
			}
		}
		did = strings.Join(parts, ", ")
		if e.MidEvent {
			did += " (mid-event: true again by its end)"
		}
	}
	at := fmt.Sprintf("line %d", e.At.Line)
	if e.At.Src != "" {
		at = e.At.Src + " (" + at + ")"
	}
	p.para(in, "           ", did+"   at "+at)
}

// span gives the lines an event ran between.
func span(e Event) string {
	if e.End == nil {
		return strconv.Itoa(e.Begin.Line) + "–end (still running)"
	}
	if e.End.Line == e.Begin.Line {
		return strconv.Itoa(e.Begin.Line)
	}
	return strconv.Itoa(e.Begin.Line) + "–" + strconv.Itoa(e.End.Line)
}

func handlerCounts(hc []HandlerCount) string {
	if len(hc) == 0 {
		return "none"
	}
	var parts []string
	for _, h := range hc {
		name := h.Handler
		if name == "" {
			name = "outside handlers"
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", name, h.Events))
	}
	return strings.Join(parts, ", ")
}

func (p *printer) suppressed(res *Result) {
	if res.Disabled == 0 && res.Allowed == nil {
		return
	}
	p.line("")
	if res.Disabled > 0 {
		p.line("not checked: %s disabled in the spec", plural(res.Disabled, "condition"))
	}
	if res.Allowed != nil {
		p.line("allowed: %s (%s) suppressed by the allow-list", plural(res.AllowedFindings, "finding"), plural(res.AllowedReports, "report"))
		for _, u := range res.Allowed {
			p.line("  line %d: %-50s %s, %s", u.Line, u.Rule, plural(u.Findings, "finding"), plural(u.Reports, "report"))
		}
	}
}
