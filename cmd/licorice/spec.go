package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/learn"
	"github.com/spf13/cobra"
)

func newSpecCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "spec",
		Short: "Show and merge precondition specs (what 'licorice learn' writes)",
		Long: `A spec is the JSON file "licorice learn" writes: per event handler, the
preconditions it relies on, each with its support and confidence, and the
learning state that lets specs learned on shards of the traces be merged.`,
	}
	cmd.AddCommand(newSpecShowCmd(), newSpecMergeCmd(), newSpecCheckCmd())
	return cmd
}

func newSpecShowCmd() *cobra.Command {
	var (
		handler  string
		disabled bool
		verbose  bool
		out      output
	)
	cmd := &cobra.Command{
		Use:   "show SPEC",
		Short: "Print a spec's conditions, one per line",
		Long: `Show prints the conditions of a spec, one per line, in canonical form:

  TrackDetailActivity.onUpdateResults: this.dataHub != null
  TrackDetailActivity.onTabSelected: this.tab in {0, 1, 2}

Names are symbolic: "this" is the handler's receiver; other objects are
named by their allocation site and creation order (Class.method:LINE#1),
statics by their class, objects never seen allocated by their id (@o17).

Example:

  licorice spec show mytracks.spec.json --handler TrackDetailActivity.onPause -v

With -v each line ends with the condition's support (the samples it was
checked on) and confidence (1 minus the chance it held by accident).
Disabled conditions are left out unless --disabled is given.`,
		Args: argsFor(1, 1, "the spec file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.check(args[0]); err != nil {
				return fmt.Errorf("spec show: %w", err)
			}
			sp, err := readSpec(cmd, args[0], learn.ReadOptions{SkipState: true})
			if err != nil {
				return err
			}
			hs := sp.Handlers
			if handler != "" {
				h := sp.Handler(handler)
				if h == nil {
					return fmt.Errorf("spec show: %s has no handler %q%s", args[0], handler, suggestHandler(sp, handler))
				}
				hs = []*learn.Handler{h}
			}
			return out.write(cmd, func(w io.Writer, _ bool) error {
				bw := bufio.NewWriter(w)
				for _, h := range hs {
					for _, c := range h.Conditions {
						if c.Disabled && !disabled {
							continue
						}
						line := c.Text()
						if verbose {
							line += fmt.Sprintf("  [support %d, confidence %s]", c.Support, formatConfidence(c.Confidence))
						}
						if c.Disabled {
							line += "  (disabled)"
						}
						if c.Pinned {
							line += "  (pinned)"
						}
						fmt.Fprintln(bw, line)
					}
				}
				return bw.Flush()
			})
		},
	}
	fl := cmd.Flags()
	out.register(cmd, "the conditions")
	fl.StringVar(&handler, "handler", "", "show only this handler's conditions")
	fl.BoolVar(&disabled, "disabled", false, "show disabled conditions too")
	fl.BoolVarP(&verbose, "verbose", "v", false, "show each condition's support and confidence")
	return cmd
}

// formatConfidence writes a confidence so that 0.99999999 does not read as 1.
func formatConfidence(c float64) string {
	if c >= 1 {
		return "1"
	}
	s := fmt.Sprintf("%.4f", c)
	if s == "1.0000" {
		return "0.9999+"
	}
	return s
}

