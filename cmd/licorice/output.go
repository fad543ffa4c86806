package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/internal/atomicfile"
)

// output is a command's -o flag: the file its report goes to ("" or "-":
// standard output). Every command that prints a report has one, with the
// same meaning.
type output struct {
	path string
}

// register adds -o/--out to cmd's flags; what says what is written.
func (o *output) register(cmd *cobra.Command, what string) {
	cmd.Flags().StringVarP(&o.path, "out", "o", "", fmt.Sprintf("write %s to this file instead of standard output", what))
}

// stdout reports whether the report goes to standard output.
func (o *output) stdout() bool { return o.path == "" || o.path == "-" }

// check refuses, before any work, an output file that is one of the
// inputs (under any name), a directory, or in a missing directory.
func (o *output) check(inputs ...string) error {
	if o.stdout() {
		return nil
	}
	var in []string
	for _, p := range inputs {
		if p != "" && p != "-" {
			in = append(in, p)
		}
	}
	return atomicfile.Check(o.path, in...)
}

// write writes the report with fn: to standard output (colour allowed if
// it is a terminal that wants it), or to the file, which is replaced
// atomically and only if fn succeeds.
func (o *output) write(cmd *cobra.Command, fn func(w io.Writer, color bool) error) error {
	if o.stdout() {
		w := cmd.OutOrStdout()
		return fn(w, colorOK(w))
	}
	f, err := atomicfile.Create(o.path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := fn(f, false); err != nil {
		return err
	}
	return f.Commit()
}
