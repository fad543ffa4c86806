package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/detect/htmlreport"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/traces"
)

func newRacesCmd() *cobra.Command {
	var (
		kind       string
		window     time.Duration
		all        bool
		unfiltered bool
		filterPath string
		format     string
		perGroup   int
		groups     int
		summary    bool
		out        output
		exitCode   bool
	)
	cmd := &cobra.Command{
		Use:   "races TRACE|DIR...",
		Short: "Find data races and use-free races between concurrent events",
		Long: `Races finds the races of each trace: pairs of accesses to the same heap
location that no happens-before order separates (computed by AsyncClock
over the whole causality model of docs/causality.md).

Two kinds are reported:

  data      two accesses, at least one a write, not both holding a common
            lock. At least one race is reported for every access that races
            with an earlier one; --all reports every racing pair.
  use-free  a use (a read whose value is dereferenced) and a free (a write
            of null), checked against the free before and after each use.
            Between events of one looper thread, CAFA's filters drop a use
            guarded by a null test in its handler (if-guard), and a use
            after or a free before an allocation of the location in the
            same event (intra-event allocation); --unfiltered keeps them.

Races are grouped by location (allocation site and field, or class and
field) and the pair of handlers of the two accesses; each group lists its
first --per-group races and counts all of them. A race is "covered"
when another race lies between its two accesses (EventRacer): treating that
race as synchronization would order it. Covered races are listed after the
uncovered ones, which are the ones to look at first. "in-thread" races are
between events of one looper thread.

--filter FILE drops the races its rules declare harmless (one rule per line,
terms key=glob with keys kind, class, site, field, location and handler; see
docs/races.md), and counts them.

With several traces, each is reported, then the groups merged across them.
--summary prints the counts alone.
--format json prints one JSON document (schema in docs/json.md); --format
html one self-contained page to open in a browser, each group with a
timeline of its first race (with -o FILE).

Example:
  licorice races run-07.lct
  licorice races --kind use-free --filter harmless.txt runs/*.lct
  licorice races --format json --window 0 run-07.lct | jq '.traces[0].summary'`,
		Args: argsFor(1, -1, "the traces (files, directories, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := races.Config{Window: window, All: all, Unfiltered: unfiltered, PerGroup: perGroup, Groups: groups}
			if perGroup < 0 {
				return usageError{fmt.Errorf("--per-group %d: must not be negative (0 lists every race)", perGroup)}
			}
			if groups < 0 {
				return usageError{fmt.Errorf("--groups %d: must not be negative (0 lists every group)", groups)}
			}
			if summary {
				cfg.PerGroup = -1
			}
			if kind != "" {
				k, ok := races.ParseKind(kind)
				if !ok {
					return usageError{fmt.Errorf("--kind %q: want data or use-free", kind)}
				}
				cfg.Kind = k
			}
			if window < 0 {
				return usageError{fmt.Errorf("--window %v: must not be negative (0 is exact)", window)}
			}
			if format != "text" && format != "json" && format != "html" {
				return usageError{fmt.Errorf("--format %q: want text, json or html", format)}
			}
			if filterPath != "" {
				f, err := races.LoadFilter(filterPath)
				if err != nil {
					return err
				}
				cfg.Harmless = f
			}
			var reports []*races.Report
			if err := oneStdin(args...); err != nil {
				return err
			}
			paths, err := traces.Paths(args)
			if err != nil {
				return err
			}
			if err := out.check(append(paths, filterPath)...); err != nil {
				return fmt.Errorf("races: %w", err)
			}
			for _, path := range paths {
				r, done, err := openTrace(cmd, path)
				if err != nil {
					return err
				}
				rep, err := races.Detect(cmd.Context(), r, cfg)
				done()
				if err != nil {
					return err
				}
				reports = append(reports, rep)
			}
			var page *htmlreport.Page
			if format == "html" {
				if page, err = htmlreport.Races(cmd.Context(), reports, paths); err != nil {
					return fmt.Errorf("races: %w", err)
				}
			}
			err = out.write(cmd, func(w io.Writer, _ bool) error {
				switch format {
				case "json":
					return races.WriteJSON(w, reports)
				case "html":
					return htmlreport.Write(w, page)
				}
				return races.WriteText(w, reports)
			})
			if err != nil {
				return err
			}
			if exitCode && slices.ContainsFunc(reports, func(r *races.Report) bool { return r.Races() > 0 }) {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&kind, "kind", "", "report only this kind: data or use-free (default both)")
	f.DurationVar(&window, "window", asyncclock.DefaultWindow, "time window of the happens-before engine: events of one looper, signals and waits, thread ends and begins this far apart are taken as ordered (0: exact)")
	f.BoolVar(&all, "all", false, "report every racing pair, not only enough to cover every racing access (slower, more memory)")
	f.BoolVar(&unfiltered, "unfiltered", false, "keep the use-free races CAFA's if-guard and intra-event-allocation filters drop")
	f.StringVar(&filterPath, "filter", "", "drop the races the rules in `FILE` declare harmless")
	f.StringVar(&format, "format", "text", "output format: text, json or html (one page with a timeline of each group's first race; open it in a browser)")
	f.IntVar(&groups, "groups", 1000, "list at most `N` groups of each kind, the first found (all are counted); 0 lists every group")
	f.IntVar(&perGroup, "per-group", 10, "list at most `N` races of each group, the first found (all are counted); 0 lists every race")
	out.register(cmd, "the report")
	f.BoolVar(&exitCode, "exit-code", false, "exit with status 1 if any race is reported (for CI)")
	f.BoolVar(&summary, "summary", false, "print the counts only: no groups, no races (the least memory, for very racy traces)")
	return cmd
}
