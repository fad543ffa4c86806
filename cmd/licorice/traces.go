package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/traces"
)

func newTracesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "Read, convert, summarize and check trace files",
		Long: `Read, convert, summarize and check trace files.

A trace is one execution of an event-driven program: a header, then one
operation per line in the order they ran (docs/trace-format.md). It is stored
as JSON Lines (.jsonl), JSON Lines compressed with zstd (.jsonl.zst), or the
compact binary form (.lct, about a tenth of the text's size, several times
faster to read). Every command reads all three, telling them apart by their
content; "-" reads standard input.`,
	}
	cmd.AddCommand(
		newTracesCatCmd(),
		newTracesConvertCmd(),
		newTracesGenerateCmd(),
		newTracesStatCmd(),
		newTracesValidateCmd(),
	)
	cmd.AddCommand(newTracesImportCmd())
	return cmd
}

// openTrace opens a trace file with a progress bar (counting ops) on the
// command's standard error, if that is a terminal. Call the returned
// function when done with the reader: it closes it and clears the bar.
func openTrace(cmd *cobra.Command, path string, opts ...traces.Option) (*traces.Reader, func(), error) {
	bar := progress.New(cmd.ErrOrStderr(), path, "ops", 0)
	opts = append(opts, traces.WithProgress(func(n int) { bar.Add(int64(n)) }), traces.WithStdin(cmd.InOrStdin()))
	r, err := traces.Open(path, opts...)
	if err != nil {
		bar.Done()
		return nil, nil, err
	}
	return r, func() { r.Close(); bar.Done() }, nil
}

// traceFormat is the form of a trace to write: the one the flag (named
// flag, set to value) names, else the one the name of the file out calls
// for, else def (for standard output: out "" or "-").
func traceFormat(flag, value, out string, def traces.Format) (traces.Format, error) {
	switch {
	case value != "":
		f, err := traces.ParseFormat(value)
		if err != nil {
			return f, usageError{fmt.Errorf("--%s: %w", flag, err)}
		}
		return f, nil
	case out != "" && out != "-":
		f, err := traces.FormatOf(out)
		if err != nil {
			return f, usageError{fmt.Errorf("%w; or name the format with --%s", err, flag)}
		}
		return f, nil
	}
	return def, nil
}

// validation returns the reader options for a --no-validate flag.
func validation(noValidate bool) []traces.Option {
	if noValidate {
		return []traces.Option{traces.WithoutValidation()}
	}
	return nil
}

// copyTrace writes every op of r to out in format f, stopping at the
// first error.
func copyTrace(cmd *cobra.Command, out io.Writer, f traces.Format, r *traces.Reader) error {
	w, err := traces.NewWriter(out, f, r.Header(), r.Symbols())
	if err != nil {
		return fmt.Errorf("%s: %w", r.Name(), err)
	}
	if _, err := traces.Copy(cmd.Context(), w, r); err != nil {
		return err
	}
	return w.Close()
}
