package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "licorice",
		Short: "Find harmful ordering bugs in event-driven programs",
		Long: `licorice finds harmful ordering bugs in event-driven programs (Android apps,
GUI loops, Node.js): handlers that no happens-before order separates and that
could falsify a precondition another handler relies on.

It learns each handler's likely preconditions from many correct,
schedule-shuffled executions ("learn"), then checks a new execution for
concurrent events that could break one of them ("detect"). Underneath is an
exact happens-before engine, AsyncClock, with a race detector of its own
("races", "hb").`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       moduleVersion(), // --version
	}
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(
		newVersionCmd(),
		newTracesCmd(),
		newRecordCmd(),
		newLearnCmd(),
		newSpecCmd(),
		newTemplatesCmd(),
		newDetectCmd(),
		newDemoCmd(),
		newEvalCmd(),
		newRacesCmd(),
		newHBCmd(),
		newCompareCmd(),
	)
	return root
}

// usageError marks an error in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func isUsageError(err error) bool {
	var ue usageError
	if errors.As(err, &ue) {
		return true
	}
	// cobra's own argument and command errors.
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") ||
		strings.HasPrefix(msg, "accepts ") ||
		strings.HasPrefix(msg, "requires at least") ||
		strings.HasPrefix(msg, "unknown flag") ||
		strings.HasPrefix(msg, "invalid argument")
}
