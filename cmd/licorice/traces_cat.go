package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/traces"
)

func newTracesCatCmd() *cobra.Command {
	var (
		noValidate bool
		out        output
	)
	cmd := &cobra.Command{
		Use:   "cat TRACE|DIR...",
		Short: "Print traces of any form as canonical JSON Lines",
		Long: `Cat prints each trace, whatever its form (.jsonl, .jsonl.zst, .lct), as its
canonical JSON Lines: the header, then one operation per line, keys in a fixed
order, defaults left out, numbers and strings spelled one way
(docs/trace-format.md). So cat of a .lct file is byte for byte the text it was
converted from, if that text was canonical, and two traces can be compared
with diff. Errors about a .lct file give the line the op has in this text.

Traces are validated as they are read; cat stops at the first error (use
"licorice traces validate" to list them all, or --no-validate to print a trace
that breaks the contract's rules but is well formed).

Example:
  licorice traces cat run-07.lct | grep '"op":"send"'`,
		Args: argsFor(1, -1, "the traces (files, directories, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneStdin(args...); err != nil {
				return err
			}
			paths, err := traces.Paths(args)
			if err != nil {
				return err
			}
			if err := out.check(paths...); err != nil {
				return fmt.Errorf("cat: %w", err)
			}
			return out.write(cmd, func(w io.Writer, _ bool) error {
				bw := bufio.NewWriterSize(w, 64<<10)
				for _, path := range paths {
					if err := catTrace(cmd, bw, path, noValidate); err != nil {
						// On standard output, what was read before the
						// error is shown; a file is not written at all.
						bw.Flush()
						return err
					}
				}
				return bw.Flush()
			})
		},
	}
	out.register(cmd, "the traces")
	cmd.Flags().BoolVar(&noValidate, "no-validate", false, "check only the syntax, not the rules that relate operations")
	return cmd
}

func catTrace(cmd *cobra.Command, out *bufio.Writer, path string, noValidate bool) error {
	r, done, err := openTrace(cmd, path, validation(noValidate)...)
	if err != nil {
		return err
	}
	defer done()
	return copyTrace(cmd, out, traces.JSONL, r)
}
