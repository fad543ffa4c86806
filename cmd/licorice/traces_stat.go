package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/traces"
)

func newTracesStatCmd() *cobra.Command {
	var (
		asJSON bool
		format string
		out    output
	)
	cmd := &cobra.Command{
		Use:   "stat TRACE|DIR...",
		Short: "Summarize traces: operations, threads, queues, events, handlers, time",
		Long: `Stat reads each trace and says what it holds:

  ops        operations, in all and by kind
  threads    threads begun, by kind (looper, binder, worker)
  queues     queues attached by looper and binder threads
  events     sent (of which external: user input, the system), run (begun),
             removed, and pending (sent but neither run nor removed)
  handlers   distinct handlers called, the 10 called most with their calls
  objects    objects allocated
  classes    classes whose static fields are read or written
  fields     distinct field names read, written, related or tested
  time       the span of the operations' wall-clock times (ts), in ms

Memory stays flat whatever the trace's size: stat keeps counts, not the trace
(distinct names are counted up to 65536 each, then reported "or more"). It
checks the syntax but not the contract's rules (see "licorice traces
validate"), and stops at the first error.

With --format json it prints {"licorice_stat":1,"traces":[...]}, one object per
file, for machines (docs/json.md).

Example:
  licorice traces stat run-07.lct
  licorice traces stat --format json traces/ | jq '.traces[].events.pending'`,
		Args: argsFor(1, -1, "the traces (files, directories, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch format {
			case "text":
			case "json":
				asJSON = true
			default:
				return usageError{fmt.Errorf("stat: --format %q: want text or json", format)}
			}
			if err := oneStdin(args...); err != nil {
				return err
			}
			paths, err := traces.Paths(args)
			if err != nil {
				return err
			}
			if err := out.check(paths...); err != nil {
				return fmt.Errorf("stat: %w", err)
			}
			// Summaries are small: all are made before anything is
			// written, so an error leaves no half report.
			var all []*traces.Summary
			for _, path := range paths {
				s, err := statTrace(cmd, path)
				if err != nil {
					return err
				}
				all = append(all, s)
			}
			return out.write(cmd, func(w io.Writer, _ bool) error {
				if asJSON {
					return traces.WriteSummariesJSON(w, all)
				}
				for i, s := range all {
					if i > 0 {
						io.WriteString(w, "\n")
					}
					if err := s.WriteText(w); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	// --json is what this command took before --format, as every other
	// command has; it still works, unlisted.
	cmd.Flags().BoolVar(&asJSON, "json", false, "the same as --format json")
	cmd.Flags().MarkHidden("json")
	out.register(cmd, "the summaries")
	return cmd
}

func statTrace(cmd *cobra.Command, path string) (*traces.Summary, error) {
	r, done, err := openTrace(cmd, path, traces.WithoutValidation())
	if err != nil {
		return nil, err
	}
	defer done()
	return traces.Summarize(cmd.Context(), r)
}
