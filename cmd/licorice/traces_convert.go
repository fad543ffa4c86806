package main

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/traces"
)

func newTracesConvertCmd() *cobra.Command {
	var to string
	var noValidate bool
	cmd := &cobra.Command{
		Use:   "convert IN OUT",
		Short: "Convert a trace to another form (.jsonl, .jsonl.zst, .lct)",
		Long: `Convert reads the trace IN, whatever its form, and writes it to OUT in the form
OUT's name calls for (.jsonl, .jsonl.zst, .lct) or that --to names. All forms
hold exactly the same information: converting back and forth gives the same
canonical text, byte for byte.

The trace is validated as it is read, and convert stops at the first error.
OUT appears only when the whole trace was written (nothing half-written is
left behind); IN may be OUT. "-" as IN reads standard input; as OUT it writes
standard output, in the form --to names (default jsonl).

Examples:
  licorice traces convert run-07.jsonl run-07.lct
  zcat old.jsonl.gz | licorice traces convert - run.lct`,
		Args: argsFor(2, 2, "the trace to convert and the file to write (IN OUT)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			format, err := traceFormat("to", to, out, traces.JSONL)
			if err != nil {
				return err
			}
			r, done, err := openTrace(cmd, in, validation(noValidate)...)
			if err != nil {
				return err
			}
			defer done()
			if out == "-" {
				bw := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
				if err := copyTrace(cmd, bw, format, r); err != nil {
					return err
				}
				return bw.Flush()
			}
			f, err := atomicfile.Create(out)
			if err != nil {
				return err
			}
			defer f.Abort()
			if err := copyTrace(cmd, f, format, r); err != nil {
				return err
			}
			return f.Commit()
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the output form: jsonl, jsonl.zst or lct (default: from OUT's name)")
	cmd.Flags().BoolVar(&noValidate, "no-validate", false, "check only the syntax, not the rules that relate operations")
	return cmd
}
