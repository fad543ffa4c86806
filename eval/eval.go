package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
)

// Config is an evaluation's setup. The zero Config, after [Config.Defaults],
// is the thesis' (§5.6.1): 50 training runs of 1000 actions, half of them
// shuffled, and test runs of 2000 actions.
type Config struct {
	// Apps are the benchmark apps to evaluate (all of them if empty).
	Apps []*apps.App
	// TrainRuns runs of TrainActions monkey actions each are recorded for
	// training, the share Shuffled of them shuffled.
	TrainRuns, TrainActions int
	Shuffled                float64
	// TestRuns regular runs of TestActions actions are recorded for
	// testing.
	TestRuns, TestActions int
	// Seed is the seed of the first training run; training run i uses
	// Seed+i, test run i Seed+TestSeedOffset+i.
	Seed int64
	// Window is AsyncClock's time window, the same for races and detect.
	Window time.Duration
	// Dir keeps the recorded traces and specs (DIR/APP/train, test,
	// APP.spec.json); if empty they go to a temporary directory that is
	// removed at the end.
	Dir string
	// Progress, if set, is told what the evaluation is doing.
	Progress func(app, stage string)
}

// TestSeedOffset separates the seeds of test runs from those of training
// runs.
const TestSeedOffset = 100000

// Defaults fills in the thesis' setup where c leaves it zero.
func (c *Config) Defaults() {
	if len(c.Apps) == 0 {
		c.Apps = apps.All()
	}
	if c.TrainRuns == 0 {
		c.TrainRuns = 50
	}
	if c.TrainActions == 0 {
		c.TrainActions = 1000
	}
	if c.Shuffled == 0 {
		c.Shuffled = 0.5
	}
	if c.TestRuns == 0 {
		c.TestRuns = 3
	}
	if c.TestActions == 0 {
		c.TestActions = 2000
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
}

// Table is the result: one row per app and their total, shaped like
// thesis Table 5.1.
type Table struct {
	// Version is the version of this JSON form (1), under the key every
	// JSON output of licorice has: licorice_races, licorice_detect, ...
	Version int      `json:"licorice_eval"`
	Suite   string   `json:"suite"` // "apps": the benchmark apps (NodeTable's is "nodebugs")
	Config  Settings `json:"config"`
	Rows    []Row    `json:"apps"`
	Total   Row      `json:"total"`
}

// Settings is the part of a Config that shapes the numbers.
type Settings struct {
	TrainRuns    int     `json:"train_runs"`
	TrainActions int     `json:"train_actions"`
	Shuffled     float64 `json:"shuffled"`
	TestRuns     int     `json:"test_runs"`
	TestActions  int     `json:"test_actions"`
	Seed         int64   `json:"seed"`
	WindowMS     int64   `json:"window_ms"`
}

// Row is one app's figures.
type Row struct {
	App string `json:"app"`
	// Harmful is the number of harmful handler pairs the app declares.
	Harmful int `json:"harmful"`
	// Training: traces recorded, and the correct ones learned from.
	Train        int `json:"train"`
	TrainCorrect int `json:"train_correct"`
	Conditions   int `json:"conditions"` // learned
	// Test: traces recorded, and those that crashed (a harmful race
	// manifested).
	Test        int  `json:"test"`
	TestCrashed int  `json:"test_crashed"`
	Races       Tool `json:"races"`
	Licorice    Tool `json:"licorice"`
	// Reduction is 1 - Licorice's reports / the races' groups: the share
	// of the inspection work Licorice saves.
	Reduction float64 `json:"reduction"`
}

// Tool is what one detector reported on the test runs, against the
// ground truth.
type Tool struct {
	// Reported is the number of report groups: for races, the groups
	// (kind, location, handlers; elements of one array are one location)
	// with races between events of one looper thread, merged over the
	// test runs (the thesis' in-thread races); for Licorice, its reports.
	Reported int `json:"reported"`
	// All is, for races, every group, in-thread or not.
	All int `json:"all,omitempty"`
	// Found are the harmful pairs some report is about (by its two
	// handlers; for races, any of its groups, in-thread or not), Missed
	// the others; each "A / B".
	Found  []string `json:"found"`
	Missed []string `json:"missed"`
}

// Run evaluates every app of cfg in turn.
func Run(ctx context.Context, cfg Config) (*Table, error) {
	cfg.Defaults()
	dir := cfg.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "licorice-eval-")
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	t := &Table{Version: 1, Suite: "apps", Config: Settings{
		TrainRuns: cfg.TrainRuns, TrainActions: cfg.TrainActions, Shuffled: cfg.Shuffled,
		TestRuns: cfg.TestRuns, TestActions: cfg.TestActions, Seed: cfg.Seed, WindowMS: cfg.Window.Milliseconds(),
	}}
	t.Total.App = "total"
	for _, app := range cfg.Apps {
		row, err := evalApp(ctx, &cfg, app, filepath.Join(dir, app.Name))
		if err != nil {
			return nil, fmt.Errorf("eval %s: %w", app.Name, err)
		}
		t.Rows = append(t.Rows, *row)
		t.Total.add(row)
	}
	t.Total.Reduction = reduction(t.Total.Races.Reported, t.Total.Licorice.Reported)
	return t, nil
}

