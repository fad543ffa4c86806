package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/licorice-dev/licorice/recorders/nodejs"
	"github.com/licorice-dev/licorice/traces"
)

// NodeBug is a documented ordering bug of a published npm package, with a
// harness that drives the package's buggy and fixed versions (installed
// side by side under npm aliases). It is read from DIR/bug.json under the
// real-bug folder (eval/nodebugs).
type NodeBug struct {
	ID      string `json:"id"`      // short name, also the folder's
	Package string `json:"package"` // the npm package
	Report  string `json:"report"`  // where it was reported (issue number)
	Title   string `json:"title"`   // one line: what races
	// Buggy and Fixed name the two versions: the npm alias each is
	// installed under (instrumented by the recorder) and the arguments
	// that make the harness use it.
	Buggy Version `json:"buggy"`
	Fixed Version `json:"fixed"`
	// Harmful are the handler pairs whose order is the bug. "{alias}" in a
	// handler's name (a source location in the package) stands for the
	// version's alias, so that the same pair is looked for in both.
	Harmful [][2]string `json:"harmful"`
	// Dir is the bug's folder (set when read).
	Dir string `json:"-"`
}

// Version is one side of a NodeBug.
type Version struct {
	Version string `json:"version"` // the npm version
	Alias   string `json:"alias"`   // the npm alias it is installed under
	// Instrument are the packages the recorder instruments (--instrument):
	// the alias, and the dependencies where the bug's code lives.
	Instrument []string `json:"instrument"`
	Args       []string `json:"args"` // the harness's arguments
}

// NodeBugs reads the bugs of the real-bug folder root, sorted by id.
func NodeBugs(root string) ([]*NodeBug, error) {
	files, err := filepath.Glob(filepath.Join(root, "*", "bug.json"))
	if err != nil {
		return nil, err
	}
	var bugs []*NodeBug
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var b NodeBug
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if b.ID != filepath.Base(filepath.Dir(f)) || len(b.Harmful) == 0 || len(b.Buggy.Instrument) == 0 || len(b.Fixed.Instrument) == 0 {
			return nil, fmt.Errorf("%s: want an id equal to the folder's name, harmful pairs, and what to instrument of both versions", f)
		}
		b.Dir = filepath.Dir(f)
		bugs = append(bugs, &b)
	}
	sort.Slice(bugs, func(i, j int) bool { return bugs[i].ID < bugs[j].ID })
	return bugs, nil
}

// LocateNodeBugs finds the real-bug folder (eval/nodebugs) of the
// checkout the recorder is in, and checks that its npm packages are
// installed (installing them from the lockfile if not).
func LocateNodeBugs(recorder string) (string, error) {
	root := filepath.Join(filepath.Dir(filepath.Dir(recorder)), "eval", "nodebugs")
	if _, err := os.Stat(filepath.Join(root, "package.json")); err != nil {
		return "", fmt.Errorf("the real-bug harnesses are not in %s", root)
	}
	if err := nodejs.InstallPackages(root); err != nil {
		return "", err
	}
	return root, nil
}

// NodeConfig is an evaluation on real bugs of npm packages.
type NodeConfig struct {
	Root      string     // the real-bug folder (LocateNodeBugs)
	Recorder  string     // the recorder's folder (nodejs.Locate)
	Bugs      []*NodeBug // the bugs to evaluate (all of NodeBugs(Root) if empty)
	TrainRuns int        // per version; default 50
	Shuffled  float64    // default 0.5
	TestRuns  int        // default 3
	// TestShuffled is the share of test runs that are shuffled (default
	// 1: on an idle machine, unshuffled runs of a small harness seldom
	// have the bug's events unordered; a loaded CI machine's often do).
	TestShuffled float64
	Seed         int64 // default 1; test run i uses Seed+TestSeedOffset+i
	Window       time.Duration
	Timeout      time.Duration // a run still going after it is stopped; default 1 minute
	Dir          string        // keeps the traces and specs; a temporary directory if empty
	Progress     func(row, stage string)
}

// NodeTable is the result: a row per bug and a row per fixed version.
type NodeTable struct {
	Version int          `json:"licorice_eval"` // of this JSON form: 1, as Table's
	Suite   string       `json:"suite"`         // "nodebugs": the real npm bugs (Table's is "apps")
	Config  NodeSettings `json:"config"`
	Rows    []NodeRow    `json:"rows"`
	Total   NodeRow      `json:"total"`
}

