package main

import (
	"fmt"
	"os"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/eval"
	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/recorders/nodejs"
	"github.com/spf13/cobra"
)

func newDemoCmd() *cobra.Command {
	var (
		keep    string
		app     string
		runs    int
		actions int
		node    bool
		html    string
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "See licorice find a real ordering bug, from recording to report, in a few seconds",
		Long: `Demo runs the whole of licorice on a built-in app (MyTracks, Google's GPS
track recorder, whose use-after-free bugs the thesis uses as its running
example) and tells what happens at each step:

  1. record a training corpus: runs with random user input, half of them with
     a shuffled event schedule (licorice record);
  2. learn the conditions each event handler relied on (licorice learn);
  3. record a new run that passes: no crash;
  4. detect the concurrent events that could break a learned condition in that
     run (licorice detect), and compare with a race detector (licorice races).

It ends with the report and which of its findings are the app's known bugs.

With --node it does the same on a Node.js program (a cache service whose
configuration is read asynchronously, recorders/node/examples/cache) with
licorice's Node.js recorder, and then on the program's fixed version.
Everything goes to a temporary directory, removed at the end; --keep DIR
keeps the traces and the spec to look at them with the other commands.
--html FILE also writes the report as a web page, with a timeline of each
report's two events (as licorice detect --format html does).

Example:

  licorice demo
  licorice demo --keep demo/ && licorice spec show demo/mytracks.spec.json
  licorice demo --html report.html
  licorice demo --node`,
		Args: argsFor(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runs < 2 || actions < 1 {
				return usageError{fmt.Errorf("demo: --runs %d --actions %d: want at least 2 runs and 1 action", runs, actions)}
			}
			list, err := eval.Lookup([]string{app})
			if err != nil {
				return usageError{fmt.Errorf("demo: %w", err)}
			}
			if html != "" {
				if node {
					return usageError{fmt.Errorf("demo: --html is for the app demo, not --node")}
				}
				if err := atomicfile.Check(html); err != nil {
					return fmt.Errorf("demo: --html: %w", err)
				}
			}
			dir := keep
			if dir == "" {
				if dir, err = os.MkdirTemp("", "licorice-demo-"); err != nil {
					return err
				}
				defer os.RemoveAll(dir)
			} else if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if node {
				rec, err := nodejs.Locate()
				if err != nil {
					return fmt.Errorf("demo: %w", err)
				}
				if err := eval.NodeDemo(cmd.Context(), w, eval.NodeDemoConfig{
					Recorder: rec, TrainRuns: runs, Dir: dir, Window: asyncclock.DefaultWindow, Color: colorOK(w),
				}); err != nil {
					return err
				}
				if keep != "" {
					fmt.Fprintf(w, "The traces and the spec are in %s.\n", keep)
				}
				return nil
			}
			err = eval.Demo(cmd.Context(), w, eval.DemoConfig{
				App: list[0], TrainRuns: runs, TrainActions: actions, Dir: dir,
				Window: asyncclock.DefaultWindow, Color: colorOK(w), HTML: html,
			})
			if err != nil {
				return err
			}
			if keep != "" {
				fmt.Fprintf(w, "The traces and the spec are in %s.\n", keep)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&keep, "keep", "", "keep the traces and the spec in this directory")
	fl.StringVar(&app, "app", "mytracks", "the benchmark app to run (see licorice record --list)")
	fl.IntVar(&runs, "runs", 50, "training runs")
	fl.IntVar(&actions, "actions", 500, "monkey actions per training run")
	fl.BoolVar(&node, "node", false, "run the Node.js example with the Node.js recorder instead")
	fl.StringVar(&html, "html", "", "also write the report to this file as a web page, with a timeline of each example")
	return cmd
}
