package eval

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/detect/htmlreport"
	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
)

// DemoConfig configures [Demo]. Zero fields take the defaults.
type DemoConfig struct {
	App          *apps.App // default: MyTracks
	TrainRuns    int       // default 50
	TrainActions int       // default 500
	TestActions  int       // default 2000
	Seed         int64     // the first training run's seed; default 1
	// TestSeed is the first seed tried for the test run; the demo takes
	// the first of TestSeed, TestSeed+1, ... whose run does not crash.
	// Default 7001.
	TestSeed int64
	// Dir is where the traces and the spec go (required).
	Dir    string
	Window time.Duration // AsyncClock's time window
	Color  bool          // colour the report
	Width  int           // wrap text at this column (default 100)
	// HTML, if set, is a file to write the report to as a page (package
	// detect/htmlreport), replaced only once it is whole.
	HTML string
}

func (c *DemoConfig) defaults() {
	if c.App == nil {
		c.App, _ = apps.Lookup("mytracks")
	}
	c.TrainRuns = cmpOr(c.TrainRuns, 50)
	c.TrainActions = cmpOr(c.TrainActions, 500)
	c.TestActions = cmpOr(c.TestActions, 2000)
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.TestSeed == 0 {
		c.TestSeed = 7001
	}
	c.Width = cmpOr(c.Width, 100)
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// maxTestSeeds bounds the search for a test run that does not crash.
const maxTestSeeds = 20

// Demo walks through licorice on one benchmark app and tells w what
// happens as it goes: it records a shuffled training corpus, learns the
// handlers' preconditions, records a new run that passes (no crash),
// detects on it, compares with the race detector, and explains the
// report with the app's ground truth.
func Demo(ctx context.Context, w io.Writer, cfg DemoConfig) error {
	cfg.defaults()
	app := cfg.App
	start := time.Now()
	d := &demoWriter{w: w, width: cfg.Width}
	d.say("licorice demo: %s", app.Title)
	d.line()
	d.para("", fmt.Sprintf("This app has %s that a test rarely hits, because it takes an unlucky order of events:", plural(len(app.Harmful), "known ordering bug")))
	for _, r := range app.Harmful {
		d.para("  - ", fmt.Sprintf("%s / %s on %s: %s.", r.A, r.B, r.Data, r.Why))
	}
	d.line()

	// 1. Training runs.
	shuffled := cfg.TrainRuns / 2
	d.para("1. ", fmt.Sprintf("Record %d runs of %s with random user input (%d actions each), %d of them with a shuffled event schedule.",
		cfg.TrainRuns, app.Name, cfg.TrainActions, shuffled))
	train, err := record(ctx, app, filepath.Join(cfg.Dir, "train"), cfg.TrainRuns, cfg.TrainActions, 0.5, cfg.Seed, false)
	if err != nil {
		return err
	}
	crashed := 0
	for _, s := range train {
		if s.Crash != "" {
			crashed++
		}
	}
	d.para("   → ", fmt.Sprintf("%d correct executions; %d runs crashed (they hit a bug): learning uses them up to the error, without the events that led to it.", len(train)-crashed, crashed))

	// 2. Learning.
	d.para("2. ", "Learn, for every event handler, the conditions that held every time it ran.")
	res, err := learn.Learn(ctx, files(train), learn.Options{})
	if err != nil {
		return err
	}
	specPath := filepath.Join(cfg.Dir, app.Name+".spec.json")
	if err := res.Spec.WriteFile(specPath); err != nil {
		return err
	}
	conds := res.Spec.Conditions()
	bugConds := bugConditions(app, conds)
	d.learned(len(conds), len(res.Spec.Handlers), bugConds)

	// 3. A test run that passes.
	d.para("3. ", fmt.Sprintf("Record a new run of %d actions, as a test would.", cfg.TestActions))
	var test shuffle.RunSummary
	for i := range maxTestSeeds {
		runs, err := record(ctx, app, filepath.Join(cfg.Dir, "test"), 1, cfg.TestActions, 0, cfg.TestSeed+int64(i), true)
		if err != nil {
			return err
		}
		if test = runs[0]; test.Crash == "" {
			break
		}
	}
	if test.Crash != "" {
		d.para("   → ", fmt.Sprintf("every run tried crashed; the last one (seed %d): %s.", test.Seed, test.Crash))
	} else {
		d.para("   → ", fmt.Sprintf("seed %d: %d operations, %d events, no crash. The test passes.", test.Seed, test.Ops, test.Events))
	}

	// 4. Detection, and the race detector for comparison.
	d.para("4. ", "Detect: look in that run for concurrent events that could break a learned condition.")
	det, err := detect.Detect(ctx, res.Spec, []string{test.File}, detect.Options{Window: cfg.Window, Explain: detect.DefaultExplain})
	if err != nil {
		return err
	}
	rep, err := raceReport(ctx, test.File, cfg.Window)
	if err != nil {
		return err
	}
	raceCount := 0
	for _, k := range rep.Summary.Kinds {
		raceCount += k.Races
	}
	var raceGroups [][]string
	for _, g := range rep.Groups {
		raceGroups = append(raceGroups, g.Handlers[:])
	}
	d.para("   → ", fmt.Sprintf("licorice: %s. For comparison, a race detector reports %d races in %d groups on the same run.",
		plural(len(det.Reports), "report"), raceCount, len(rep.Groups)))
	d.line()
	d.rule("the report (licorice detect)")
	full := 0
	for _, r := range det.Reports {
		if app.IsHarmful(pairOf(r.Handlers)) {
			full = r.ID
		}
	}
	if err := detect.WriteText(w, det, detect.TextOptions{Color: cfg.Color, Width: cfg.Width, Full: max(full, 1)}); err != nil {
		return err
	}
	d.rule("")
	d.line()
	if cfg.HTML != "" {
		if err := writePage(ctx, cfg.HTML, det, test.File); err != nil {
			return err
		}
		d.para("", fmt.Sprintf("The report as a page, with a timeline of each example: %s (open it in a browser).", cfg.HTML))
		d.line()
	}
	raceFound, _ := score(app, raceGroups)
	d.explain(app, det, test.Crash == "", len(raceGroups), len(raceFound), conds)
	d.line()
	d.say("Try it yourself:")
	d.say("  licorice record --app %s --runs %d --actions %d -o train/", app.Name, cfg.TrainRuns, cfg.TrainActions)
	d.say("  licorice learn train/ -o %s.spec.json", app.Name)
	d.say("  licorice record --app %s --runs 1 --seed %d --actions %d -o test/", app.Name, test.Seed, cfg.TestActions)
	d.say("  licorice detect --spec %s.spec.json test/", app.Name)
	d.say("  licorice detect --spec %s.spec.json --format html -o report.html test/   # as a page", app.Name)
	d.say("  licorice races test/*.lct        # the race detector, for comparison")
	d.line()
	d.say("(%s in %.1f s.)", "Done", time.Since(start).Seconds())
	return d.err
}

// writePage writes det as an HTML page to path.
func writePage(ctx context.Context, path string, det *detect.Result, trace string) error {
	p, err := htmlreport.Detect(ctx, det, []string{trace})
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := htmlreport.Write(f, p); err != nil {
		return err
	}
	return f.Commit()
}

// explain tells which reports are the app's known bugs and which are not,
// and how many of them the race detector's groups include.
func (d *demoWriter) explain(app *apps.App, det *detect.Result, passed bool, raceGroups, raceFound int, conds []*learn.Condition) {
	var bugs, others []string
	found := map[string]bool{}
	for _, r := range det.Reports {
		a, b := pairOf(r.Handlers)
		if app.IsHarmful(a, b) {
			bugs = append(bugs, fmt.Sprintf("#%d", r.ID))
			for _, h := range app.Harmful {
				if h.Involves(a, b) {
					found[h.A+" / "+h.B] = true
				}
			}
		} else {
			others = append(others, fmt.Sprintf("#%d", r.ID))
		}
	}
	var missed, unlearned []string
	for _, h := range app.Harmful {
		if found[h.A+" / "+h.B] {
			continue
		}
		if !slices.ContainsFunc(conds, func(c *learn.Condition) bool { return onData(c, h.A, h.Data) || onData(c, h.B, h.Data) }) {
			unlearned = append(unlearned, h.A+" / "+h.B)
		} else {
			missed = append(missed, h.A+" / "+h.B)
		}
	}
	d.say("What happened:")
	switch {
	case len(bugs) == 0 && len(missed) == 0:
		d.para("  ", "none of the reports is one of the app's known bugs: training learned no condition on a bug's data, so there was nothing for the bug to break.")
	case len(bugs) == 0:
		d.para("  ", "none of the reports is one of the app's known bugs: this run never had the events of a bug unordered.")
	default:
		s := fmt.Sprintf("%s %s the app's %s.", and(bugs), isAre(len(bugs)), plural(len(found), "known bug"))
		if passed {
			s += " The run did not crash, yet licorice found them: in it, the handler that relies on a condition and " +
				"the one that breaks it were not ordered by any happens-before rule, so in another run they can come " +
				"the other way round."
		}
		s += fmt.Sprintf(" The race detector's %d groups include %d of the app's %s, among %d groups of other races.",
			raceGroups, raceFound, plural(len(app.Harmful), "bug"), raceGroups-raceFound)
		d.para("  ", s)
	}
	if len(others) > 0 {
		d.para("  ", fmt.Sprintf("%s %s not among the app's known bugs: by its design, these orders do no harm. Their "+
			"conditions held in every training run, but only because the events that break them never came first there: "+
			"false alarms, ranked below the bugs. docs/detection.md explains how to read reports; an allow-list "+
			`("licorice detect --allow") silences them.`, and(others), isAre(len(others))))
	}
	if len(missed) > 0 {
		d.para("  ", fmt.Sprintf("Not found in this run: %s (its events were ordered, or never both ran).", strings.Join(missed, "; ")))
	}
	if len(unlearned) > 0 {
		d.para("  ", fmt.Sprintf("Not found: %s: training learned no condition on its data (more or longer training runs may).", strings.Join(unlearned, "; ")))
	}
}

// learned says what learning found: how many conditions, and those on
// the data of the known bugs, or that there are none.
func (d *demoWriter) learned(conds, handlers int, bugConds []*learn.Condition) {
	if len(bugConds) == 0 {
		d.para("   → ", fmt.Sprintf("%s for %s, none of them on the data of a known bug.", plural(conds, "condition"), plural(handlers, "handler")))
		return
	}
	d.para("   → ", fmt.Sprintf("%s for %s, among them:", plural(conds, "condition"), plural(handlers, "handler")))
	for _, c := range bugConds {
		d.para("       ", fmt.Sprintf("%s   (held in all %d invocations)", c.Text(), c.Support))
	}
}

// and joins words: "a", "a and b", "a, b and c".
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// pairOf returns a report's two handlers (one handler twice).
func pairOf(hs []string) (string, string) {
	if len(hs) == 1 {
		return hs[0], hs[0]
	}
	return hs[0], hs[1]
}

// bugConditions returns the learned conditions of the app's harmful
// handlers on the data their races are about, at most one per race.
func bugConditions(app *apps.App, conds []*learn.Condition) []*learn.Condition {
	var out []*learn.Condition
	for _, r := range app.Harmful {
		i := slices.IndexFunc(conds, func(c *learn.Condition) bool { return onData(c, r.A, r.Data) })
		if i < 0 {
			i = slices.IndexFunc(conds, func(c *learn.Condition) bool { return onData(c, r.B, r.Data) })
		}
		if i >= 0 {
			out = append(out, conds[i])
		}
	}
	return out
}

// onData reports whether c is a condition of handler h on a field named
// data.
func onData(c *learn.Condition, h, data string) bool {
	return c.Handler == h && slices.ContainsFunc(c.Vars, func(v string) bool { return strings.HasSuffix(v, "."+data) })
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// demoWriter prints the demo's narration, wrapped.
type demoWriter struct {
	w     io.Writer
	width int
	err   error
}

func (d *demoWriter) say(format string, args ...any) {
	if d.err == nil {
		_, d.err = fmt.Fprintf(d.w, format+"\n", args...)
	}
}

func (d *demoWriter) line() { d.say("") }

func (d *demoWriter) rule(title string) {
	if title == "" {
		d.say("%s", strings.Repeat("─", d.width))
		return
	}
	d.say("── %s %s", title, strings.Repeat("─", max(0, d.width-4-len([]rune(title)))))
}

// para writes text wrapped at the width, the first line after lead, the
// others indented as far.
func (d *demoWriter) para(lead, text string) {
	var b strings.Builder
	pad := strings.Repeat(" ", len([]rune(lead)))
	col := len([]rune(lead))
	b.WriteString(lead)
	first := true
	for _, word := range strings.Fields(text) {
		n := len([]rune(word))
		if !first && col+1+n > d.width {
			b.WriteString("\n" + pad)
			col = len(pad)
			first = true
		}
		if !first {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
		first = false
	}
	d.say("%s", b.String())
}
