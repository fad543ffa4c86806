package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/detect/timeline"
)

// Page is a report as the page shows it: a list of items (report groups
// or race groups), each with its facts, its two events and a timeline.
type Page struct {
	Title   string   // "licorice detect"
	Summary []string // lines under the title
	Subject string   // what an item is about: "condition" or "location"
	Count   string   // what an item counts: "findings" or "races"
	Items   []Item
	Notes   []string // the input's warnings
}

// Item is one report group.
type Item struct {
	ID       string // "r1", "G3": the anchor of its details
	Rank     int    // its place in the report, from 1
	Kind     string
	Handlers string
	Subject  string
	Count    int
	Facts    []Fact
	Events   []EventRow
	Why      []string // why the two events are not ordered
	// Missing is the order the timeline lacks, stated on it.
	Missing    string
	Timeline   *timeline.Window
	NoTimeline string // why there is none, if there is none
}

// SVG is the item's timeline laid out, or nil.
func (it Item) SVG() *svg {
	if it.Timeline == nil {
		return nil
	}
	s := draw(it.Timeline, it.Missing)
	return &s
}

// Fact is one labelled line of an item's details.
type Fact struct{ Label, Value string }

// EventRow is one of an item's two events.
type EventRow struct {
	Role    string // "REQ", "KILL", "write", ...
	Task    string
	Thread  string
	Handler string
	Line    string // "1234" or "1200–1250"
	Src     string
	Values  string
}

//go:embed page.tmpl
var pageTmpl string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"css": func() template.CSS { return template.CSS(pageCSS) },
	"js":  func() template.JS { return template.JS(pageJS) },
}).Parse(pageTmpl))

// Write writes p as one self-contained HTML file: styles and script
// inline, no network, the same bytes for the same page.
func Write(w io.Writer, p *Page) error {
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

// The timeline's geometry, in SVG user units.
const (
	laneHeight = 40
	boxHeight  = 24
	gutter     = 150 // the lane labels
	step       = 32  // between two distinct lines of interest
	top        = 26  // the outside world, above the lanes
)

// svg is a timeline laid out.
type svg struct {
	Width, Height int
	Note          string
	Lanes         []svgLane
	Boxes         []svgBox
	Arrows        []svgArrow
	Gaps          []svgGap
}

type svgLane struct {
	Y     int
	Label string
	Title string
}

type svgBox struct {
	X, Y, W, H int
	Label      string
	Title      string
	Class      string
	TextX      int
	TextY      int
	Mark       string // "1" or "2" above a box of the pair
}

type svgGap struct {
	X     int
	Label string
}

type svgArrow struct {
	X1, Y1, X2, Y2 int
	Class          string
	Title          string
}

// draw lays out a timeline: lanes top to bottom in trace order of their
// threads, time (the trace's lines, each distinct line of interest one
// step) left to right.
func draw(w *timeline.Window, note string) svg {
	var lines []int
	for _, b := range w.Boxes {
		lines = append(lines, b.Begin)
		if b.End > 0 {
			lines = append(lines, b.End)
		}
	}
	for _, a := range w.Arrows {
		lines = append(lines, a.FromLine, a.ToLine)
	}
	for _, g := range w.Gaps {
		lines = append(lines, g.Line)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	x := func(line int) int {
		i, _ := slices.BinarySearch(lines, line)
		return gutter + 10 + i*step
	}
	end := gutter + 10 + len(lines)*step
	laneY := func(l int) int { return top + l*laneHeight }
	s := svg{Width: end + 20, Height: top + len(w.Lanes)*laneHeight + 10, Note: note}
	for i, l := range w.Lanes {
		label, title := l.Thread, "thread "+l.Thread
		if l.Name != "" && l.Name != l.Thread {
			title += " (" + l.Name + ")"
		}
		if l.Looper {
			title += " (runs events)"
		}
		s.Lanes = append(s.Lanes, svgLane{Y: laneY(i), Label: clip(label, 20), Title: title})
	}
	for i, b := range w.Boxes {
		x1 := x(b.Begin)
		x2 := end - step/2
		if b.End > 0 {
			x2 = x(b.End)
		}
		if b.Op {
			x1 -= 4
			x2 = x1 + 8
		}
		x2 = max(x2, x1+10)
		y := laneY(b.Lane) + (laneHeight-boxHeight)/2
		class := "event"
		if b.Op {
			class = "op"
		}
		// The event, and its handler's method if it fits.
		label, mark, fits := b.Task, "", max(2, (x2-x1-4)/7)
		if h := b.Handler; h != "" {
			if method := h[strings.LastIndexByte(h, '.')+1:]; len(b.Task)+1+len(method) <= fits {
				label += " " + method
			}
		}
		switch i {
		case w.Pair[0]:
			class, mark = class+" pair first", "1"
		case w.Pair[1]:
			class, mark = class+" pair second", "2"
		}
		title := b.Task
		if b.Handler != "" {
			title += " " + b.Handler
		}
		switch {
		case b.Op:
			title += fmt.Sprintf(" (line %d)", b.Begin)
		case b.End == 0:
			title += fmt.Sprintf(" (line %d, still running at the end)", b.Begin)
		default:
			title += fmt.Sprintf(" (lines %d–%d)", b.Begin, b.End)
		}
		s.Boxes = append(s.Boxes, svgBox{X: x1, Y: y, W: x2 - x1, H: boxHeight, Label: clip(label, fits), Title: title, Class: class, TextX: x1 + 3, TextY: y + boxHeight - 8, Mark: mark})
	}
	for _, a := range w.Arrows {
		x1, y1 := x(a.FromLine), top-14
		if a.FromLane >= 0 {
			y1 = laneY(a.FromLane) + laneHeight/2
		}
		x2, y2 := x(a.ToLine), laneY(a.ToLane)+laneHeight/2
		if y2 > y1 {
			y2 -= boxHeight / 2
		} else if y2 < y1 {
			y2 += boxHeight / 2
		}
		title := fmt.Sprintf("%s at line %d, received at line %d", a.Kind, a.FromLine, a.ToLine)
		if a.FromLane < 0 {
			title = fmt.Sprintf("sent from outside the program at line %d", a.FromLine)
		}
		s.Arrows = append(s.Arrows, svgArrow{X1: x1, Y1: y1, X2: x2, Y2: y2, Class: a.Kind, Title: title})
	}
	for _, g := range w.Gaps {
		s.Gaps = append(s.Gaps, svgGap{X: x(g.Line), Label: fmt.Sprintf("%d events left out", g.Events)})
	}
	return s
}

// clip shortens s to n characters, the last an ellipsis if it cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return string(r[:n])
	}
	return string(r[:n-1]) + "…"
}