func (r *Row) add(o *Row) {
	r.Harmful += o.Harmful
	r.Train += o.Train
	r.TrainCorrect += o.TrainCorrect
	r.Conditions += o.Conditions
	r.Test += o.Test
	r.TestCrashed += o.TestCrashed
	for _, p := range []struct{ to, from *Tool }{{&r.Races, &o.Races}, {&r.Licorice, &o.Licorice}} {
		p.to.Reported += p.from.Reported
		p.to.All += p.from.All
		for _, f := range p.from.Found {
			p.to.Found = append(p.to.Found, o.App+": "+f)
		}
		for _, m := range p.from.Missed {
			p.to.Missed = append(p.to.Missed, o.App+": "+m)
		}
	}
}

func reduction(races, licorice int) float64 {
	if races == 0 {
		return 0
	}
	return 1 - float64(licorice)/float64(races)
}

func evalApp(ctx context.Context, cfg *Config, app *apps.App, dir string) (*Row, error) {
	progress := func(stage string) {
		if cfg.Progress != nil {
			cfg.Progress(app.Name, stage)
		}
	}
	row := &Row{App: app.Name, Harmful: len(app.Harmful), Train: cfg.TrainRuns, Test: cfg.TestRuns}

	progress("record training runs")
	train, err := record(ctx, app, filepath.Join(dir, "train"), cfg.TrainRuns, cfg.TrainActions, cfg.Shuffled, cfg.Seed, false)
	if err != nil {
		return nil, err
	}
	progress("learn")
	res, err := learnSpec(ctx, files(train), filepath.Join(dir, app.Name+".spec.json"))
	if err != nil {
		return nil, err
	}
	row.TrainCorrect = res.Traces
	row.Conditions = len(res.Spec.Conditions())

	progress("record test runs")
	test, err := record(ctx, app, filepath.Join(dir, "test"), cfg.TestRuns, cfg.TestActions, 0, cfg.Seed+TestSeedOffset, false)
	if err != nil {
		return nil, err
	}
	for _, s := range test {
		if s.Crash != "" {
			row.TestCrashed++
		}
	}
	paths := files(test)

	scoreApp := func(groups [][]string) ([]string, []string) { return score(app, groups) }
	if row.Races, row.Licorice, err = compareTools(ctx, res.Spec, paths, cfg.Window, progress, scoreApp); err != nil {
		return nil, err
	}
	row.Reduction = reduction(row.Races.Reported, row.Licorice.Reported)
	return row, nil
}

// record writes a batch of runs of app to dir, with source locations if
// src (twice as slow).
func record(ctx context.Context, app *apps.App, dir string, runs, actions int, shuffled float64, seed int64, src bool) ([]shuffle.RunSummary, error) {
	b := shuffle.Batch{
		App: app.Name, Main: app.Main, Dir: dir,
		Runs: runs, Actions: actions, Shuffled: shuffled, Seed: seed,
		Format: traces.LCT, NoSource: !src,
	}
	return b.Record(ctx)
}

