package nodejs_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/internal/nodetest"
	"github.com/licorice-dev/licorice/recorders/nodejs"
	"github.com/licorice-dev/licorice/traces"
)

// readTrace reads a trace whole, with validation, and returns its ops'
// kinds counted and its error messages.
func readTrace(t *testing.T, path string) (map[traces.Kind]int, []string) {
	t.Helper()
	r, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	kinds := map[traces.Kind]int{}
	var errs []string
	var op traces.Op
	for {
		err := r.Next(&op)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		kinds[op.Kind]++
		if op.Kind == traces.Error {
			errs = append(errs, r.Symbols().String(op.Name))
		}
	}
	if r.Header().Platform != "node" {
		t.Errorf("%s: platform %q, want node", path, r.Header().Platform)
	}
	return kinds, errs
}

// TestRecordPrograms runs programs that end in every way a program can and
// checks that each gives a valid trace, marked crashed where it should be,
// and that nothing else is left in the directory.
func TestRecordPrograms(t *testing.T) {
	rec := nodetest.Recorder(t)
	tests := []struct {
		program string
		crash   string // a part of the crash message; "" for a correct run
		timeout time.Duration
		events  int    // at least this many events
		note    string // a note the run must have
	}{
		{program: "clean.js", events: 5},
		{program: "throws-at-load.js", crash: "uncaught exception: Error: boom at load"},
		{program: "exits-early.js", crash: "the program exited with status 3", events: 1},
		{program: "never-ends.js", crash: "timeout: the program was still running after 1s", timeout: time.Second, events: 10},
		{program: "unhandled-rejection.js", crash: "TypeError: no value", events: 1},
		{program: "child-process.js", events: 1, note: "child process"},
		{program: "worker-thread.js", events: 1, note: "worker thread"},
		{program: "not-javascript.js", crash: "uncaught exception: SyntaxError"},
	}
	for _, tc := range tests {
		t.Run(tc.program, func(t *testing.T) {
			dir := t.TempDir()
			b := nodejs.Batch{
				Recorder: rec, Command: []string{"node", filepath.Join("testdata", "programs", tc.program)},
				Dir: dir, App: "p", Runs: 1, Seed: 1, Timeout: tc.timeout, Format: traces.JSONL,
			}
			if b.Timeout == 0 {
				b.Timeout = 30 * time.Second
			}
			sums, err := b.Record(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			s := sums[0]
			if tc.crash == "" && s.Crash != "" {
				t.Fatalf("crashed: %s\nstderr: %s", s.Crash, s.Stderr)
			}
			if tc.crash != "" && !strings.Contains(s.Crash, tc.crash) {
				t.Fatalf("crash %q, want one with %q", s.Crash, tc.crash)
			}
			if tc.note != "" && !slices.Contains(s.Notes, tc.note) {
				t.Errorf("notes %q, want %q", s.Notes, tc.note)
			}
			kinds, errs := readTrace(t, s.File)
			if got := kinds[traces.Begin]; got < tc.events {
				t.Errorf("%d events run, want at least %d", got, tc.events)
			}
			if (tc.crash != "") != (len(errs) > 0) {
				t.Errorf("error ops %q, crash %q", errs, s.Crash)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 || entries[0].Name() != "p-000.jsonl" {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %v, want only p-000.jsonl", names)
			}
		})
	}
}

// TestRecordNotNode checks that a command that is not Node.js is an error
// that says so, and leaves no file.
func TestRecordNotNode(t *testing.T) {
	rec := nodetest.Recorder(t)
	dir := t.TempDir()
	b := nodejs.Batch{
		Recorder: rec, Command: []string{"sh", "-c", "exit 0"}, Dir: dir, App: "p", Runs: 1, Format: traces.JSONL,
	}
	_, err := b.Record(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is the command Node.js") {
		t.Fatalf("err = %v, want one that asks whether the command is Node.js", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("directory holds %d files, want none", len(entries))
	}
}

// TestRecordShuffleDeterministicDecisions checks that shuffled runs are
// marked in their headers with their seed.
func TestRecordShuffledHeader(t *testing.T) {
	rec := nodetest.Recorder(t)
	dir := t.TempDir()
	b := nodejs.Batch{
		Recorder: rec, Command: []string{"node", filepath.Join("testdata", "programs", "clean.js")},
		Dir: dir, App: "p", Runs: 2, Shuffled: 0.5, Seed: 10, Format: traces.LCT,
	}
	sums, err := b.Record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sums {
		r, err := traces.Open(s.File)
		if err != nil {
			t.Fatal(err)
		}
		h := r.Header()
		r.Close()
		if h.Seed != int64(10+i) || h.Shuffled != (i == 1) || h.App != "p" {
			t.Errorf("run %d: header seed %d shuffled %v app %q", i, h.Seed, h.Shuffled, h.App)
		}
	}
}

// TestRecordRelativeDir checks a relative output directory with the
// program run in another directory (Root): the trace lands in the output
// directory, not beside the program.
func TestRecordRelativeDir(t *testing.T) {
	rec := nodetest.Recorder(t)
	programs, err := filepath.Abs(filepath.Join("testdata", "programs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	b := nodejs.Batch{
		Recorder: rec, Command: []string{"node", "clean.js"}, Root: programs,
		Dir: "out", App: "p", Runs: 1, Seed: 1, Format: traces.JSONL,
	}
	sums, err := b.Record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sums[0].Crash != "" {
		t.Fatalf("crashed: %s", sums[0].Crash)
	}
	readTrace(t, filepath.Join("out", "p-000.jsonl"))
}
