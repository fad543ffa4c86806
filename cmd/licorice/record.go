package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
	"github.com/spf13/cobra"
)

func newRecordCmd() *cobra.Command {
	var (
		app       string
		list      bool
		runs      int
		actions   int
		shuffled  float64
		delayMean time.Duration
		reach     float64
		seed      int64
		out       string
		format    string
		noSource  bool
		globs     []string
		timeout   time.Duration
		force     bool
	)
	cmd := &cobra.Command{
		Use:   "record --app NAME -o DIR | record [flags] -o DIR -- node PROGRAM [ARGS...]",
		Short: "Record executions: a benchmark app, or your Node.js program",
		Long: `Record runs a program many times and writes one trace per run to DIR, named
APP-NNN.lct (or .jsonl with --format jsonl). DIR must be new or hold no
traces: a corpus is one batch (--force writes among the traces there).

With -- node PROGRAM [ARGS...], it runs your Node.js program under licorice's
recorder (recorders/node; see docs/node.md): every callback the event loop
runs is an event, with the sends and orders Node guarantees; reads and
writes of object properties and of module-level and captured variables are
recorded with their values by a load-time transform of the program's own
files (not node_modules; --instrument adds files or packages). The program's
output is not shown. APP is --app, or the program's file name. A run that
throws, exits with a failing status or outlives --timeout is written and
marked: learn uses it only up to the error. Shuffled runs (--shuffled) delay timers and fs
callbacks by seeded random amounts, never breaking an order Node guarantees.

Without a command, it runs one of licorice's benchmark apps (see --list) in
the deterministic event-loop runtime, with random user input (a "monkey").
A share of the runs (--shuffled, default one half) is shuffled: the
generation of half of the events is delayed by an exponentially distributed
time of mean --delay-mean, cut short when the target queue is empty (thesis
§5.3.4), and a few sends and events (--reach, 5%; the first of each handler
ten times as often) are postponed far, up to a second, so that events far
apart in time run in the other order too. Run i uses seed --seed+i; the same flags write the same bytes (for a
Node.js program, the same shuffling decisions: Node's own timing varies).

It prints one line per run that crashed (an error op: the run is not a
correct execution, and learning uses it only up to the error) with the harmful race it hit, and
a summary. Other traces of the app already in DIR (from an earlier, longer
batch) are left alone and reported on standard error.

Examples:

  licorice record --app mytracks --runs 50 --actions 1000 -o train/
  licorice record --list
  licorice record --runs 50 -o train/ -- node server-test.js
  licorice record --runs 1 --shuffled 0 --instrument agentkeepalive -o test/ -- node harness.js`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() < 0 && len(args) > 0 {
				return usageError{fmt.Errorf("record: unexpected argument %q: a program to record follows --, as in -- node PROGRAM", args[0])}
			}
			if cmd.ArgsLenAtDash() > 0 {
				return usageError{fmt.Errorf("record: unexpected argument %q before --", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			if list {
				return listApps(w)
			}
			if cmd.ArgsLenAtDash() == 0 {
				for _, name := range []string{"actions", "no-src"} {
					if cmd.Flags().Changed(name) {
						return usageError{fmt.Errorf("record: --%s is for the benchmark apps, not for a program", name)}
					}
				}
				return recordNode(cmd, nodeOptions{
					app: app, command: args, out: out, runs: runs, shuffled: shuffled, delayMean: delayMean,
					seed: seed, globs: globs, timeout: timeout, format: format, force: force,
				})
			}
			for _, name := range []string{"instrument", "timeout"} {
				if cmd.Flags().Changed(name) {
					return usageError{fmt.Errorf("record: --%s is for a program (-- node PROGRAM), not for a benchmark app", name)}
				}
			}
			if app == "" {
				return usageError{errors.New("record: --app is required (see --list)")}
			}
			a, ok := apps.Lookup(app)
			if !ok {
				return usageError{fmt.Errorf("record: unknown app %q (known: %s)", app, strings.Join(appNames(), ", "))}
			}
			if out == "" {
				return usageError{errors.New("record: -o DIR is required")}
			}
			if err := checkOutDir(out, force); err != nil {
				return err
			}
			if runs < 1 {
				return usageError{fmt.Errorf("record: --runs %d: want at least 1", runs)}
			}
			if actions < 1 {
				return usageError{fmt.Errorf("record: --actions %d: want at least 1", actions)}
			}
			if shuffled < 0 || shuffled > 1 {
				return usageError{fmt.Errorf("record: --shuffled %v: want a fraction from 0 to 1", shuffled)}
			}
			if reach < 0 || reach > 1 {
				return usageError{fmt.Errorf("record: --reach %v: want a fraction from 0 to 1", reach)}
			}
			if delayMean <= 0 {
				return usageError{fmt.Errorf("record: --delay-mean %v: want a positive duration", delayMean)}
			}
			f, err := traces.ParseFormat(format)
			if err != nil {
				return usageError{fmt.Errorf("record: --format: %w", err)}
			}
			bar := progress.New(cmd.ErrOrStderr(), "record "+a.Name, "runs", int64(runs))
			b := shuffle.Batch{
				App: a.Name, Main: a.Main, Dir: out,
				Runs: runs, Actions: actions, Shuffled: shuffled, DelayMean: delayMean, Reach: cmp.Or(reach, -1),
				Seed: seed, Format: f, NoSource: noSource,
				Progress: func(int) { bar.Add(1) },
			}
			sums, err := b.Record(cmd.Context())
			bar.Done()
			if err != nil {
				return err
			}
			printSummary(w, a, out, sums)
			paths := make([]string, len(sums))
			for i, s := range sums {
				paths[i] = s.File
			}
			warnStaleFiles(cmd.ErrOrStderr(), a.Name, out, paths)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&app, "app", "", "the benchmark app to run (see --list); with a program, the name of its traces")
	fl.BoolVar(&list, "list", false, "describe the apps and their known bugs, and exit")
	fl.IntVar(&runs, "runs", 50, "how many traces to write")
	fl.IntVar(&actions, "actions", 1000, "monkey actions per run")
	fl.Float64Var(&shuffled, "shuffled", 0.5, "fraction of the runs that are shuffled")
	fl.DurationVar(&delayMean, "delay-mean", 10*time.Millisecond, "mean shuffle delay of an event's generation")
	fl.Float64Var(&reach, "reach", 0.05, "in shuffled runs, the share of sends and events postponed far (0: none)")
	fl.Int64Var(&seed, "seed", 1, "seed of the first run; run i uses seed+i")
	fl.StringVarP(&out, "out", "o", "", "directory to write the traces to (new or empty, unless --force)")
	fl.BoolVar(&force, "force", false, "write into a directory that already holds traces (same-named ones are replaced)")
	fl.StringVar(&format, "format", "lct", "trace format: lct, jsonl or jsonl.zst")
	fl.BoolVar(&noSource, "no-src", false, "leave out source locations (smaller traces; faster recording except on amd64)")
	fl.StringArrayVar(&globs, "instrument", nil, "a program: also instrument these files (a glob relative to the working directory, or a package name); repeatable")
	fl.DurationVar(&timeout, "timeout", time.Minute, "a program: stop a run that is still going after this long, and mark it crashed (0: never)")
	return cmd
}

func appNames() []string {
	var names []string
	for _, a := range apps.All() {
		names = append(names, a.Name)
	}
	return names
}

// listApps describes every app: what it is, its bug, its harmful pairs.
func listApps(w io.Writer) error {
	for i, a := range apps.All() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s — %s\n", a.Name, a.Title)
		fmt.Fprintln(w, wrap(a.Description, 78, "  "))
		if len(a.Harmful) == 0 {
			fmt.Fprintln(w, "  harmful: none (every race is harmless)")
		}
		for _, r := range a.Harmful {
			fmt.Fprintf(w, "  harmful: %s / %s on %s\n", r.A, r.B, r.Data)
		}
		for _, r := range a.Harmless {
			fmt.Fprintf(w, "  harmless: %s / %s on %s\n", r.A, r.B, r.Data)
		}
	}
	return nil
}

// wrap fills text into lines of at most width characters, each indented.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line)
			b.WriteByte('\n')
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}

// printSummary tells which runs crashed, with the harmful race each hit,
// and how many are correct.
func printSummary(w io.Writer, app *apps.App, dir string, sums []shuffle.RunSummary) {
	runs := make([]recordedRun, len(sums))
	for i, s := range sums {
		runs[i] = recordedRun{s.File, s.Seed, s.Shuffled, s.Ops, s.Crash}
		if s.Crash != "" {
			runs[i].crash += raceOf(app, s.Crash)
		}
	}
	writeRecorded(w, app.Name, dir, runs)
}

// recordedRun is what a record summary says of one run.
type recordedRun struct {
	file     string
	seed     int64
	shuffled bool
	ops      int64
	crash    string // "" for a correct run
}

// writeRecorded prints a line per run that crashed, then the batch's
// totals, and returns how many runs crashed.
func writeRecorded(w io.Writer, app, dir string, runs []recordedRun) int {
	var ops int64
	shuffledRuns, crashed := 0, 0
	for _, r := range runs {
		ops += r.ops
		if r.shuffled {
			shuffledRuns++
		}
		if r.crash != "" {
			crashed++
			kind := "regular"
			if r.shuffled {
				kind = "shuffled"
			}
			fmt.Fprintf(w, "crashed: %s (seed %d, %s): %s\n", r.file, r.seed, kind, r.crash)
		}
	}
	fmt.Fprintf(w, "wrote %d traces of %s to %s (%d shuffled, %d operations): %d correct, %d crashed\n",
		len(runs), app, dir, shuffledRuns, ops, len(runs)-crashed, crashed)
	return crashed
}

// checkOutDir refuses to record into a directory that already holds
// traces, unless force: the new runs would replace some of them and mix
// with the others, and a later learn would read both corpora as one.
func checkOutDir(dir string, force bool) error {
	if force {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // missing: it will be made; anything else shows when writing
	}
	var found []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		if _, err := traces.FormatOf(name); err == nil {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return usageError{fmt.Errorf("record: %s already holds %d traces (%s, ...): record into a new or empty directory, or add --force to write among them (same-named traces are replaced)", dir, len(found), found[0])}
}

// warnStaleFiles reports traces of app in dir that this batch did not
// write: a directory read later as a whole would mix them in.
func warnStaleFiles(w io.Writer, app, dir string, files []string) {
	written := make(map[string]bool, len(files))
	for _, f := range files {
		written[filepath.Base(f)] = true
	}
	matches, err := filepath.Glob(filepath.Join(dir, app+"-*"))
	if err != nil {
		return
	}
	stale := 0
	for _, m := range matches {
		if !written[filepath.Base(m)] && !strings.HasPrefix(filepath.Base(m), ".") {
			stale++
		}
	}
	if stale > 0 {
		fmt.Fprintf(w, "licorice: note: %s also holds %d other traces of %s, not written by this run\n", dir, stale, app)
	}
}

// raceOf names the harmful race whose symptom a crash shows, if any.
func raceOf(app *apps.App, crash string) string {
	for _, r := range app.Harmful {
		if r.Symptom != "" && strings.Contains(crash, r.Symptom) {
			return fmt.Sprintf(" (the race %s / %s on %s)", r.A, r.B, r.Data)
		}
	}
	return ""
}