// NodeSettings is the part of a NodeConfig that shapes the numbers.
type NodeSettings struct {
	TrainRuns    int     `json:"train_runs"`
	Shuffled     float64 `json:"shuffled"`
	TestRuns     int     `json:"test_runs"`
	TestShuffled float64 `json:"test_shuffled"`
	Seed         int64   `json:"seed"`
	WindowMS     int64   `json:"window_ms"`
}

// NodeRow is one version's figures.
type NodeRow struct {
	Bug     string `json:"bug"`
	Package string `json:"package"`
	Version string `json:"version"`
	Fixed   bool   `json:"fixed"`
	// Harmful is the number of harmful pairs expected: the bug's on the
	// buggy version, none on the fixed one.
	Harmful      int  `json:"harmful"`
	Train        int  `json:"train"`
	TrainCorrect int  `json:"train_correct"`
	Conditions   int  `json:"conditions"`
	Test         int  `json:"test"`
	TestCrashed  int  `json:"test_crashed"`
	Races        Tool `json:"races"`
	Licorice     Tool `json:"licorice"`
	// Reduction is 1 - Licorice's reports / the races' groups.
	Reduction float64 `json:"reduction"`
}

// RunNode evaluates every bug's buggy and fixed versions in turn.
func RunNode(ctx context.Context, cfg NodeConfig) (*NodeTable, error) {
	if cfg.TrainRuns == 0 {
		cfg.TrainRuns = 50
	}
	if cfg.Shuffled == 0 {
		cfg.Shuffled = 0.5
	}
	if cfg.TestRuns == 0 {
		cfg.TestRuns = 3
	}
	if cfg.TestShuffled == 0 {
		cfg.TestShuffled = 1
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Minute
	}
	if len(cfg.Bugs) == 0 {
		bugs, err := NodeBugs(cfg.Root)
		if err != nil {
			return nil, err
		}
		if len(bugs) == 0 {
			return nil, fmt.Errorf("eval: no bug.json under %s", cfg.Root)
		}
		cfg.Bugs = bugs
	}
	dir := cfg.Dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "licorice-eval-node-")
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	t := &NodeTable{Version: 1, Suite: "nodebugs", Config: NodeSettings{
		TrainRuns: cfg.TrainRuns, Shuffled: cfg.Shuffled, TestRuns: cfg.TestRuns, TestShuffled: cfg.TestShuffled,
		Seed: cfg.Seed, WindowMS: cfg.Window.Milliseconds(),
	}}
	t.Total.Bug = "total"
	for _, b := range cfg.Bugs {
		for _, fixed := range []bool{false, true} {
			row, err := evalNodeBug(ctx, &cfg, b, fixed, dir)
			if err != nil {
				return nil, fmt.Errorf("eval %s: %w", rowName(b, fixed), err)
			}
			t.Rows = append(t.Rows, *row)
			t.Total.add(row)
		}
	}
	t.Total.Reduction = reduction(t.Total.Races.Reported, t.Total.Licorice.Reported)
	return t, nil
}

func rowName(b *NodeBug, fixed bool) string {
	if fixed {
		return b.ID + " (fixed)"
	}
	return b.ID
}

func (r *NodeRow) add(o *NodeRow) {
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
			p.to.Found = append(p.to.Found, rowName(&NodeBug{ID: o.Bug}, o.Fixed)+": "+f)
		}
		for _, m := range p.from.Missed {
			p.to.Missed = append(p.to.Missed, rowName(&NodeBug{ID: o.Bug}, o.Fixed)+": "+m)
		}
	}
}

