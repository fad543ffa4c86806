package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/traces"
)

func newTracesValidateCmd() *cobra.Command {
	var maxErrors int
	cmd := &cobra.Command{
		Use:   "validate TRACE|DIR...",
		Short: "Check traces against the trace contract and list every error",
		Long: `Validate checks each trace against the whole trace contract
(docs/trace-format.md): the syntax and the type of every field, and the rules
that relate operations to each other (an event that begins twice or was never
sent, an op of an event that is not running, an end without its begin, a join
before the child ended, an unbalanced call/ret, a lock held by another task,
and the rest).

It prints every error as FILE:LINE: op "KIND" (task ID): what is wrong, with
LINE the line in the canonical text form (what "licorice traces cat" prints;
for .jsonl files, the file's own line), up to --max-errors per file; and
"FILE: ok" for a valid trace. A damaged .lct or .jsonl.zst file is reported as
truncated or corrupt. The exit status is 0 if every trace is valid, 1 if not.

Example:
  licorice traces validate --max-errors 10 traces/*.jsonl`,
		Args: argsFor(1, -1, "the traces (files, directories, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxErrors < 0 {
				return usageError{fmt.Errorf("--max-errors must not be negative")}
			}
			out := cmd.OutOrStdout()
			bad := 0
			if err := oneStdin(args...); err != nil {
				return err
			}
			paths, err := traces.Paths(args)
			if err != nil {
				return err
			}
			for _, path := range paths {
				n, err := validateTrace(cmd, path, maxErrors)
				if err != nil {
					if !errors.Is(err, traces.ErrTooManyErrors) {
						return err
					}
					fmt.Fprintln(out, err)
				}
				if n > 0 {
					bad++
				} else {
					fmt.Fprintf(out, "%s: ok\n", traces.DisplayName(path))
				}
			}
			if bad > 0 {
				return &exitError{code: 1, msg: fmt.Sprintf("%d of %d traces are invalid", bad, len(paths))}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxErrors, "max-errors", 100, "list at most this many errors per file (0: all)")
	return cmd
}

// validateTrace lists the errors of one trace and returns their number.
// A file that cannot be opened counts as one error.
func validateTrace(cmd *cobra.Command, path string, maxErrors int) (int, error) {
	out := cmd.OutOrStdout()
	r, done, err := openTrace(cmd, path)
	if err != nil {
		fmt.Fprintln(out, err)
		return 1, nil
	}
	defer done()
	return traces.ValidateAll(cmd.Context(), r, maxErrors, func(err error) { fmt.Fprintln(out, err) })
}
