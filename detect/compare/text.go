package compare

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

// Counts is how many locations have a verdict and a reason.
type Counts struct {
	Verdict   Verdict
	Reason    Reason
	Locations int
	Witnesses int // DroidRacer's witnesses on them
}

// Counts returns how many locations have each verdict and reason, by
// verdict and reason.
func (c *Comparison) Counts() []Counts {
	var out []Counts
	for _, loc := range c.Locations {
		i := slices.IndexFunc(out, func(n Counts) bool { return n.Verdict == loc.Verdict && n.Reason == loc.Reason })
		if i < 0 {
			out = append(out, Counts{Verdict: loc.Verdict, Reason: loc.Reason})
			i = len(out) - 1
		}
		out[i].Locations++
		out[i].Witnesses += len(loc.Witnesses)
	}
	slices.SortFunc(out, func(a, b Counts) int {
		return cmp.Or(cmp.Compare(a.Verdict, b.Verdict), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

// WriteText prints the comparison for people: the counts, every
// difference with its explanation, then the locations both report.
func (c *Comparison) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "DroidRacer log %s", c.Log)
	if c.App != "" {
		fmt.Fprintf(bw, " (app %s)", c.App)
	}
	lc := "without the lifecycle orders (--lifecycle adds them)"
	if c.Options.Lifecycle {
		lc = "with the lifecycle orders"
	}
	fmt.Fprintf(bw, "\nimported to %d ops, %s; exact happens-before\n", c.Ops, lc)
	var drLocs, liLocs int
	for _, loc := range c.Locations {
		if loc.Verdict != LicoriceOnly {
			drLocs++
		}
		if loc.Verdict != DroidRacerOnly {
			liLocs++
		}
	}
	fmt.Fprintf(bw, "DroidRacer: %s on %s\n", plural(c.Witnesses, "race witness"), plural(drLocs, "location"))
	fmt.Fprintf(bw, "licorice:   %s on %s\n", plural(c.Races, "data race"), plural(liLocs, "location"))
	if n := len(c.Unplaced); n > 0 {
		fmt.Fprintf(bw, "not compared: %s whose accesses the log's trace does not have (log lines %s)\n", plural(n, "witness"), intList(c.Unplaced))
	}
	if c.Unreadable > 0 {
		fmt.Fprintf(bw, "not compared: %s of DroidRacer's report not understood\n", plural(c.Unreadable, "line"))
	}
	fmt.Fprintln(bw)

	counts := c.Counts()
	if len(counts) == 0 {
		fmt.Fprintln(bw, "No location has a race for either tool.")
		return bw.Flush()
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "verdict\treason\tlocations\twitnesses\t\n")
	for _, n := range counts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t\n", n.Verdict, n.Reason, n.Locations, n.Witnesses)
	}
	tw.Flush()
	var seen [numReasons]bool
	fmt.Fprintf(bw, "\n")
	for _, n := range counts {
		if !seen[n.Reason] {
			seen[n.Reason] = true
			fmt.Fprintf(bw, "  %s: %s\n", n.Reason, n.Reason.Doc())
		}
	}

	sections := []struct {
		title string
		keep  func(*Location) bool
	}{
		{"DroidRacer only", func(l *Location) bool { return l.Verdict == DroidRacerOnly }},
		{"Both, with a witness licorice does not consider a race", func(l *Location) bool { return l.Verdict == Both && l.Reason != Same }},
		{"licorice only", func(l *Location) bool { return l.Verdict == LicoriceOnly }},
	}
	for _, sec := range sections {
		var locs []*Location
		for _, loc := range c.Locations {
			if sec.keep(loc) {
				locs = append(locs, loc)
			}
		}
		if len(locs) == 0 {
			continue
		}
		fmt.Fprintf(bw, "\n%s (%d)\n", sec.title, len(locs))
		for _, loc := range locs {
			writeLocation(bw, loc, c.Options.Lifecycle)
		}
	}

	var same []*Location
	for _, loc := range c.Locations {
		if loc.Verdict == Both && loc.Reason == Same {
			same = append(same, loc)
		}
	}
	if len(same) > 0 {
		fmt.Fprintf(bw, "\nBoth, the same race (%d): location, class, DroidRacer's categories, licorice's races, the witness\n", len(same))
		tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for _, loc := range same {
			for i, wi := range loc.Witnesses {
				if i == 0 {
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t\n", loc.Key, loc.Class, categoryList(loc.Categories), loc.Races, witnessBrief(wi))
				} else {
					fmt.Fprintf(tw, "  \t\t\t\t%s\t\n", witnessBrief(wi))
				}
			}
		}
		tw.Flush()
	}
	return bw.Flush()
}

// writeLocation prints a location that differs, with its explanation.
func writeLocation(w io.Writer, loc *Location, lifecycle bool) {
	fmt.Fprintf(w, "\n%s %s", loc.Key, loc.Class)
	if len(loc.Categories) > 0 {
		fmt.Fprintf(w, " (%s)", categoryList(loc.Categories))
	}
	fmt.Fprintf(w, ": %s", loc.Reason)
	if loc.Races > 0 {
		fmt.Fprintf(w, "; licorice: %s", plural(loc.Races, "race"))
	}
	fmt.Fprintln(w)
	for _, wi := range loc.Witnesses {
		fmt.Fprintf(w, "  witness at log line %d (%s): %s\n", wi.Line, categoryList(wi.Categories), pairText(&wi.Pair))
		if wi.Reason == Same {
			fmt.Fprintf(w, "    a data race for licorice too\n")
			continue
		}
		fmt.Fprintf(w, "    %s: %s\n", wi.Reason, wi.Reason.Doc())
		writePair(w, &wi.Pair, wi.Reason)
	}
	if loc.Verdict == LicoriceOnly && loc.Example != nil {
		fmt.Fprintf(w, "  licorice's first race: %s\n", pairText(loc.Example))
		writePair(w, loc.Example, loc.Reason)
		if len(loc.RuleChain) > 0 {
			lines := ""
			if !lifecycle && (loc.Reason == Lifecycle || loc.Reason == LifecycleLockOrder) {
				lines = " (lines of the trace imported with --lifecycle)"
			}
			fmt.Fprintf(w, "    with that rule of DroidRacer's, licorice orders them%s:\n", lines)
			writeChain(w, loc.RuleChain, "      ")
		}
	}
}

// writePair prints what licorice makes of a pair.
func writePair(w io.Writer, p *Pair, r Reason) {
	switch {
	case r == TwoObjects:
		fmt.Fprintf(w, "    the first is to %s, the second to %s\n", p.First.Object, p.Second.Object)
	case p.Order != asyncclock.Concurrent:
		fmt.Fprintf(w, "    licorice orders them:\n")
		writeChain(w, p.Chain, "      ")
	case len(p.Locks) > 0:
		fmt.Fprintf(w, "    concurrent, but both held %s\n", strings.Join(p.Locks, ", "))
	case p.Concurrency != nil:
		fmt.Fprintf(w, "    concurrent for licorice (hb %s %s):\n", p.First.Event, p.Second.Event)
		for _, s := range p.Concurrency.Reasons {
			fmt.Fprintf(w, "      %s\n", s)
		}
	default:
		fmt.Fprintf(w, "    concurrent for licorice\n")
	}
}

// writeChain prints a chain of rule applications, premises indented under
// their steps.
func writeChain(w io.Writer, steps []Step, indent string) {
	for i, s := range steps {
		fmt.Fprintf(w, "%s%d. %s: line %d %s → line %d %s\n", indent, i+1, s.Rule, s.From.Line, s.From.What, s.To.Line, s.To.What)
		fmt.Fprintf(w, "%s   %s\n", indent, s.Why)
		if len(s.Premise) > 0 {
			fmt.Fprintf(w, "%s   which holds because:\n", indent)
			writeChain(w, s.Premise, indent+"     ")
		}
	}
}

func pairText(p *Pair) string {
	return accessText(&p.First) + "; " + accessText(&p.Second)
}

func accessText(a *Access) string {
	by := "thread " + a.Thread
	if a.Event != "" {
		by = "event " + a.Event + " on " + a.Thread
	}
	return fmt.Sprintf("%s rwId %d by %s (line %d)", a.Op, a.RW, by, a.Line)
}

// witnessBrief names a witness's two tasks.
func witnessBrief(w *Witness) string {
	return fmt.Sprintf("log line %d: %s × %s", w.Line, taskText(&w.First), taskText(&w.Second))
}

func taskText(a *Access) string {
	if a.Event != "" {
		return a.Event + " on " + a.Thread
	}
	return "thread " + a.Thread
}

func categoryList(ks []droidracer.CategoryKind) string {
	if len(ks) == 0 {
		return "no category"
	}
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return strings.Join(s, ", ")
}

func intList(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "s") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
