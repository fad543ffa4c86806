package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/learn"
	"github.com/spf13/cobra"
)

func newLearnCmd() *cobra.Command {
	var (
		out        string
		templates  string
		limit      float64
		minSamples int64
		jobs       int
		daikon     string
		mergeable  bool
	)
	cmd := &cobra.Command{
		Use:   "learn TRACE|DIR... -o SPEC",
		Short: "Learn the preconditions of every event handler from correct traces",
		Long: `Learn reads training traces (correct, preferably schedule-shuffled executions,
such as "licorice record" writes) and learns, for every event handler, the
conditions it relies on: the atomic conditions over the shared data it reads
live-in that held in every invocation and are unlikely to have held by chance
(thesis §5.3). A directory stands for the traces in it.

A trace with an error op is not a correct execution: it is learned from up
to the error, without the failing event and the events that caused it
(its sender, and so on: where the failure may have begun), and the summary
lists it as cut. A trace read from standard input cannot be read twice:
with an error op, it is left out whole. An invalid trace stops the run
with its file and line.

The spec (JSON) lists per handler its conditions, each with its support (the
samples it was checked on) and its confidence (1 minus the chance that it
held by accident), and keeps the learning state conditions can still come
of: that of the data and pairs of data met in --min-samples samples or more
(the others cannot yield one), without the pairs whose every relation is
broken. To know what that is, learn reads each trace twice: once to count,
once to learn. With --mergeable it reads each trace
once and keeps the state of every datum and pair met, so that specs learned
on shards combine with "licorice spec merge" into the spec of all the
traces; a handler that reads many data forms millions of pairs, most met
once, whose state then fills memory and the spec. Edit the spec freely:
delete a condition or mark it "disabled": true, or "pinned": true to keep it
through merges.

Example:

  licorice record --app mytracks --runs 50 -o train/
  licorice learn train/ -o mytracks.spec.json
  licorice spec show mytracks.spec.json

The summary says how many traces were used and cut at an error, how many handlers
and samples there were, and how many conditions of each kind were learned.`,
		Args: argsFor(1, -1, "the training traces (files or directories)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageError{errors.New("learn: -o SPEC is required")}
			}
			if !(limit > 0 && limit <= 1) {
				return usageError{fmt.Errorf("learn: --confidence %v: want a probability in (0, 1], such as 0.01", limit)}
			}
			if minSamples < 1 {
				return usageError{fmt.Errorf("learn: --min-samples %d: want at least 1", minSamples)}
			}
			if jobs < 0 {
				return usageError{fmt.Errorf("learn: -j %d: want 0 (one per CPU) or more", jobs)}
			}
			if err := oneStdin(append(args, templates)...); err != nil {
				return err
			}
			collectOften()
			paths, err := learn.TracePaths(args)
			if err != nil {
				return fmt.Errorf("learn: %w", err)
			}
			cat, err := loadCatalog(cmd, templates)
			if err != nil {
				return err
			}
			// Outputs are checked before minutes of learning, not after.
			if out != "-" {
				if err := atomicfile.Check(out, append(paths, templates)...); err != nil {
					return fmt.Errorf("learn: %w", err)
				}
			}
			if daikon != "" {
				if err := os.MkdirAll(daikon, 0o755); err != nil {
					return fmt.Errorf("learn: --emit-daikon: %w", err)
				}
			}
			opts := learn.Options{
				Catalog: cat, Limit: limit, MinSupport: minSamples, Workers: jobs,
				KeepSamples: daikon != "",
				Mergeable:   mergeable,
				Stdin:       cmd.InOrStdin(),
			}
			unit := "traces"
			if opts.Passes(paths) == 2 {
				unit = "trace reads (each trace counted, then learned)"
			}
			bar := progress.New(cmd.ErrOrStderr(), "learn", unit, int64(opts.Passes(paths)*len(paths)), progress.Also("ops read"))
			opts.Progress = func(int) { bar.Add(1) }
			opts.Ops = func(n int) { bar.AddAlso(int64(n)) }
			res, err := learn.Learn(cmd.Context(), paths, opts)
			bar.Done()
			if err != nil {
				return err
			}
			if out == "-" {
				err = res.Spec.Encode(cmd.OutOrStdout())
			} else {
				err = res.Spec.WriteFile(out)
			}
			if err != nil {
				return err
			}
			if daikon != "" {
				if err := learn.WriteDaikon(daikon, res); err != nil {
					return err
				}
			}
			w := cmd.OutOrStdout()
			if out == "-" {
				w = cmd.ErrOrStderr()
			}
			printLearnSummary(w, res, out, daikon)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "", `the spec file to write ("-": standard output)`)
	fl.StringVar(&templates, "templates", "", "a file of user templates to try besides the built-ins (see 'licorice templates')")
	fl.Float64Var(&limit, "confidence", invariants.DefaultLimit,
		"the largest chance that a condition held by accident; 0.01 is 99% confidence")
	fl.Int64Var(&minSamples, "min-samples", invariants.DefaultMinSupport, "the fewest samples a condition must have been checked on")
	fl.IntVarP(&jobs, "jobs", "j", 0, "traces to read at once (0: one per CPU)")
	fl.StringVar(&daikon, "emit-daikon", "", "also write the samples as Daikon .decls/.dtrace files to this directory (keeps the whole state, as --mergeable)")
	fl.BoolVar(&mergeable, "mergeable", false, `keep the learning state of every datum and pair of data met, not only of those met in --min-samples samples, so that "spec merge" combines the spec with others exactly; reads each trace once`)
	return cmd
}

