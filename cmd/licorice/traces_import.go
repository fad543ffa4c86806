package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/internal/progress"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

func newTracesImportCmd() *cobra.Command {
	var from, out, app, format string
	var quiet, lifecycle bool
	cmd := &cobra.Command{
		Use:   "import --from droidracer LOG [-o OUT]",
		Short: "Convert an execution log recorded by another tool into a licorice trace",
		Long: `Import converts an execution log recorded by another tool into a licorice trace.

--from droidracer reads the abc_log.txt that DroidRacer (PLDI 2014) writes on
its instrumented Android VM (plain or compressed with zstd). Every operation is
mapped to licorice's model (docs/droidracer.md): POST/CALL/RET become
send/begin/end on the looper that ran the message, THREADINIT/THREADEXIT/FORK
thread ops, NOTIFY->WAIT and ENABLE-*->TRIGGER-* signal/wait, LOCK/UNLOCK
locks, each NATIVE-ENTRY..NATIVE-EXIT bracket a short-lived thread of its own,
and the READ/WRITE lines of each ACCESS block reads and writes at that ACCESS.
Every imported op keeps the log's id in its src ("droidracer:17",
"droidracer:rw70"), and the trace is validated as it is written: an import
either yields a valid trace or fails naming the log line it could not map.
--lifecycle adds the orders of Android's activity lifecycle (each callback of
an activity instance after the one before it, as DroidRacer's state machine
has them), as signals and waits.

The output format follows the name of OUT (.jsonl, .jsonl.zst, .lct); without
-o the trace is written to standard output as JSON Lines. The output file
appears only when the import succeeded.

A summary goes to standard error: lines read, ops written, how each keyword
was mapped, keywords not known (not imported), and every place where the log
breaks the trace contract with how it was resolved, each with a count and its
first line.

Example:
  licorice traces import --from droidracer RemindMe/abc_log.txt -o remindme.jsonl.zst`,
		Args: argsFor(1, 1, "the log to import"),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch from {
			case "droidracer":
			case "":
				return usageError{fmt.Errorf("say which tool recorded %s: --from droidracer", args[0])}
			default:
				return usageError{fmt.Errorf("--from %q: the only importer is droidracer", from)}
			}
			f := traces.JSONL
			if format != "" {
				var err error
				if f, err = traces.ParseFormat(format); err != nil {
					return usageError{err}
				}
			} else if out != "" {
				var err error
				if f, err = traces.FormatOf(out); err != nil {
					return usageError{fmt.Errorf("%w; or give --format", err)}
				}
			}
			if !cmd.Flags().Changed("app") {
				app = appOf(args[0])
			}
			return importDroidRacer(cmd, args[0], out, f, app, droidracer.Options{Lifecycle: lifecycle}, quiet)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the tool that recorded LOG (droidracer)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the trace to this file instead of standard output")
	cmd.Flags().StringVar(&format, "format", "", "output format: jsonl, jsonl.zst or lct (default: from the name of OUT, else jsonl)")
	cmd.Flags().StringVar(&app, "app", "", "the app name for the trace header (default: the directory LOG is in)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not print the summary")
	cmd.Flags().BoolVar(&lifecycle, "lifecycle", false, "add the orders of Android's activity lifecycle (docs/droidracer.md)")
	return cmd
}

// appOf names the app of a DroidRacer log by the directory it is in, as in
// DroidRacer's own layout (<app>/abc_log.txt).
func appOf(path string) string {
	if path == "-" {
		return ""
	}
	dir := filepath.Base(filepath.Dir(path))
	if dir == "." || dir == "/" || dir == string(filepath.Separator) {
		return ""
	}
	return dir
}

func importDroidRacer(cmd *cobra.Command, in, out string, f traces.Format, app string, opts droidracer.Options, quiet bool) error {
	ctx := cmd.Context()
	log, err := readDroidRacerLog(cmd, in)
	if err != nil {
		return err
	}

	var dst io.Writer = cmd.OutOrStdout()
	var file *atomicfile.File
	if out != "" {
		if err := atomicfile.Check(out, in); err != nil {
			return err
		}
		if file, err = atomicfile.Create(out); err != nil {
			return err
		}
		defer file.Abort()
		dst = file
	}
	syms := traces.NewSymbols()
	w, err := traces.NewWriter(dst, f, droidracer.Header(app), syms)
	if err != nil {
		return err
	}
	sum, err := log.ImportWith(ctx, w, syms, opts)
	if err != nil {
		return err
	}
	if sum.OpLines == 0 && sum.AccessLines == 0 {
		// Nothing written is kept: a 0-op trace is a mistake, not a result.
		return fmt.Errorf("%s: no DroidRacer operation or access in its %s: not a DroidRacer log (abc_log.txt)?", traces.DisplayName(in), count(sum.Lines, "line"))
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return err
		}
	}
	if quiet {
		return nil
	}
	return sum.WriteText(cmd.ErrOrStderr())
}

// readDroidRacerLog reads the DroidRacer log at path, with a progress bar
// of its bytes on a terminal.
func readDroidRacerLog(cmd *cobra.Command, path string) (*droidracer.Log, error) {
	if path == "-" {
		bar := progress.New(cmd.ErrOrStderr(), "reading "+traces.StdinName, "bytes", 0)
		defer bar.Done()
		return droidracer.Read(cmd.Context(), &countingReader{cmd.InOrStdin(), bar}, traces.StdinName)
	}
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var size int64
	if fi, err := src.Stat(); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a DroidRacer log", path)
		}
		size = fi.Size()
	}
	bar := progress.New(cmd.ErrOrStderr(), "reading "+path, "bytes", size)
	defer bar.Done()
	return droidracer.Read(cmd.Context(), &countingReader{src, bar}, path)
}

// countingReader reports the bytes read to a progress bar.
type countingReader struct {
	r   io.Reader
	bar *progress.Bar
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.bar.Add(int64(n))
	return n, err
}
