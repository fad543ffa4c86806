package main

import (
	"errors"
	"fmt"
	"io"
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
		seed      int64
		out       string
		format    string
		noSource  bool
	)
	cmd := &cobra.Command{
		Use:   "record --app NAME -o DIR",
		Short: "Run a benchmark app in the shuffle runtime and write its traces",
		Long: `Record runs one of licorice's benchmark apps (see --list) in the deterministic
event-loop runtime, with random user input (a "monkey"), and writes one trace
per run to DIR, named APP-NNN.lct (or .jsonl with --format jsonl).

A share of the runs (--shuffled, default one half) is shuffled: the
generation of half of the events is delayed by an exponentially distributed
time of mean --delay-mean, cut short when the target queue is empty (thesis
§5.3.4). Run i uses seed --seed+i; the same flags write the same bytes.

It prints one line per run that crashed (an error op: the run is not a
correct execution, and training skips it) with the harmful race it hit, and
a summary. Other traces of the app already in DIR (from an earlier, longer
batch) are left alone and reported on standard error.

Example:

  licorice record --app mytracks --runs 50 --actions 1000 -o train/
  licorice record --list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			if list {
				return listApps(w)
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
			if runs < 1 {
				return usageError{fmt.Errorf("record: --runs %d: want at least 1", runs)}
			}
			if actions < 1 {
				return usageError{fmt.Errorf("record: --actions %d: want at least 1", actions)}
			}
			if shuffled < 0 || shuffled > 1 {
				return usageError{fmt.Errorf("record: --shuffled %v: want a fraction from 0 to 1", shuffled)}
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
				Runs: runs, Actions: actions, Shuffled: shuffled, DelayMean: delayMean,
				Seed: seed, Format: f, NoSource: noSource,
				Progress: func(int) { bar.Add(1) },
			}
			sums, err := b.Record(cmd.Context())
			bar.Done()
			if err != nil {
				return err
			}
			printSummary(w, a, out, sums)
			warnStale(cmd.ErrOrStderr(), a.Name, out, sums)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&app, "app", "", "the app to run (see --list)")
	fl.BoolVar(&list, "list", false, "describe the apps and their known bugs, and exit")
	fl.IntVar(&runs, "runs", 50, "how many traces to write")
	fl.IntVar(&actions, "actions", 1000, "monkey actions per run")
	fl.Float64Var(&shuffled, "shuffled", 0.5, "fraction of the runs that are shuffled")
	fl.DurationVar(&delayMean, "delay-mean", 10*time.Millisecond, "mean shuffle delay of an event's generation")
	fl.Int64Var(&seed, "seed", 1, "seed of the first run; run i uses seed+i")
	fl.StringVarP(&out, "out", "o", "", "directory to write the traces to")
	fl.StringVar(&format, "format", "lct", "trace format: lct, jsonl or jsonl.zst")
	fl.BoolVar(&noSource, "no-src", false, "leave out source locations (smaller traces; faster recording except on amd64)")
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
	var ops int64
	shuffledRuns, crashed := 0, 0
	for _, s := range sums {
		ops += s.Ops
		if s.Shuffled {
			shuffledRuns++
		}
		if s.Crash != "" {
			crashed++
			kind := "regular"
			if s.Shuffled {
				kind = "shuffled"
			}
			fmt.Fprintf(w, "crashed: %s (seed %d, %s): %s%s\n", s.File, s.Seed, kind, s.Crash, raceOf(app, s.Crash))
		}
	}
	fmt.Fprintf(w, "wrote %d traces of %s to %s (%d shuffled, %d operations): %d correct, %d crashed\n",
		len(sums), app.Name, dir, shuffledRuns, ops, len(sums)-crashed, crashed)
}

// warnStale reports traces of app in dir that this batch did not write:
// a directory read later as a whole would mix them in.
func warnStale(w io.Writer, app, dir string, sums []shuffle.RunSummary) {
	written := make(map[string]bool, len(sums))
	for _, s := range sums {
		written[filepath.Base(s.File)] = true
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
