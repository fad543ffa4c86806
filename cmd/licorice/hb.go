package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/detect/races"
)

func newHBCmd() *cobra.Command {
	var (
		window time.Duration
		format string
		out    output
	)
	cmd := &cobra.Command{
		Use:   "hb TRACE [A B]",
		Short: "Say whether one event happens before another, and why",
		Long: `Hb says how events A and B of a trace are ordered by happens-before
(docs/causality.md): A happens before B if A's end happens before B's begin,
B before A the other way round, and otherwise they are concurrent: they could
have run in either order.

For ordered events it prints why: a shortest chain of rule applications from
the end of the first to the begin of the second, one step per line with the
rule's name, the two operations and their lines, and what the rule says of
them. A run of operations of one task counts as one step (PO).

For concurrent events it says what is missing: how each was sent, what the
rules of their queue or looper make of them, the earliest events the first
one happens before and the latest events that happen before the second.

It reads the trace once and keeps only what a chain can pass through, so it
works on traces of any size.

Without A and B, it prints the order of every pair of events as JSON lines,
{"a":…,"b":…,"order":"before"|"after"|"concurrent"}, a sent before b: for
small traces only (up to 2000 events, two million lines).

--window is the time window of AsyncClock, as in "licorice races": two
events of one looper that far apart are taken as ordered, and so are a
signal and a later wait on any handle, and a thread's end and a later
thread's begin (rule WINDOW, an approximation); 0 gives the exact
relation.

Example:
  licorice hb run-07.lct E17 E21
  licorice hb --window 0 --format json run-07.lct E17 E21
  licorice hb small.jsonl | jq -c 'select(.order == "concurrent")'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 && len(args) != 3 {
				return usageError{fmt.Errorf("hb takes a trace, and two events or none (got %d arguments)", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if window < 0 {
				return usageError{fmt.Errorf("--window %v: must not be negative (0 is exact)", window)}
			}
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("--format %q: want text or json", format)}
			}
			if len(args) == 3 && args[1] == args[2] {
				return usageError{fmt.Errorf("the two events are the same (%s)", args[1])}
			}
			if err := out.check(args[0]); err != nil {
				return fmt.Errorf("hb: %w", err)
			}
			collectOften()
			r, done, err := openTrace(cmd, args[0])
			if err != nil {
				return err
			}
			defer done()
			if len(args) == 1 {
				return out.write(cmd, func(w io.Writer, _ bool) error {
					return races.Relation(cmd.Context(), r, window, w)
				})
			}
			ex, err := races.Explain(cmd.Context(), r, args[1], args[2], window)
			if err != nil {
				return err
			}
			return out.write(cmd, func(w io.Writer, _ bool) error {
				if format == "json" {
					return ex.WriteJSON(w)
				}
				return ex.WriteText(w)
			})
		},
	}
	cmd.Flags().DurationVar(&window, "window", asyncclock.DefaultWindow, "time window of the happens-before engine (0: exact)")
	cmd.Flags().StringVar(&format, "format", "text", "output format for A and B: text or json")
	out.register(cmd, "the answer")
	return cmd
}
