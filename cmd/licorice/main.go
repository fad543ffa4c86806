// Command licorice finds harmful ordering bugs in event-driven programs: it
// learns the preconditions event handlers rely on from correct executions,
// then reports concurrent events in a new execution that could falsify one.
//
// Run `licorice help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signalContext()
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

// signalContext returns a context that Ctrl-C (SIGINT) or a polite kill
// (SIGTERM) cancels: the command stops and removes its temporary files.
// After the first signal the default behaviour is back, so that a second
// one kills at once (a command blocked reading a pipe, say).
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}

// run executes the command line args and returns the exit status:
// 0 success, 1 failure (or findings, where a command says so), 2 bad usage,
// 130 interrupted.
func run(ctx context.Context, args []string) int {
	stopProfiles, err := startProfiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, "licorice:", err)
		return 1
	}
	defer stopProfiles()
	root := newRootCmd()
	root.SetArgs(args)
	err = root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "licorice:", ee.msg)
		}
		return ee.code
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Ctrl-C or SIGTERM: outputs in the making were dropped.
		fmt.Fprintln(os.Stderr, "licorice: interrupted")
		return 130
	}
	fmt.Fprintln(os.Stderr, "licorice:", err)
	if isUsageError(err) {
		fmt.Fprintln(os.Stderr, "Run 'licorice help' for usage.")
		return 2
	}
	return 1
}

// exitError ends the program with a given status and an optional message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }
