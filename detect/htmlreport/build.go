package htmlreport

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/detect/timeline"
	"github.com/licorice-dev/licorice/traces"
)

// MaxTimelines bounds the timelines of a page, which weigh about 5 KB
// each: the first groups get one, the others say why not.
const MaxTimelines = 200

// Detect builds the page of a detect result. files are the trace files
// the result's traces were read from, in the same order; a trace read
// from standard input cannot be read again, and its reports have no
// timeline.
func Detect(ctx context.Context, res *detect.Result, files []string) (*Page, error) {
	p := &Page{Title: "licorice detect", Subject: "condition", Count: "findings", Notes: res.Warnings}
	findings := 0
	for _, t := range res.Traces {
		findings += t.Findings
	}
	p.Summary = append(p.Summary, fmt.Sprintf("%s (%s) in %s.",
		plural(len(res.Reports), "report"), plural(findings, "finding"), plural(len(res.Traces), "trace")))
	if res.AllowedReports > 0 {
		p.Summary = append(p.Summary, fmt.Sprintf("The allow-list suppressed %s.", plural(res.AllowedReports, "report")))
	}
	tl := newTimelines()
	for i, t := range res.Traces {
		if i < len(files) {
			tl.file(t.File, files[i])
		}
	}
	for i, r := range res.Reports {
		it := detectItem(r)
		if evs := r.Example.Events; len(evs) > 0 {
			last := evs[len(evs)-1]
			tl.add(&it, i, r.Example.Trace, timeline.Request{Tasks: [2]string{evs[0].ID, last.ID}, Lines: [2]int{evs[0].At.Line, last.At.Line}})
		}
		p.Items = append(p.Items, it)
	}
	if err := tl.fill(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// timelines gathers the timelines a page asks for, to read each trace
// once for all of its items.
type timelines struct {
	files map[string]string // trace name -> the file it can be read again from
	reqs  map[string][]timeline.Request
	at    []ref
}

// ref is the place of an item's timeline request: the n-th of its
// trace's.
type ref struct {
	item  int
	trace string
	n     int
}

func newTimelines() *timelines {
	return &timelines{files: map[string]string{}, reqs: map[string][]timeline.Request{}}
}

// file records that the trace name was read from path; one read from
// standard input cannot be read again.
func (tl *timelines) file(name, path string) {
	if path != "-" && name != traces.StdinName {
		tl.files[name] = path
	}
}

// add asks for the timeline of it, the page's item of that index,
// unless the page has MaxTimelines already: it then says so.
func (tl *timelines) add(it *Item, item int, trace string, req timeline.Request) {
	if len(tl.at) == MaxTimelines {
		it.NoTimeline = fmt.Sprintf("No timeline: only the first %d groups get one.", MaxTimelines)
		return
	}
	tl.at = append(tl.at, ref{item, trace, len(tl.reqs[trace])})
	tl.reqs[trace] = append(tl.reqs[trace], req)
}

// fill reads each trace once, in name order (so that the first error is
// always the same), and gives the items their timelines.
func (tl *timelines) fill(ctx context.Context, p *Page) error {
	windows := map[string][]timeline.Window{}
	for _, name := range slices.Sorted(maps.Keys(tl.reqs)) {
		path, ok := tl.files[name]
		if !ok {
			continue
		}
		ws, err := timeline.Extract(ctx, path, name, tl.reqs[name])
		if err != nil {
			return fmt.Errorf("timeline: %w", err)
		}
		windows[name] = ws
	}
	for _, a := range tl.at {
		it := &p.Items[a.item]
		if ws, ok := windows[a.trace]; ok {
			it.Timeline = &ws[a.n]
		} else {
			it.NoTimeline = "No timeline: the trace was read from standard input."
		}
	}
	return nil
}

func detectItem(r *detect.Report) Item {
	ex := &r.Example
	subject := r.Condition.Text
	if r.Pattern != "" {
		subject = r.Pattern
	}
	it := Item{
		ID: fmt.Sprintf("r%d", r.ID), Rank: r.ID, Kind: r.Kind.String(),
		Handlers: strings.Join(r.Handlers, " / "), Subject: subject, Count: r.Findings,
	}
	it.Facts = append(it.Facts,
		Fact{"learned", fmt.Sprintf("from %s, confidence %.4g", plural(int(r.Condition.Support), "sample"), r.Condition.Confidence)},
		Fact{"example", fmt.Sprintf("%s in %s", ex.Concrete, ex.Trace)})
	var locs []string
	for _, l := range ex.Locations {
		locs = append(locs, l.String())
	}
	if len(locs) > 0 {
		it.Facts = append(it.Facts, Fact{"locations", strings.Join(locs, ", ")})
	}
	var kinds []string
	for _, k := range r.Kinds {
		kinds = append(kinds, fmt.Sprintf("%d %s", k.Findings, k.Kind))
	}
	it.Facts = append(it.Facts, Fact{"findings", strings.Join(kinds, ", ") + " in " + plural(len(r.Traces), "trace")})
	if r.Conditions > 1 {
		it.Facts = append(it.Facts, Fact{"conditions", fmt.Sprintf("%d, on elements of one array", r.Conditions)})
	}
	for i, rel := range r.Related {
		label := ""
		if i == 0 {
			label = "also"
		}
		it.Facts = append(it.Facts, Fact{label, fmt.Sprintf("%s %s on the same condition (%s)", rel.Kind, strings.Join(rel.Handlers, " / "), plural(rel.Findings, "finding"))})
	}
	for _, e := range ex.Events {
		row := EventRow{Role: e.Role, Task: e.ID, Thread: e.Thread, Handler: e.Handler, Src: e.At.Src}
		if e.Minor {
			row.Role += " (minor)"
		}
		if e.MidEvent {
			row.Role += " (mid-event)"
		}
		row.Line = fmt.Sprintf("%d (at %d)", e.Begin.Line, e.At.Line)
		if e.End != nil {
			row.Line = fmt.Sprintf("%d–%d (at %d)", e.Begin.Line, e.End.Line, e.At.Line)
		}
		switch {
		case len(e.Values) > 0:
			row.Values = values(e.Values)
		case len(e.Before) > 0:
			row.Values = values(e.Before) + " → " + values(e.After)
		}
		it.Events = append(it.Events, row)
	}
	switch {
	case ex.Concurrent != nil:
		it.Why = append(it.Why, ex.Concurrent.Text)
		it.Why = append(it.Why, ex.Concurrent.Missing...)
	case len(ex.Events) == 2:
		it.Why = append(it.Why, fmt.Sprintf("%s happens before %s.", ex.Events[0].ID, ex.Events[1].ID))
	}
	if r.HowToRead != "" {
		it.Why = append(it.Why, r.HowToRead)
	}
	it.Missing = missing(ex.Events, ex.Concurrent != nil)
	return it
}

// missing states on the timeline what is missing between the pair.
func missing(evs []detect.Event, concurrent bool) string {
	switch {
	case len(evs) < 2:
		return "1: the event that found the condition false"
	case concurrent:
		return fmt.Sprintf("No chain of arrows orders 1 (%s) and 2 (%s): either can run first.", evs[0].ID, evs[1].ID)
	}
	return fmt.Sprintf("1 (%s) happens before 2 (%s).", evs[0].ID, evs[1].ID)
}

func values(vs []detect.Value) string {
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.Text)
	}
	return strings.Join(parts, ", ")
}

