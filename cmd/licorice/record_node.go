package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/recorders/nodejs"
	"github.com/licorice-dev/licorice/traces"
	"github.com/spf13/cobra"
)

// nodeOptions are record's flags for a Node.js program.
type nodeOptions struct {
	app       string
	command   []string
	out       string
	runs      int
	shuffled  float64
	delayMean time.Duration
	seed      int64
	globs     []string
	timeout   time.Duration
	force     bool // record into a directory that holds traces
	format    string
}

// recordNode records runs of a Node.js program: `record -- node PROGRAM`.
func recordNode(cmd *cobra.Command, o nodeOptions) error {
	if len(o.command) < 2 {
		return usageError{errors.New("record: after -- give node and the program: -- node PROGRAM [ARGS...]")}
	}
	if o.out == "" {
		return usageError{errors.New("record: -o DIR is required")}
	}
	if err := checkOutDir(o.out, o.force); err != nil {
		return err
	}
	if o.runs < 1 {
		return usageError{fmt.Errorf("record: --runs %d: want at least 1", o.runs)}
	}
	if o.shuffled < 0 || o.shuffled > 1 {
		return usageError{fmt.Errorf("record: --shuffled %v: want a fraction from 0 to 1", o.shuffled)}
	}
	if o.delayMean <= 0 {
		return usageError{fmt.Errorf("record: --delay-mean %v: want a positive duration", o.delayMean)}
	}
	if o.timeout < 0 {
		return usageError{fmt.Errorf("record: --timeout %v: want a positive duration, or 0 for none", o.timeout)}
	}
	f, err := traces.ParseFormat(o.format)
	if err != nil {
		return usageError{fmt.Errorf("record: --format: %w", err)}
	}
	app := o.app
	if app == "" {
		app = programName(o.command)
	}
	rec, err := nodejs.Locate()
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if prog := programFile(o.command); prog != "" && nodejs.IsESModule(prog) {
		fmt.Fprintf(cmd.ErrOrStderr(), "licorice: note: %s is an ES module: its events are recorded, but ES modules are not instrumented yet, so its reads and writes are not (docs/node.md)\n", prog)
	}
	bar := progress.New(cmd.ErrOrStderr(), "record "+app, "runs", int64(o.runs))
	b := nodejs.Batch{
		Recorder: rec, Command: append([]string{}, o.command...), Dir: o.out, App: app,
		Runs: o.runs, Shuffled: o.shuffled, DelayMean: o.delayMean, Seed: o.seed,
		Instrument: o.globs, Timeout: o.timeout, Format: f,
		Progress: func(int) { bar.Add(1) },
	}
	sums, err := b.Record(cmd.Context())
	bar.Done()
	if err != nil {
		return err
	}
	printNodeSummary(cmd.OutOrStdout(), app, o.out, sums)
	paths := make([]string, len(sums))
	for i, s := range sums {
		paths[i] = s.File
	}
	warnStaleFiles(cmd.ErrOrStderr(), app, o.out, paths)
	return nil
}

// programFile is the program's path in a node command line: its first
// argument that is not an option ("" if there is none).
func programFile(command []string) string {
	for _, a := range command[1:] {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// programName is the name of a command's program file, without its
// extension: the first argument after node's own options.
func programName(command []string) string {
	for _, a := range command[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		base := filepath.Base(a)
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	return "node"
}

// printNodeSummary tells which runs crashed and how many are correct; if
// every run crashed, it shows the first one's standard error.
func printNodeSummary(w io.Writer, app, dir string, sums []nodejs.RunSummary) {
	runs := make([]recordedRun, len(sums))
	for i, s := range sums {
		runs[i] = recordedRun{s.File, s.Seed, s.Shuffled, s.Ops, s.Crash}
	}
	crashed := writeRecorded(w, app, dir, runs)
	notes := map[string]int{}
	var kinds []string
	for _, s := range sums {
		for _, n := range s.Notes {
			if notes[n] == 0 {
				kinds = append(kinds, n)
			}
			notes[n]++
		}
	}
	for _, n := range kinds {
		fmt.Fprintf(w, "note: the program started a %s in %d of %d runs: it is not recorded (its messages and its exit reach the program as I/O callbacks)\n", n, notes[n], len(sums))
	}
	if crashed == len(sums) && sums[0].Stderr != "" {
		fmt.Fprintf(w, "every run crashed; the first one's standard error ends:\n%s\n", indent(sums[0].Stderr, "  "))
	}
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