func evalNodeBug(ctx context.Context, cfg *NodeConfig, b *NodeBug, fixed bool, dir string) (*NodeRow, error) {
	v := b.Buggy
	if fixed {
		v = b.Fixed
	}
	name := rowName(b, fixed)
	progress := func(stage string) {
		if cfg.Progress != nil {
			cfg.Progress(name, stage)
		}
	}
	row := &NodeRow{Bug: b.ID, Package: b.Package, Version: v.Version, Fixed: fixed, Train: cfg.TrainRuns, Test: cfg.TestRuns}
	if !fixed {
		row.Harmful = len(b.Harmful)
	}
	out := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
	batch := func(sub string, runs int, shuffled float64, seed int64) ([]nodejs.RunSummary, error) {
		bt := nodejs.Batch{
			Recorder: cfg.Recorder, Command: append([]string{"node", "harness.js"}, v.Args...),
			Dir: filepath.Join(out, sub), App: b.ID, Root: b.Dir,
			Runs: runs, Shuffled: shuffled, Seed: seed, Instrument: v.Instrument,
			Timeout: cfg.Timeout, Format: traces.LCT,
		}
		return bt.Record(ctx)
	}

	progress("record training runs")
	train, err := batch("train", cfg.TrainRuns, cfg.Shuffled, cfg.Seed)
	if err != nil {
		return nil, err
	}
	progress("learn")
	res, err := learnSpec(ctx, nodeFiles(train), filepath.Join(out, b.ID+".spec.json"))
	if err != nil {
		return nil, err
	}
	row.TrainCorrect = res.Traces
	row.Conditions = len(res.Spec.Conditions())

	progress("record test runs")
	test, err := batch("test", cfg.TestRuns, cfg.TestShuffled, cfg.Seed+TestSeedOffset)
	if err != nil {
		return nil, err
	}
	for _, s := range test {
		if s.Crash != "" {
			row.TestCrashed++
		}
	}
	paths := nodeFiles(test)

	harmful := make([][2]string, len(b.Harmful))
	for i, h := range b.Harmful {
		harmful[i] = [2]string{strings.ReplaceAll(h[0], "{alias}", v.Alias), strings.ReplaceAll(h[1], "{alias}", v.Alias)}
	}
	scoreBug := func(groups [][]string) ([]string, []string) { return scorePairs(harmful, groups, !fixed) }
	if row.Races, row.Licorice, err = compareTools(ctx, res.Spec, paths, cfg.Window, progress, scoreBug); err != nil {
		return nil, err
	}
	row.Reduction = reduction(row.Races.Reported, row.Licorice.Reported)
	return row, nil
}

// scorePairs returns the harmful pairs some group is about, and (if
// expected) the others.
func scorePairs(harmful [][2]string, groups [][]string, expected bool) (found, missed []string) {
	found, missed = []string{}, []string{}
	for _, h := range harmful {
		hit := slices.ContainsFunc(groups, func(g []string) bool {
			a, b := g[0], g[0]
			if len(g) > 1 {
				b = g[1]
			}
			return a == h[0] && b == h[1] || a == h[1] && b == h[0]
		})
		switch {
		case hit:
			found = append(found, h[0]+" / "+h[1])
		case expected:
			missed = append(missed, h[0]+" / "+h[1])
		}
	}
	return found, missed
}

func nodeFiles(sums []nodejs.RunSummary) []string {
	out := make([]string, len(sums))
	for i, s := range sums {
		out[i] = s.File
	}
	return out
}

// WriteText prints the table in the shape of the Android evaluation's: a
// row per bug and per fixed version.
func (t *NodeTable) WriteText(w io.Writer) error {
	c := t.Config
	fmt.Fprintf(w, "Training: %s per version (%.0f%% shuffled); testing: %s (%.0f%% shuffled); seed %d; window %s.\n\n",
		plural(c.TrainRuns, "run"), 100*c.Shuffled, plural(c.TestRuns, "run"), 100*c.TestShuffled, c.Seed, windowText(c.WindowMS))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bug\tpackage@version\tharmful\t|\traces: groups\tharmful found\tmissed\t|\tlicorice: reports\tharmful found\tmissed\t|\treduction\t")
	for _, r := range append(t.Rows, t.Total) {
		red := "n/a"
		if r.Races.Reported > 0 {
			red = fmt.Sprintf("%.0f%%", 100*r.Reduction)
		}
		pkg := ""
		if r.Package != "" {
			pkg = r.Package + "@" + r.Version
		}
		name := r.Bug
		if r.Fixed {
			name += " (fixed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t|\t%d\t%d\t%d\t|\t%d\t%d\t%d\t|\t%s\t\n", name, pkg, r.Harmful,
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
	_, err := fmt.Fprintf(w, "\nOn a fixed version, \"harmful found\" counts reports of the bug's pair: it should be 0.\n"+
		"races: groups of races between events of one looper thread (%d groups in all), merged over the test runs;\n"+
		"licorice: report groups (handler pair × condition); reduction: 1 - licorice reports / race groups.\n", t.Total.Races.All)
	return err
}

// WriteJSON writes the table as one indented JSON object.
func (t *NodeTable) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// ErrNoNodeBugs is returned by LookupNodeBugs for an unknown bug id.
var ErrNoNodeBugs = errors.New("unknown bug")

// LookupNodeBugs returns the bugs named by ids (all if ids is empty).
func LookupNodeBugs(root string, ids []string) ([]*NodeBug, error) {
	all, err := NodeBugs(root)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return all, nil
	}
	var out []*NodeBug
	for _, id := range ids {
		i := slices.IndexFunc(all, func(b *NodeBug) bool { return b.ID == id })
		if i < 0 {
			var known []string
			for _, b := range all {
				known = append(known, b.ID)
			}
			return nil, fmt.Errorf("%w %q (known: %s)", ErrNoNodeBugs, id, strings.Join(known, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}
