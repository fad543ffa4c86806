package nodejs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/internal/parallel"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/traces"
)

// Batch describes a set of recordings of one Node.js program.
type Batch struct {
	Recorder string   // the recorder's folder (Locate)
	Command  []string // node and its arguments: the program and its arguments
	Dir      string   // where the traces go (created if missing)
	App      string   // the app's name, for the header and the file names
	Root     string   // source locations are relative to it (default: the working directory)

	Runs       int           // how many traces
	Shuffled   float64       // the fraction of runs that are shuffled, 0..1
	DelayMean  time.Duration // the mean shuffle delay (0: 10 ms)
	Seed       int64         // run i uses seed Seed+i
	Instrument []string      // globs of further files to instrument
	Timeout    time.Duration // a run still going after it is stopped (0: none)
	Format     traces.Format
	Parallel   int // runs at a time (0: the number of CPUs)

	// Progress, if set, is called after each run with the number done,
	// from one goroutine at a time.
	Progress func(done int)
}

// RunSummary is the outcome of one run.
type RunSummary struct {
	File     string // the trace's path
	Seed     int64
	Shuffled bool
	Ops      int64
	Events   int
	// Crash is the message of the run's first error op ("" if the run is
	// a correct execution): an uncaught exception, an unhandled
	// rejection, a failing exit status, a timeout.
	Crash  string
	Stderr string // the end of the program's standard error, for a crash
	Wall   time.Duration
	// Notes are what the run did that its trace does not hold: "child
	// process", "worker thread".
	Notes []string
}

// stderrTail is how much of a run's standard error a summary keeps.
const stderrTail = 2048

