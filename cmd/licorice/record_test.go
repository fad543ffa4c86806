package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
)

// TestRecordSameBytes checks that the same flags write the same traces,
// that they are valid, and that the summary says what was written.
func TestRecordSameBytes(t *testing.T) {
	var dirs [2]string
	for i := range dirs {
		dirs[i] = t.TempDir()
		out, errOut, code := runCLI(t, nil, "record", "--app", "mytracks", "--runs", "4", "--actions", "60",
			"--seed", "3", "--format", "jsonl", "-o", dirs[i])
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "wrote 4 traces of mytracks") || !strings.Contains(out, "2 shuffled") {
			t.Errorf("summary: %q", out)
		}
	}
	files, err := filepath.Glob(filepath.Join(dirs[0], "*"))
	if err != nil || len(files) != 4 {
		t.Fatalf("files %v, %v; want 4", files, err)
	}
	for _, f := range files {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(dirs[1], filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with the same flags", filepath.Base(f))
		}
		if n := validate(t, f); n < 100 {
			t.Errorf("%s: %d ops", f, n)
		}
	}
}

// validate reads the trace at path with validation and returns its ops.
func validate(t *testing.T, path string) int {
	t.Helper()
	r, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var op traces.Op
	for {
		err := r.Next(&op)
		if errors.Is(err, io.EOF) {
			return r.Count()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestRecordList(t *testing.T) {
	out, _, code := runCLI(t, nil, "record", "--list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, a := range apps.All() {
		if !strings.Contains(out, a.Name+" — ") {
			t.Errorf("--list does not describe %s", a.Name)
		}
		for _, r := range a.Harmful {
			if !strings.Contains(out, r.A+" / "+r.B) {
				t.Errorf("--list does not show %s's harmful pair %s / %s", a.Name, r.A, r.B)
			}
		}
	}
}

func TestRecordUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"record", "-o", dir}, "--app is required"},
		{[]string{"record", "--app", "nope", "-o", dir}, `unknown app "nope"`},
		{[]string{"record", "--app", "vlc"}, "-o DIR is required"},
		{[]string{"record", "--app", "vlc", "-o", dir, "--shuffled", "2"}, "--shuffled 2"},
		{[]string{"record", "--app", "vlc", "-o", dir, "--runs", "0"}, "--runs 0"},
		{[]string{"record", "--app", "vlc", "-o", dir, "--format", "xml"}, "--format"},
		{[]string{"record", "--app", "vlc", "-o", dir, "--delay-mean", "-1s"}, "--delay-mean"},
	}
	for _, tt := range tests {
		_, errOut, code := runCLI(t, nil, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// TestRecordIntoTraces checks that record refuses a directory that holds
// traces, writing nothing; with --force it writes among them and reports
// the traces an earlier, longer batch left.
func TestRecordIntoTraces(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := runCLI(t, nil, "record", "--app", "vlc", "--runs", "3", "--actions", "20", "-o", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	before, _ := os.ReadDir(dir)
	_, errOut, code := runCLI(t, nil, "record", "--app", "vlc", "--runs", "1", "--actions", "30", "--seed", "9", "-o", dir)
	if code != 2 || !strings.Contains(errOut, "already holds 3 traces (vlc-000.lct, ...)") || !strings.Contains(errOut, "--force") {
		t.Fatalf("into a directory of traces: exit %d, %q; want exit 2 naming the traces and --force", code, errOut)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(before) {
		t.Fatalf("a refused record changed the directory: %d entries, then %d", len(before), len(after))
	}
	_, errOut, code = runCLI(t, nil, "record", "--app", "vlc", "--runs", "1", "--actions", "20", "--force", "-o", dir)
	if code != 0 || !strings.Contains(errOut, "2 other traces of vlc") {
		t.Errorf("--force: exit %d, stderr %q; want 0 and a note of the 2 other traces", code, errOut)
	}
}
