package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/detect/htmlreport"
	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/learn"
	"github.com/spf13/cobra"
)

func newDetectCmd() *cobra.Command {
	var (
		specPath string
		format   string
		allow    string
		out      output
		window   time.Duration
		jobs     int
		exitCode bool
		mismatch bool
		explainN int
	)
	cmd := &cobra.Command{
		Use:   "detect --spec SPEC TRACE|DIR...",
		Short: "Report concurrent events that could falsify a learned precondition",
		Long: `Detect checks new executions against the preconditions "licorice learn" found,
and reports the pairs of concurrent events that are likely not to commute
(thesis §5.2.2, §5.4): one event relies on a condition (REQ) that another
makes true (GEN) or false (KILL), and no happens-before order fixes which runs
first. An event on another thread that makes the condition false between two
of its writes and true again by its end is a KILL too (a "mid KILL": the
requiring event may run in its middle). A directory stands for the traces in
it.

Each report groups the findings of one pair of handlers on one learned
condition, over all the traces given, and says:

  - the kind: precondition violation (an event ran with the condition false),
    REQ-KILL, GEN-REQ or GEN-KILL;
  - the condition as learned (with its support) and over the trace's objects;
  - the two events (ids, handlers, threads, trace lines, source locations)
    and what each did to the condition (the values read, before and after);
  - why they are concurrent: how each event came to be (who posted it),
    back to a common origin or to the outside world;
  - who requires, generates and kills the condition, and how to read it.

Reports are ranked: violations first, then REQ-KILL, GEN-REQ, GEN-KILL, then
by the condition's support and the number of findings.

If none of the spec's handlers ran in any of the traces, the spec is for
another program: detect says so and exits with status 2 (--allow-mismatch
checks them anyway).

--allow names a file of handlers, classes and conditions known to commute
(see docs/detection.md); what it matches is counted, not reported. Conditions
marked "disabled" in the spec are never checked.

Formats: text (for people; coloured on a terminal), json (a stable schema,
docs/json.md), sarif (SARIF 2.1.0, for code-scanning tools and editors),
html (one self-contained page to open in a browser: the reports to filter
and sort, each with a timeline of its two events; with -o FILE).

Example:

  licorice record --app mytracks --runs 50 -o train/
  licorice learn train/ -o mytracks.spec.json
  licorice record --app mytracks --runs 1 --seed 1000 --actions 2000 -o test/
  licorice detect --spec mytracks.spec.json test/`,
		Args: argsFor(1, -1, "the traces to check (files or directories)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if specPath == "" {
				return usageError{errors.New("detect: --spec SPEC is required")}
			}
			if format != "text" && format != "json" && format != "sarif" && format != "html" {
				return usageError{fmt.Errorf("detect: --format %q: want text, json, sarif or html", format)}
			}
			if window < 0 {
				return usageError{fmt.Errorf("detect: --window %v: want 0 (exact) or a positive duration", window)}
			}
			if jobs < 0 {
				return usageError{fmt.Errorf("detect: -j %d: want 0 (one per CPU) or more", jobs)}
			}
			if err := oneStdin(append(args, specPath, allow)...); err != nil {
				return err
			}
			collectOften()
			paths, err := learn.TracePaths(args)
			if err != nil {
				return fmt.Errorf("detect: %w", err)
			}
			if err := out.check(append(paths, specPath, allow)...); err != nil {
				return fmt.Errorf("detect: %w", err)
			}
			sp, err := readSpec(cmd, specPath, learn.ReadOptions{SkipState: true})
			if err != nil {
				return err
			}
			if explainN < 0 {
				return usageError{fmt.Errorf("detect: --explain %d: want 0 (none) or more", explainN)}
			}
			opts := detect.Options{Window: window, Workers: jobs, Explain: explainN, AllowMismatch: mismatch, Stdin: cmd.InOrStdin()}
			if allow != "" {
				if opts.Allow, err = detect.ReadAllowList(allow); err != nil {
					return err
				}
			}
			bar := progress.New(cmd.ErrOrStderr(), "detect", "traces", int64(len(paths)), progress.Also("ops read"))
			opts.Progress = func(int) { bar.Add(1) }
			opts.Ops = func(n int) { bar.AddAlso(int64(n)) }
			res, err := detect.Detect(cmd.Context(), sp, paths, opts)
			bar.Done()
			var me *detect.MismatchError
			if errors.As(err, &me) {
				return &exitError{code: 2, msg: fmt.Sprintf("%v (spec %s)", err, specPath)}
			}
			if err != nil {
				return err
			}
			var page *htmlreport.Page
			if format == "html" {
				if page, err = htmlreport.Detect(cmd.Context(), res, paths); err != nil {
					return fmt.Errorf("detect: %w", err)
				}
			}
			err = out.write(cmd, func(w io.Writer, color bool) error {
				switch format {
				case "json":
					return detect.WriteJSON(w, res, specPath)
				case "sarif":
					return detect.WriteSARIF(w, res, specPath, moduleVersion())
				case "html":
					return htmlreport.Write(w, page)
				}
				return detect.WriteText(w, res, detect.TextOptions{Color: color})
			})
			if err != nil {
				return err
			}
			if exitCode && len(res.Reports) > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&specPath, "spec", "", "the spec file (from licorice learn)")
	fl.StringVar(&format, "format", "text", "output format: text, json, sarif or html (one page with a timeline of each report's example; open it in a browser)")
	fl.StringVar(&allow, "allow", "", "a file of handlers, classes and conditions known to commute")
	out.register(cmd, "the report")
	fl.DurationVar(&window, "window", asyncclock.DefaultWindow, "AsyncClock's time window (0: the exact happens-before relation)")
	fl.IntVarP(&jobs, "jobs", "j", 0, "traces to analyse at once (0: one per CPU)")
	fl.BoolVar(&exitCode, "exit-code", false, "exit with status 1 if anything is reported (for CI)")
	fl.IntVar(&explainN, "explain", detect.DefaultExplain, "say which order is missing (as licorice hb does) for the first `N` reports, reading each of their traces once more")
	fl.BoolVar(&mismatch, "allow-mismatch", false, "check the traces even if none of the spec's handlers ran in them (else exit 2)")
	return cmd
}

// colorOK reports whether w is a terminal that wants colour (NO_COLOR
// unset).
func colorOK(w io.Writer) bool {
	return progress.IsTerminal(w) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}