// Record runs the batch, writing DIR/APP-NNN.EXT for every run, each
// whole or not at all, and returns the summaries in run order. The
// program's own output is not shown; a crash's message is in its summary.
func (b *Batch) Record(ctx context.Context) ([]RunSummary, error) {
	if b.Runs <= 0 {
		return nil, fmt.Errorf("record: %d runs: want at least 1", b.Runs)
	}
	if b.Shuffled < 0 || b.Shuffled > 1 {
		return nil, fmt.Errorf("record: shuffled fraction %v: want a number from 0 to 1", b.Shuffled)
	}
	if len(b.Command) < 2 {
		return nil, errors.New("record: the command must be node and a program: -- node PROGRAM [ARGS…]")
	}
	node, err := exec.LookPath(b.Command[0])
	if err != nil {
		return nil, fmt.Errorf("record: %s: %w", b.Command[0], err)
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	width := max(len(strconv.Itoa(b.Runs-1)), 3)
	sums := make([]RunSummary, b.Runs)
	err = parallel.ForEach(ctx, b.Runs, b.Parallel, b.Progress, func(ctx context.Context, _, i int) error {
		name := fmt.Sprintf("%s-%0*d.%s", b.App, width, i, b.Format)
		var err error
		sums[i], err = b.recordOne(ctx, node, i, filepath.Join(b.Dir, name))
		return err
	})
	if err != nil {
		return nil, err
	}
	return sums, nil
}

func (b *Batch) recordOne(ctx context.Context, node string, i int, path string) (RunSummary, error) {
	seed := b.Seed + int64(i)
	shuffled := shuffle.IsShuffled(i, b.Shuffled)
	delayMean := b.DelayMean
	if delayMean <= 0 {
		delayMean = 10 * time.Millisecond
	}
	// Named as the trace's temporary files: a later run removes it if
	// this one is killed.
	raw, err := os.CreateTemp(b.Dir, atomicfile.TempPrefix(filepath.Base(path))+"raw-*")
	if err != nil {
		return RunSummary{}, fmt.Errorf("record: %w", err)
	}
	rawName, err := filepath.Abs(raw.Name()) // the program runs in Root
	raw.Close()
	if err != nil {
		os.Remove(raw.Name())
		return RunSummary{}, fmt.Errorf("record: %w", err)
	}
	defer os.Remove(rawName)
	notesName := rawName + ".notes"
	defer os.Remove(notesName)

	h := traces.Header{
		Version: traces.Version, Platform: "node", App: b.App, Run: fmt.Sprintf("run-%03d", i),
		Shuffled: shuffled, Seed: seed, HasSeed: true,
	}
	prog, _ := json.Marshal(strings.Join(b.Command[1:], " "))
	h.Extra = append(h.Extra, traces.ExtraField{Key: "command", JSON: string(prog)})
	if shuffled {
		h.Extra = append(h.Extra, traces.ExtraField{Key: "delay_mean_ms", JSON: strconv.FormatFloat(float64(delayMean)/float64(time.Millisecond), 'g', -1, 64)})
	}
	globs, _ := json.Marshal(append([]string{}, b.Instrument...))
	root := b.Root
	if root == "" {
		if root, err = os.Getwd(); err != nil {
			return RunSummary{}, fmt.Errorf("record: %w", err)
		}
	}
	env := append(os.Environ(),
		"LICORICE_OUT="+rawName,
		"LICORICE_SEED="+strconv.FormatInt(seed, 10),
		"LICORICE_SHUFFLE="+map[bool]string{true: "1", false: "0"}[shuffled],
		"LICORICE_DELAY_MEAN="+strconv.FormatFloat(float64(delayMean)/float64(time.Millisecond), 'g', -1, 64),
		"LICORICE_INSTRUMENT="+string(globs),
		"LICORICE_ROOT="+root,
		"LICORICE_NOTES="+notesName,
	)
	args := append([]string{"--require", filepath.Join(b.Recorder, entry)}, b.Command[1:]...)
	cmd := exec.Command(node, args...)
	cmd.Env = env
	cmd.Dir = root // stdin and stdout are /dev/null
	var stderr tail
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return RunSummary{}, fmt.Errorf("record: run %d: %w", i, err)
	}
	end := runEnd(ctx, cmd, b.Timeout)
	wall := time.Since(start)
	if ctx.Err() != nil {
		return RunSummary{}, ctx.Err()
	}

	f, err := atomicfile.Create(path)
	if err != nil {
		return RunSummary{}, fmt.Errorf("record: %w", err)
	}
	defer f.Abort()
	res, err := convert(ctx, rawName, f, b.Format, &h, end)
	if err != nil {
		var inv invalidError
		if errors.As(err, &inv) {
			// A recorder bug: its output is kept for the report.
			keep := filepath.Join(os.TempDir(), "licorice-"+filepath.Base(path)+".raw.jsonl")
			if os.Rename(rawName, keep) == nil {
				err = fmt.Errorf("%w (the recorder's output is kept in %s; please report it)", err, keep)
			}
		}
		return RunSummary{}, fmt.Errorf("record: run %d: %w", i, err)
	}
	if err := f.Commit(); err != nil {
		return RunSummary{}, err
	}
	sum := RunSummary{File: path, Seed: seed, Shuffled: shuffled, Ops: res.ops, Events: res.events, Crash: res.crash, Wall: wall}
	if sum.Crash != "" {
		sum.Stderr = stderr.String()
	}
	if data, err := os.ReadFile(notesName); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				sum.Notes = append(sum.Notes, line)
			}
		}
	}
	return sum, nil
}

// runEnd waits for the program and says how it ended, as the message of
// an error op, or "" if it exited with status 0. A run still going after
// timeout (if set) is stopped: SIGTERM to its process group, then SIGKILL.
func runEnd(ctx context.Context, cmd *exec.Cmd, timeout time.Duration) string {
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	stop := func() error {
		pg := -cmd.Process.Pid
		_ = syscall.Kill(pg, syscall.SIGTERM)
		select {
		case err := <-waited:
			return err
		case <-time.After(2 * time.Second):
			_ = syscall.Kill(pg, syscall.SIGKILL)
			return <-waited
		}
	}
	select {
	case err := <-waited:
		return exitMessage(err)
	case <-timer:
		stop()
		return fmt.Sprintf("timeout: the program was still running after %v and was stopped", timeout)
	case <-ctx.Done():
		stop()
		return "interrupted"
	}
}

func exitMessage(err error) string {
	if err == nil {
		return ""
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "the program was killed by signal " + ws.Signal().String()
		}
		return fmt.Sprintf("the program exited with status %d", ee.ExitCode())
	}
	return "the program failed: " + err.Error()
}

// tail keeps the last stderrTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTail {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
