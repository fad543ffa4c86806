package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/eval"
	"github.com/licorice-dev/licorice/recorders/nodejs"
	"github.com/spf13/cobra"
)

func newEvalCmd() *cobra.Command {
	var (
		appNames     []string
		trainRuns    int
		trainActions int
		testRuns     int
		testActions  int
		seed         int64
		window       time.Duration
		keep         string
		format       string
		out          output
		node         bool
		bugs         []string
	)
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Compare licorice with the race detector on the benchmark apps (thesis Table 5.1)",
		Long: `Eval measures how much inspection work licorice saves over a plain race
detector without losing harmful bugs, as thesis §5.6 does (Table 5.1).

For each benchmark app (see "licorice record --list") it records training runs
(half of them shuffled) and test runs with fixed seeds, learns a spec from the
training runs, runs the race detector and licorice on the same test runs, and
compares both with the app's ground truth: its harmful handler pairs.

The table has one line per app:

  harmful            the app's harmful handler pairs
  races: groups      race groups (kind, location, handler pair) with races
                     between events of one looper thread, over the test runs
  licorice: reports  licorice's report groups (handler pair, condition)
  harmful found      harmful pairs some group of the tool is about
  missed             harmful pairs no group is about
  reduction          1 - licorice reports / race groups

Seeds are fixed: the same flags give the same table. It takes a minute or two
with the defaults (the thesis' sizes); --train-runs and the action counts make
it quicker.

With --node it evaluates real ordering bugs of published npm packages
instead (eval/nodebugs: each bug's harness drives the package's buggy and
fixed versions, installed from the npm registry at pinned versions): for
each version, training runs of the harness under the Node.js recorder,
learning, test runs, races and licorice on the same test runs; a row per
bug and a row per fixed version, where the bug's pair must not be reported.
Node's schedules depend on the machine, so the Node table may vary a little
from run to run; the seeds fix the shuffler's decisions.

Example:

  licorice eval
  licorice eval --app mytracks --app connectbot --format json
  licorice eval --node
  licorice eval --node --bug aka --train-runs 20`,
		Args: argsFor(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, n := range []struct {
				name string
				v    int
			}{{"--train-runs", trainRuns}, {"--train-actions", trainActions}, {"--test-runs", testRuns}, {"--test-actions", testActions}} {
				if n.v < 1 {
					return usageError{fmt.Errorf("eval: %s %d: want at least 1", n.name, n.v)}
				}
			}
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("eval: --format %q: want text or json", format)}
			}
			if window < 0 {
				return usageError{fmt.Errorf("eval: --window %v: want 0 (exact) or a positive duration", window)}
			}
			if err := out.check(); err != nil {
				return fmt.Errorf("eval: %w", err)
			}
			if node {
				return evalNode(cmd, nodeEvalOptions{bugs: bugs, trainRuns: trainRuns, testRuns: testRuns, seed: seed, window: window, keep: keep, format: format, out: out})
			}
			if len(bugs) > 0 {
				return usageError{fmt.Errorf("eval: --bug is for --node")}
			}
			list, err := eval.Lookup(appNames)
			if err != nil {
				return usageError{fmt.Errorf("eval: %w", err)}
			}
			cfg := eval.Config{
				Apps: list, TrainRuns: trainRuns, TrainActions: trainActions, Shuffled: 0.5,
				TestRuns: testRuns, TestActions: testActions, Seed: seed, Window: window, Dir: keep,
			}
			stderr := cmd.ErrOrStderr()
			if colorOK(stderr) {
				cfg.Progress = func(app, stage string) { fmt.Fprintf(stderr, "\r\033[K%s: %s", app, stage) }
			}
			t, err := eval.Run(cmd.Context(), cfg)
			if cfg.Progress != nil {
				fmt.Fprint(stderr, "\r\033[K")
			}
			if err != nil {
				return err
			}
			return out.write(cmd, func(w io.Writer, _ bool) error {
				if format == "json" {
					return t.WriteJSON(w)
				}
				return t.WriteText(w)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&appNames, "app", nil, "evaluate only these apps (repeatable; default all)")
	fl.IntVar(&trainRuns, "train-runs", 50, "training runs per app (half of them shuffled)")
	fl.IntVar(&trainActions, "train-actions", 1000, "monkey actions per training run")
	fl.IntVar(&testRuns, "test-runs", 3, "test runs per app")
	fl.IntVar(&testActions, "test-actions", 2000, "monkey actions per test run")
	fl.Int64Var(&seed, "seed", 1, "seed of the first training run (test runs use seed+100000...)")
	fl.DurationVar(&window, "window", asyncclock.DefaultWindow, "AsyncClock's time window for both detectors (0: exact)")
	fl.StringVar(&keep, "keep", "", "keep the traces and specs in this directory (default: a temporary one, removed)")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	out.register(cmd, "the table")
	fl.BoolVar(&node, "node", false, "evaluate the real bugs of npm packages (eval/nodebugs) with the Node.js recorder")
	fl.StringSliceVar(&bugs, "bug", nil, "with --node: evaluate only these bugs (repeatable; default all)")
	return cmd
}

// nodeEvalOptions are eval's flags for --node.
type nodeEvalOptions struct {
	bugs      []string
	trainRuns int
	testRuns  int
	seed      int64
	window    time.Duration
	keep      string
	format    string
	out       output
}

// evalNode runs `eval --node`.
func evalNode(cmd *cobra.Command, o nodeEvalOptions) error {
	for _, name := range []string{"app", "train-actions", "test-actions"} {
		if cmd.Flags().Changed(name) {
			return usageError{fmt.Errorf("eval: --%s is for the benchmark apps, not for --node", name)}
		}
	}
	rec, err := nodejs.Locate()
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	root, err := eval.LocateNodeBugs(rec)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	list, err := eval.LookupNodeBugs(root, o.bugs)
	if err != nil {
		if errors.Is(err, eval.ErrNoNodeBugs) {
			return usageError{fmt.Errorf("eval: %w", err)}
		}
		return fmt.Errorf("eval: %w", err)
	}
	cfg := eval.NodeConfig{
		Root: root, Recorder: rec, Bugs: list, TrainRuns: o.trainRuns, TestRuns: o.testRuns,
		Seed: o.seed, Window: o.window, Dir: o.keep,
	}
	stderr := cmd.ErrOrStderr()
	if colorOK(stderr) {
		cfg.Progress = func(row, stage string) { fmt.Fprintf(stderr, "\r\033[K%s: %s", row, stage) }
	}
	t, err := eval.RunNode(cmd.Context(), cfg)
	if cfg.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	return o.out.write(cmd, func(w io.Writer, _ bool) error {
		if o.format == "json" {
			return t.WriteJSON(w)
		}
		return t.WriteText(w)
	})
}