func files(sums []shuffle.RunSummary) []string {
	out := make([]string, len(sums))
	for i, s := range sums {
		out[i] = s.File
	}
	return out
}

// learnSpec learns a spec from the training traces and writes it to path.
func learnSpec(ctx context.Context, train []string, path string) (*learn.Result, error) {
	res, err := learn.Learn(ctx, train, learn.Options{})
	if err != nil {
		return nil, err
	}
	if err := res.Spec.WriteFile(path); err != nil {
		return nil, err
	}
	return res, nil
}

// compareTools runs the race detector and licorice (with spec) on the same
// test traces and scores both: score turns a tool's groups (each a handler
// pair, or one handler) into the harmful pairs found and missed.
func compareTools(ctx context.Context, spec *learn.Spec, paths []string, window time.Duration,
	progress func(stage string), score func(groups [][]string) (found, missed []string)) (rc, lic Tool, err error) {
	progress("races")
	groups, err := raceGroups(ctx, paths, window, &rc)
	if err != nil {
		return rc, lic, err
	}
	rc.Found, rc.Missed = score(groups)

	progress("detect")
	det, err := detect.Detect(ctx, spec, paths, detect.Options{Window: window})
	if err != nil {
		return rc, lic, err
	}
	groups = groups[:0]
	for _, r := range det.Reports {
		groups = append(groups, r.Pairs()...) // a folded report shows its pair too
	}
	lic.Reported = len(det.Reports)
	lic.Found, lic.Missed = score(groups)
	return rc, lic, nil
}

// raceGroups runs the race detector on the test runs and counts its groups
// into t: Reported, the groups (kind, location, handler pair, merged over
// the runs; array elements folded as detect folds them, a[3] and a[4] one
// group) with races between events of one looper thread, All, every group.
// It returns the handler pairs of the groups, for scoring.
func raceGroups(ctx context.Context, paths []string, window time.Duration, t *Tool) ([][]string, error) {
	var reports []*races.Report
	for _, p := range paths {
		rep, err := raceReport(ctx, p, window)
		if err != nil {
			return nil, err
		}
		reports = append(reports, rep)
	}
	type raceKey struct {
		kind     races.Kind
		loc      string
		handlers [2]string
	}
	inThread := map[raceKey]bool{}
	var groups [][]string
	for _, m := range races.Merge(reports) {
		k := raceKey{m.Kind, detect.Pattern(m.Location), m.Handlers}
		had, seen := inThread[k]
		inThread[k] = had || m.InThread > 0
		if !seen {
			groups = append(groups, m.Handlers[:])
		}
	}
	t.All = len(inThread)
	for _, in := range inThread {
		if in {
			t.Reported++
		}
	}
	return groups, nil
}

func raceReport(ctx context.Context, path string, window time.Duration) (*races.Report, error) {
	r, err := traces.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return races.Detect(ctx, r, races.Config{Window: window})
}

// score returns the app's harmful pairs some group is about (by its
// handlers; a group of one handler is that handler with itself), and the
// others.
func score(app *apps.App, groups [][]string) (found, missed []string) {
	found, missed = []string{}, []string{} // [] in JSON
	for _, h := range app.Harmful {
		hit := slices.ContainsFunc(groups, func(g []string) bool {
			switch len(g) {
			case 1:
				return h.Involves(g[0], g[0])
			case 2:
				return h.Involves(g[0], g[1])
			}
			return false
		})
		name := h.A + " / " + h.B
		if hit {
			found = append(found, name)
		} else {
			missed = append(missed, name)
		}
	}
	return found, missed
}

// Lookup returns the apps of the given names (all if none), or an error
// naming the unknown ones.
func Lookup(names []string) ([]*apps.App, error) {
	if len(names) == 0 {
		return apps.All(), nil
	}
	var out []*apps.App
	var unknown []string
	for _, n := range names {
		a, ok := apps.Lookup(n)
		if !ok {
			unknown = append(unknown, n)
			continue
		}
		out = append(out, a)
	}
	if len(unknown) > 0 {
		var known []string
		for _, a := range apps.All() {
			known = append(known, a.Name)
		}
		return nil, fmt.Errorf("unknown app %s (known: %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return out, nil
}