// printLearnSummary says what was learned from what.
func printLearnSummary(w io.Writer, res *learn.Result, out, daikon string) {
	for _, c := range res.Cut {
		if c.Whole {
			fmt.Fprintf(w, "left out %s: an error at line %d, and standard input cannot be read again to learn from what came before: %s\n", c.Path, c.Line, c.Msg)
			continue
		}
		fmt.Fprintf(w, "cut %s:%d: learned from up to its error: %s\n", c.Path, c.Line, c.Msg)
	}
	sp := res.Spec
	kinds := map[string]int{}
	n := 0
	for _, c := range sp.Conditions() {
		kinds[c.Template]++
		n++
	}
	fmt.Fprintf(w, "learned %s for %s from %s (%s); %s cut at an error\n",
		count(n, "condition"), count(len(sp.Handlers), "handler"), count(res.Traces, "trace"),
		count(int(res.Samples), "sample"), count(len(res.Cut), "trace"))
	if n > 0 {
		var parts []string
		for _, t := range sp.Catalog().Templates() {
			if k := kinds[t.Name]; k > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", t.Name, k))
			}
		}
		fmt.Fprintf(w, "conditions by kind: %s\n", strings.Join(parts, ", "))
	}
	if silent := handlersWithout(sp); len(silent) > 0 {
		fmt.Fprintf(w, "%s without conditions\n", count(len(silent), "handler"))
	}
	if u := res.Unpaired; len(u) > 0 {
		var n int64
		for _, h := range u {
			n += h.Samples
		}
		fmt.Fprintf(w, "pairs not learned from %s of %s with more than %d data of one type (%s: %d of %d samples",
			count(int(n), "sample"), count(len(u), "handler"), invariants.MaxPairGroup, u[0].Handler, u[0].Samples, u[0].Handled)
		if len(u) > 1 {
			fmt.Fprint(w, ", ...")
		}
		fmt.Fprintln(w, ")")
	}
	if sp.Params.PartialState && res.PairsMet > 0 {
		fmt.Fprintf(w, "pairs of data: %d met, %d of them in %d samples or more, %d of those with a relation not yet broken, whose state is kept (--mergeable keeps all)\n",
			res.PairsMet, res.PairsSupported, sp.Params.MinSupport, res.PairsKept)
	}
	if out != "-" {
		fmt.Fprintf(w, "wrote %s\n", out)
	}
	if daikon != "" {
		fmt.Fprintf(w, "wrote Daikon files to %s\n", daikon)
	}
}

func handlersWithout(sp *learn.Spec) []string {
	var out []string
	for _, h := range sp.Handlers {
		if !slices.ContainsFunc(h.Conditions, func(c *learn.Condition) bool { return !c.Disabled }) {
			out = append(out, h.Name)
		}
	}
	return out
}

// count writes n and the noun, plural unless n is 1: "1 trace", "2 traces".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
