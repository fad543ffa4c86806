package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/detect/compare"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

func newCompareCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Compare licorice's race detector with another tool's report",
		Long: `Compare runs licorice's race detector on an execution another tool recorded
and analysed, and sets licorice's races beside that tool's, location by
location, explaining every difference.`,
		Args: argsFor(0, 0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError{fmt.Errorf("say which tool to compare with: licorice compare droidracer LOG")}
		},
	}
	cmd.AddCommand(newCompareDroidRacerCmd())
	return cmd
}

func newCompareDroidRacerCmd() *cobra.Command {
	var (
		format    string
		out       output
		app       string
		lifecycle bool
	)
	cmd := &cobra.Command{
		Use:   "droidracer LOG",
		Short: "Compare licorice's data races with DroidRacer's on a DroidRacer log",
		Long: `Droidracer imports a DroidRacer log (abc_log.txt, plain or compressed with
zstd; see "licorice traces import"), runs licorice's data race detector on it
with the exact happens-before relation, and compares its races with the race
witnesses DroidRacer printed at the end of the log, location by location.

A location is named as DroidRacer names it: an object's address and field
offset ("0x4105e5f8.244"), a class and static field, or a database. A witness
and a race of licorice are the same race when they are on the same location
and licorice considers the witness's own two accesses a data race: made by
different tasks, concurrent, holding no common lock. Every location either
tool reports gets a verdict (both, droidracer-only, licorice-only) and a
reason, the class of the difference:

  same                 both find it
  ordered              licorice's happens-before orders the witness's two
                       accesses (the chain of rules is printed)
  lockset              the two threads hold a common lock (licorice: mutual
                       exclusion, no data race)
  two-objects          DroidRacer's two accesses are to two objects that
                       lived at one address
  lifecycle            only licorice reports it; DroidRacer's activity
                       lifecycle orders it, as licorice does with --lifecycle
  lock-order           only licorice reports it; DroidRacer orders an unlock
                       before the next lock of the lock by another thread,
                       which licorice deliberately does not
  lifecycle+lock-order both of the above
  database             DroidRacer does not report races on databases
  unexplained          no rule of DroidRacer's that the comparison knows

For each difference the text shows the two accesses (rwIds of the log, lines
of the imported trace), and licorice's chain of rules that orders them, or
"licorice hb"'s account of why the two events are concurrent and the chain
that DroidRacer's rule completes. docs/droidracer.md explains every class on
the two DroidRacer logs of traces/droidracer/testdata (RemindMe, Adobe
Reader; decompress them with zstd -d).

--format json prints the same as one JSON document (schema in
docs/droidracer.md).

Example:
  licorice compare droidracer RemindMe/abc_log.txt
  licorice compare droidracer --lifecycle --format json adobe-reader/abc_log.txt | jq '.counts'`,
		Args: argsFor(1, 1, "the DroidRacer log (abc_log.txt)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("--format %q: want text or json", format)}
			}
			if !cmd.Flags().Changed("app") {
				app = appOf(args[0])
			}
			if err := out.check(args[0]); err != nil {
				return fmt.Errorf("compare droidracer: %w", err)
			}
			l, err := readDroidRacerLog(cmd, args[0])
			if err != nil {
				return err
			}
			c, err := compare.DroidRacer(cmd.Context(), l, compare.Config{App: app, Import: droidracer.Options{Lifecycle: lifecycle}})
			if err != nil {
				return err
			}
			return out.write(cmd, func(w io.Writer, _ bool) error {
				if format == "json" {
					return c.WriteJSON(w)
				}
				return c.WriteText(w)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "text", "output format: text or json")
	out.register(cmd, "the comparison")
	f.StringVar(&app, "app", "", "the app name for the imported trace (default: the directory LOG is in)")
	f.BoolVar(&lifecycle, "lifecycle", false, "import with the orders of Android's activity lifecycle (docs/droidracer.md)")
	return cmd
}