// suggestHandler names handlers that contain the one asked for.
func suggestHandler(sp *learn.Spec, name string) string {
	var near []string
	for _, h := range sp.Handlers {
		if strings.Contains(strings.ToLower(h.Name), strings.ToLower(name)) {
			near = append(near, h.Name)
		}
	}
	if len(near) == 0 || len(near) > 5 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

func newSpecMergeCmd() *cobra.Command {
	var (
		out   string
		force bool
	)
	cmd := &cobra.Command{
		Use:   "merge SPEC... -o SPEC",
		Short: "Combine specs learned on shards of the traces",
		Long: `Merge combines specs learned on disjoint sets of training traces into the
spec of all of them: the same, byte for byte, as learning on all the traces
at once. So learning can be split across machines. The specs must have been
learned with --mergeable (which keeps the state of every datum and pair of
data: without it, a spec keeps only those met in --min-samples samples or
more, and a merge would lack the samples of the others), and with the same
--confidence, --min-samples and --templates.

A user's edits survive: a condition disabled (or deleted) in an input is
disabled in the output; a pinned condition is kept.

Example:

  licorice learn --mergeable train/a/ -o a.spec.json
  licorice learn --mergeable train/b/ -o b.spec.json
  licorice spec merge a.spec.json b.spec.json -o all.spec.json`,
		Args: argsFor(1, -1, "the spec files to merge"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("spec merge: -o SPEC is required")}
			}
			if out != "-" {
				if err := atomicfile.Check(out, args...); err != nil {
					return fmt.Errorf("spec merge: %w", err)
				}
			}
			if err := oneStdin(args...); err != nil {
				return err
			}
			var specs []*learn.Spec
			for _, path := range args {
				sp, err := readSpec(cmd, path, learn.ReadOptions{})
				if err != nil {
					return err
				}
				specs = append(specs, sp)
			}
			merged, err := learn.MergeWith(learn.MergeOptions{Force: force}, specs...)
			if err != nil {
				return err
			}
			if out == "-" {
				return merged.Encode(cmd.OutOrStdout())
			}
			if err := merged.WriteFile(out); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "merged %s (%s): %s for %s; wrote %s\n",
				count(len(specs), "spec"), count(merged.Traces, "trace"), count(len(merged.Conditions()), "condition"),
				count(len(merged.Handlers), "handler"), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", `the spec file to write ("-": standard output)`)
	cmd.Flags().BoolVar(&force, "force", false, "merge specs of different apps, learned from some of the same traces, or learned without --mergeable (inexact)")
	return cmd
}

func newSpecCheckCmd() *cobra.Command {
	var (
		jobs    int
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "check SPEC TRACE|DIR...",
		Short: "Check a spec against correct executions it was not learned from",
		Long: `Check replays correct executions (a trace with an error op up to it) and
evaluates every condition of the spec each time an invocation realizes it,
on the values its data had when the event began, as detection does. A
condition that a correct execution falsifies is a false precondition: more
(or more varied, shuffled) training traces would have dropped it.

It prints each falsified condition with how often it was checked and failed
and where it first failed, then a summary. With -v it also lists the
conditions no invocation realized: their handler never ran, or their data
were not read live-in or are named differently (allocation sites carry
source lines: a spec learned from another version of the app does not
match). It exits with status 1 if a condition was falsified.

Example:

  licorice record --app mytracks --runs 20 --seed 1000 -o test/
  licorice spec check mytracks.spec.json test/`,
		Args: argsFor(2, -1, "the spec file, then the traces to check it on"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if jobs < 0 {
				return usageError{fmt.Errorf("spec check: -j %d: want 0 (one per CPU) or more", jobs)}
			}
			if err := oneStdin(args...); err != nil {
				return err
			}
			sp, err := readSpec(cmd, args[0], learn.ReadOptions{SkipState: true})
			if err != nil {
				return err
			}
			paths, err := learn.TracePaths(args[1:])
			if err != nil {
				return fmt.Errorf("spec check: %w", err)
			}
			bar := progress.New(cmd.ErrOrStderr(), "check", "traces", int64(len(paths)))
			res, err := learn.Check(cmd.Context(), sp, paths, learn.CheckOptions{Workers: jobs, Stdin: cmd.InOrStdin()})
			bar.Done()
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, c := range res.Cut {
				if c.Whole {
					fmt.Fprintf(w, "left out %s: an error at line %d, and standard input cannot be read again: %s\n", c.Path, c.Line, c.Msg)
					continue
				}
				fmt.Fprintf(w, "cut %s:%d: checked up to its error: %s\n", c.Path, c.Line, c.Msg)
			}
			never := 0
			for _, v := range res.Verdicts {
				if v.Checked == 0 {
					never++
					if verbose {
						fmt.Fprintf(w, "never realized: %s\n", v.Cond.Text())
					}
				}
				if v.Failed > 0 {
					fmt.Fprintf(w, "falsified: %s  (%d of %d checks; first at %s:%d)\n", v.Cond.Text(), v.Failed, v.Checked, v.FirstFile, v.FirstLine)
				}
			}
			bad := len(res.Falsified())
			share := 0.0
			if n := len(res.Verdicts); n > 0 {
				share = 100 * float64(bad) / float64(n)
			}
			fmt.Fprintf(w, "%s checked on %s (%s cut at an error): %d falsified (%.1f%%), %d never realized\n",
				count(len(res.Verdicts), "condition"), count(res.Traces, "trace"), count(len(res.Cut), "trace"), bad, share, never)
			if bad > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().IntVarP(&jobs, "jobs", "j", 0, "traces to read at once (0: one per CPU)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "also list the conditions no invocation realized")
	return cmd
}