// Races builds the page of race reports, one per trace; files are the
// files they were read from, in the same order.
func Races(ctx context.Context, reports []*races.Report, files []string) (*Page, error) {
	p := &Page{Title: "licorice races", Subject: "location", Count: "races"}
	tl := newTimelines()
	total := 0
	for i, rep := range reports {
		if i < len(files) {
			tl.file(rep.Trace, files[i])
		}
		total += rep.Races()
		for _, g := range rep.Groups {
			it := Item{
				ID: fmt.Sprintf("t%d-%s", i+1, g.ID), Rank: len(p.Items) + 1, Kind: g.Kind.String() + " race",
				Handlers: g.Handlers[0] + " / " + g.Handlers[1], Subject: g.Location, Count: g.Count,
			}
			it.Facts = append(it.Facts, Fact{"trace", rep.Trace},
				Fact{"races", fmt.Sprintf("%d in the group, %d between events of one looper, %d listed", g.Count, g.InThread, len(g.Races))})
			if len(g.Races) > 0 {
				r := g.Races[0]
				it.Facts = append(it.Facts, Fact{"example", fmt.Sprintf("%s on %s.%s", r.ID, r.Location.Object, r.Location.Field)})
				for _, a := range []races.Access{r.First, r.Second} {
					row := EventRow{Role: a.Op, Task: a.Task, Thread: a.Thread, Handler: a.Handler, Line: fmt.Sprint(a.Line), Src: a.Src, Values: a.Value}
					it.Events = append(it.Events, row)
				}
				if r.Covered && r.CoveredBy != nil {
					it.Why = append(it.Why, fmt.Sprintf("Covered by %s: ordering that race would order this one.", r.CoveredBy.ID))
				}
				it.Missing = fmt.Sprintf("No chain of arrows orders 1 (%s, line %d) and 2 (%s, line %d).", r.First.Task, r.First.Line, r.Second.Task, r.Second.Line)
				tl.add(&it, len(p.Items), rep.Trace, timeline.Request{Tasks: [2]string{r.First.Task, r.Second.Task}, Lines: [2]int{r.First.Line, r.Second.Line}})
			}
			p.Items = append(p.Items, it)
		}
	}
	p.Summary = append(p.Summary, fmt.Sprintf("%s in %s, %s listed.", plural(total, "race"), plural(len(reports), "trace"), plural(len(p.Items), "group")))
	if err := tl.fill(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
