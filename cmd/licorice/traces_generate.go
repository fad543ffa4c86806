package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// shapes are the trace shapes generate makes: tracetest's presets.
var shapes = []struct {
	name, doc string
	config    func(events int, seed int64) tracetest.Config
}{
	{"app", "a busy app: 6 loopers, 4 binder threads, 16 workers of 3000 actions, 22 actions per event; racy (the benchmark shape)", tracetest.App},
	{"android", "a typical Android app: 3 loopers, a binder queue, few workers, about 20 accesses per event", tracetest.Android},
	{"small", "every rule of the causality model at high rates, in a few hundred events (--events scales it)", func(events int, seed int64) tracetest.Config {
		c := tracetest.Small(seed)
		c.Events = events
		return c
	}},
}

func newTracesGenerateCmd() *cobra.Command {
	var (
		shape  string
		events int
		seed   int64
		format string
		out    output
	)
	cmd := &cobra.Command{
		Use:   "generate -o OUT",
		Short: "Generate a random valid trace of a given shape and size, for benchmarks",
		Long: `Generate writes a random trace: the recording of a simulated event-driven
program (package traces/tracetest) with loopers, binder threads and workers
that read and write a shared heap, send, remove, signal and wait. Every trace
is valid and consistent with the causality model, and the same flags give the
same trace, byte for byte. Memory stays flat whatever --events.

These are the traces docs/performance.md measures licorice on; make them to
rerun its tables, or to load-test your own tools.

Shapes:
  app      ` + shapes[0].doc + `
  android  ` + shapes[1].doc + `
  small    ` + shapes[2].doc + `

Example:
  licorice traces generate --shape app --events 1000000 -o app-1m.lct
  licorice races --summary app-1m.lct`,
		Args: argsFor(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var config func(int, int64) tracetest.Config
			for _, s := range shapes {
				if s.name == shape {
					config = s.config
				}
			}
			if config == nil {
				return usageError{fmt.Errorf("--shape %q: want app, android or small", shape)}
			}
			if events < 1 {
				return usageError{fmt.Errorf("--events %d: want at least 1", events)}
			}
			if out.path == "" {
				return usageError{fmt.Errorf("generate: -o OUT is required (\"-\": standard output)")}
			}
			f, err := traceFormat("format", format, out.path, traces.LCT)
			if err != nil {
				return err
			}
			if err := out.check(); err != nil {
				return fmt.Errorf("generate: %w", err)
			}
			cfg := config(events, seed)
			bar := progress.New(cmd.ErrOrStderr(), "generate", "bytes", 0)
			defer bar.Done()
			return out.write(cmd, func(w io.Writer, _ bool) error {
				bw := bufio.NewWriterSize(&countingWriter{w, bar}, 64<<10)
				if _, err := tracetest.Write(cmd.Context(), bw, f, cfg); err != nil {
					return err
				}
				return bw.Flush()
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&shape, "shape", "app", "the program's shape: app, android or small")
	fl.IntVar(&events, "events", 10000, "events to send (about 40 operations each in the app shape)")
	fl.Int64Var(&seed, "seed", 1, "the seed: the same seed gives the same trace")
	fl.StringVar(&format, "format", "", "trace format: lct, jsonl or jsonl.zst (default: from the name of OUT, else lct)")
	fl.StringVarP(&out.path, "out", "o", "", `the trace file to write ("-": standard output)`)
	return cmd
}

// countingWriter reports the bytes written to a progress bar.
type countingWriter struct {
	w   io.Writer
	bar *progress.Bar
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.bar.Add(int64(n))
	return n, err
}
