package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// copyFile copies src into dir and returns the copy's path.
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, filepath.Base(src))
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// An output that is one of the command's inputs, or that cannot be
// written, is refused before the work starts, and the input is untouched.
func TestOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	trace := copyFile(t, boxTrace, dir)
	spec := copyFile(t, detectSpec, dir)
	dtrace := copyFile(t, detectTrace, dir)
	if err := os.Mkdir(filepath.Join(dir, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	inCorpus := copyFile(t, boxTrace, filepath.Join(dir, "corpus"))
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		input string // must be unchanged
		want  string // in stderr
	}{
		{"learn into its trace", []string{"learn", trace, "-o", trace}, trace, "is also an input"},
		{"learn into a trace of its directory", []string{"learn", filepath.Join(dir, "corpus"), "-o", inCorpus}, inCorpus, "is also an input"},
		{"learn into a directory", []string{"learn", trace, "-o", dir}, trace, "is a directory"},
		{"learn into a missing directory", []string{"learn", trace, "-o", filepath.Join(dir, "no", "x.json")}, trace, "no such file"},
		{"learn, daikon under a file", []string{"learn", trace, "-o", filepath.Join(dir, "x.json"), "--emit-daikon", filepath.Join(notDir, "d")}, trace, "--emit-daikon"},
		{"detect into its spec", []string{"detect", "--spec", spec, dtrace, "-o", spec}, spec, "is also an input"},
		{"detect into its trace", []string{"detect", "--spec", spec, dtrace, "-o", dtrace}, dtrace, "is also an input"},
		{"spec merge into an input", []string{"spec", "merge", spec, spec + ".b", "-o", spec}, spec, "is also an input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := os.ReadFile(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			_, errs, code := runCLI(t, nil, tt.args...)
			if code != 1 || !strings.Contains(errs, tt.want) {
				t.Fatalf("status %d, stderr %q; want 1 and %q", code, errs, tt.want)
			}
			after, _ := os.ReadFile(tt.input)
			if string(after) != string(before) {
				t.Errorf("%s was changed", tt.input)
			}
			if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
				t.Errorf("a refused learn wrote its spec")
			}
		})
	}
}

// A FIFO given as -o is written into, not replaced by a regular file.
func TestOutputIntoFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		data, err := os.ReadFile(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(data)
	}()
	_, errs, code := runCLI(t, nil, "detect", "--spec", detectSpec, detectTrace, "--format", "json", "-o", fifo)
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	if s := <-got; !strings.Contains(s, `"reports"`) {
		t.Errorf("read %.80q from the FIFO, want the JSON report", s)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", info.Mode(), err)
	}
}

// An interrupted command (Ctrl-C, SIGTERM: a cancelled context) exits 130
// and leaves neither its output nor a temporary file.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code := run(ctx, []string{"learn", boxTrace, "-o", filepath.Join(dir, "x.json")}); code != 130 {
		t.Errorf("status %d, want 130", code)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// Errors quote their input with bounds: a trace whose task has a name of
// 64 KiB gives a hundred errors of a short line each, not 6 MB (a trace
// may name a task with 16 MiB).
func TestValidateErrorOutputBounded(t *testing.T) {
	name := strings.Repeat("T", 64<<10)
	var b strings.Builder
	b.WriteString(`{"licorice_trace":1,"platform":"android","app":"x"}` + "\n")
	for range 150 {
		b.WriteString(`{"op":"read","t":"` + name + `","obj":"o1","field":"f","val":1}` + "\n")
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCLI(t, nil, "traces", "validate", path)
	if code != 1 {
		t.Fatalf("status %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(out) > 100*1024 || len(lines) < 100 {
		t.Fatalf("%d bytes in %d lines; want about 100 short lines", len(out), len(lines))
	}
	if !strings.Contains(lines[0], "bytes]…") {
		t.Errorf("the task's name is not elided: %.200s", lines[0])
	}
}

// SIGTERM cancels a command as Ctrl-C does.
func TestSIGTERMCancels(t *testing.T) {
	ctx, stop := signalContext()
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
}

// Every command that reads traces takes a directory for its traces.
func TestDirectoriesEverywhere(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, boxTrace, dir)
	copyFile(t, detectTrace, dir)
	for _, args := range [][]string{
		{"traces", "validate", dir},
		{"traces", "stat", dir},
		{"races", "--summary", dir},
		{"learn", dir, "-o", "-"},
		{"detect", "--spec", detectSpec, "--allow-mismatch", dir},
	} {
		out, errs, code := runCLI(t, nil, args...)
		// Both traces are read: the directory's two files are named, or
		// counted ("from 2 traces ...; 1 trace cut", "in 2 traces").
		named := strings.Contains(out+errs, "box.jsonl") && strings.Contains(out+errs, "demo.jsonl")
		counted := strings.Contains(errs, "from 2 traces") || strings.Contains(out, "in 2 traces")
		if code > 1 || !named && !counted {
			t.Errorf("%q: exit %d, stdout %.200q, stderr %.200q", args, code, out, errs)
		}
	}
	if out, _, code := runCLI(t, nil, "traces", "cat", dir); code != 0 || strings.Count(out, `"licorice_trace"`) != 2 {
		t.Errorf("traces cat DIR: exit %d, %d headers", code, strings.Count(out, `"licorice_trace"`))
	}
}
