package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints the table as thesis Table 5.1 (transposed: one line
// per app), then the harmful pairs each tool missed.
func (t *Table) WriteText(w io.Writer) error {
	c := t.Config
	fmt.Fprintf(w, "Training: %s of %d actions per app (%.0f%% shuffled); testing: %s of %d actions; seed %d; window %s.\n\n",
		plural(c.TrainRuns, "run"), c.TrainActions, 100*c.Shuffled, plural(c.TestRuns, "run"), c.TestActions, c.Seed, windowText(c.WindowMS))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "app\tharmful\t|\traces: groups\tharmful found\tmissed\t|\tlicorice: reports\tharmful found\tmissed\t|\treduction\t")
	for _, r := range append(t.Rows, t.Total) {
		red := "n/a" // no race group to reduce
		if r.Races.Reported > 0 {
			red = fmt.Sprintf("%.0f%%", 100*r.Reduction)
		}
		fmt.Fprintf(tw, "%s\t%d\t|\t%d\t%d\t%d\t|\t%d\t%d\t%d\t|\t%s\t\n", r.App, r.Harmful,
			r.Races.Reported, len(r.Races.Found), len(r.Races.Missed),
			r.Licorice.Reported, len(r.Licorice.Found), len(r.Licorice.Missed), red)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range []struct {
		tool   string
		missed []string
	}{{"races", t.Total.Races.Missed}, {"licorice", t.Total.Licorice.Missed}} {
		if len(m.missed) > 0 {
			fmt.Fprintf(w, "\n%s missed: %s\n", m.tool, strings.Join(m.missed, "; "))
		}
	}
	_, err := fmt.Fprintf(w, "\nraces: groups of races between events of one looper thread (%d groups in all), merged over the test runs;\n"+
		"licorice: report groups (handler pair × condition); reduction: 1 - licorice reports / race groups.\n", t.Total.Races.All)
	return err
}

func windowText(ms int64) string {
	if ms == 0 {
		return "off (exact happens-before)"
	}
	return fmt.Sprintf("%d s", ms/1000)
}

// WriteJSON writes the table as one indented JSON object.
func (t *Table) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}
