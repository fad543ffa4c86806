package eval

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/recorders/nodejs"
	"github.com/licorice-dev/licorice/traces"
)

// NodeDemoConfig configures [NodeDemo]. Zero fields take the defaults.
type NodeDemoConfig struct {
	Recorder  string // the Node.js recorder's folder (nodejs.Locate); required
	TrainRuns int    // default 50
	Seed      int64  // the first training run's seed; default 1
	TestSeed  int64  // the first seed tried for the test run; default 7001
	Dir       string // where the traces and the spec go (required)
	Window    time.Duration
	Color     bool
	Width     int // default 100
}

// The Node.js example's known bug: its handlers and the datum they race on.
const (
	nodeExample     = "examples/cache" // in the recorder's folder
	nodeBugGen      = "Cache.onConfig"
	nodeBugReq      = "request"
	nodeBugData     = "config"
	nodeExampleName = "cache"
)

// NodeDemo walks through licorice on the recorder's Node.js example
// (recorders/node/examples/cache): it records shuffled training runs of
// the program, learns, records a test run that passes, detects, compares
// with the race detector, and does the same on the fixed program.
func NodeDemo(ctx context.Context, w io.Writer, cfg NodeDemoConfig) error {
	if cfg.TrainRuns == 0 {
		cfg.TrainRuns = 50
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.TestSeed == 0 {
		cfg.TestSeed = 7001
	}
	cfg.Width = cmpOr(cfg.Width, 100)
	start := time.Now()
	dir := filepath.Join(cfg.Recorder, nodeExample)
	d := &demoWriter{w: w, width: cfg.Width}
	d.say("licorice demo --node: a Node.js cache service (%s)", filepath.Join("recorders", "node", nodeExample))
	d.line()
	d.para("", "The service reads its configuration with fs.readFile and serves requests that arrive on timers. "+
		"Nothing orders the read before the first request: usually the file is read first, but on a slow disk "+
		"request() finds this.config null and throws (cache.js, lookup).")
	d.line()
	batch := func(sub string, runs int, shuffled float64, seed int64, fixed bool) ([]nodejs.RunSummary, error) {
		cmd := []string{"node", "main.js"}
		app := nodeExampleName
		if fixed {
			cmd = append(cmd, "--fixed")
			app += "-fixed"
		}
		b := nodejs.Batch{
			Recorder: cfg.Recorder, Command: cmd, Dir: filepath.Join(cfg.Dir, sub), App: app, Root: dir,
			Runs: runs, Shuffled: shuffled, Seed: seed, Timeout: time.Minute, Format: traces.LCT,
		}
		return b.Record(ctx)
	}

	d.para("1. ", fmt.Sprintf("Record %d runs of `node main.js` under the recorder, %d of them with a shuffled schedule "+
		"(timers and fs callbacks delayed by seeded random amounts).", cfg.TrainRuns, cfg.TrainRuns/2))
	train, err := batch("train", cfg.TrainRuns, 0.5, cfg.Seed, false)
	if err != nil {
		return err
	}
	crashed := 0
	var trainFiles []string
	for _, s := range train {
		trainFiles = append(trainFiles, s.File)
		if s.Crash != "" {
			crashed++
		}
	}
	d.para("   → ", fmt.Sprintf("%d correct executions; %d runs crashed (they hit the bug): learning uses them up to the error, without the callbacks that led to it.", len(train)-crashed, crashed))

	d.para("2. ", "Learn, for every handler, the conditions that held every time it ran.")
	res, err := learn.Learn(ctx, trainFiles, learn.Options{})
	if err != nil {
		return err
	}
	specPath := filepath.Join(cfg.Dir, nodeExampleName+".spec.json")
	if err := res.Spec.WriteFile(specPath); err != nil {
		return err
	}
	conds := res.Spec.Conditions()
	var bugConds []*learn.Condition
	for _, c := range conds {
		if onData(c, nodeBugReq, nodeBugData) {
			bugConds = append(bugConds, c)
		}
	}
	d.learned(len(conds), len(res.Spec.Handlers), bugConds)

	testRun := func(sub string, fixed bool) (nodejs.RunSummary, error) {
		var s nodejs.RunSummary
		for i := range maxTestSeeds {
			runs, err := batch(sub, 1, 0, cfg.TestSeed+int64(i), fixed)
			if err != nil {
				return s, err
			}
			if s = runs[0]; s.Crash == "" {
				break
			}
		}
		return s, nil
	}
	d.para("3. ", "Record a new run, as a test would.")
	test, err := testRun("test", false)
	if err != nil {
		return err
	}
	if test.Crash != "" {
		d.para("   → ", fmt.Sprintf("every run tried crashed; the last one (seed %d): %s.", test.Seed, test.Crash))
	} else {
		d.para("   → ", fmt.Sprintf("%d operations, %d events, no crash. The test passes.", test.Ops, test.Events))
	}

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
	d.para("   → ", fmt.Sprintf("licorice: %s. For comparison, a race detector reports %d races in %d groups on the same run.",
		plural(len(det.Reports), "report"), raceCount, len(rep.Groups)))
	d.line()
	d.rule("the report (licorice detect)")
	full := 1
	for _, r := range det.Reports {
		if isNodeBug(r.Handlers) {
			full = r.ID
		}
	}
	if err := detect.WriteText(w, det, detect.TextOptions{Color: cfg.Color, Width: cfg.Width, Full: full}); err != nil {
		return err
	}
	d.rule("")
	d.line()

	d.para("5. ", "Record a run of the fixed program (`node main.js --fixed`: requests are served once the cache is ready) and detect on it with the same spec.")
	fixed, err := testRun("test-fixed", true)
	if err != nil {
		return err
	}
	detFixed, err := detect.Detect(ctx, res.Spec, []string{fixed.File}, detect.Options{Window: cfg.Window})
	if err != nil {
		return err
	}
	d.para("   → ", fmt.Sprintf("licorice: %s.", plural(len(detFixed.Reports), "report")))
	d.line()

	isBug := func(r *detect.Report) bool { return slices.ContainsFunc(r.Pairs(), isNodeBug) }
	found := slices.ContainsFunc(det.Reports, isBug)
	foundFixed := slices.ContainsFunc(detFixed.Reports, isBug)
	d.say("What happened:")
	if found {
		d.para("  ", fmt.Sprintf("licorice reports %s × %s on this.config: the run passed, yet in it the configuration "+
			"callback and the request were not ordered by anything Node guarantees, so another run can take the "+
			"other order and crash.", nodeBugGen, nodeBugReq))
	} else {
		d.para("  ", "this run never had the configuration callback and a request unordered; the bug was not reported.")
	}
	switch {
	case foundFixed:
		d.para("  ", "On the fixed program the pair is still reported: the two were not ordered in its run either.")
	case len(detFixed.Reports) == 0:
		d.para("  ", "On the fixed program the two are ordered, and nothing is reported.")
	default:
		d.para("  ", fmt.Sprintf("On the fixed program the two are ordered and the bug is not reported; %s about "+
			"other pairs remain (false alarms: docs/detection.md explains how to read them).", plural(len(detFixed.Reports), "report")))
	}
	d.line()
	d.say("Try it yourself, in %s:", dir)
	d.say("  licorice record --runs %d -o train/ -- node main.js", cfg.TrainRuns)
	d.say("  licorice learn train/ -o cache.spec.json")
	d.say("  licorice record --runs 1 --shuffled 0 --seed %d -o test/ -- node main.js", test.Seed)
	d.say("  licorice detect --spec cache.spec.json test/")
	d.line()
	d.say("(%s in %.1f s.)", "Done", time.Since(start).Seconds())
	return d.err
}

// isNodeBug reports whether a report is about the example's known bug.
func isNodeBug(hs []string) bool {
	a, b := pairOf(hs)
	return a == nodeBugGen && b == nodeBugReq || a == nodeBugReq && b == nodeBugGen
}
