package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const myTracks = "testdata/traces/mytracks.jsonl"

func TestTracesCat(t *testing.T) {
	out, errs, code := runCLI(t, nil, "traces", "cat", myTracks)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkGolden(t, "traces", "cat.golden", out)

	// Every form prints the same text; so does standard input.
	dir := t.TempDir()
	for _, name := range []string{"t.lct", "t.jsonl.zst", "t.jsonl"} {
		conv := filepath.Join(dir, name)
		if _, errs, code := runCLI(t, nil, "traces", "convert", myTracks, conv); code != 0 {
			t.Fatalf("convert to %s: exit %d: %s", name, code, errs)
		}
		if got, errs, _ := runCLI(t, nil, "traces", "cat", conv); got != out {
			t.Errorf("cat %s differs from cat of the text: %s\n%s", name, errs, got)
		}
		data, err := os.ReadFile(conv)
		if err != nil {
			t.Fatal(err)
		}
		if got, errs, _ := runCLI(t, bytes.NewReader(data), "traces", "cat", "-"); got != out {
			t.Errorf("cat - < %s differs: %s", name, errs)
		}
	}
	// Several files, one after the other.
	two, _, _ := runCLI(t, nil, "traces", "cat", myTracks, filepath.Join(dir, "t.lct"))
	if two != out+out {
		t.Errorf("cat of two files is not the two texts")
	}
}

func TestTracesCatStopsAtFirstError(t *testing.T) {
	out, errs, code := runCLI(t, nil, "traces", "cat", "testdata/traces/bad.jsonl")
	if code != 1 || !strings.Contains(errs, "bad.jsonl:3: op \"unlock\"") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if strings.Count(out, "\n") != 2 { // the header and the first op
		t.Errorf("printed %q", out)
	}
	// --no-validate prints what is well formed, up to the syntax error.
	_, errs, code = runCLI(t, nil, "traces", "cat", "--no-validate", "testdata/traces/bad.jsonl")
	if code != 1 || !strings.Contains(errs, `bad.jsonl:4: op "lock" (task T): unknown field "bad"`) {
		t.Errorf("--no-validate: exit %d, stderr %q", code, errs)
	}
}

func TestTracesConvert(t *testing.T) {
	dir := t.TempDir()
	lct := filepath.Join(dir, "out.trace")
	if _, errs, code := runCLI(t, nil, "traces", "convert", "--to", "lct", myTracks, lct); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(lct)
	if !bytes.HasPrefix(data, []byte("\x89LCT")) {
		t.Errorf("--to lct wrote %q...", data[:8])
	}
	// In place, and to standard output.
	if _, errs, code := runCLI(t, nil, "traces", "convert", "--to", "jsonl.zst", lct, lct); code != 0 {
		t.Fatalf("in place: exit %d: %s", code, errs)
	}
	out, errs, code := runCLI(t, nil, "traces", "convert", lct, "-")
	want, _, _ := runCLI(t, nil, "traces", "cat", myTracks)
	if code != 0 || out != want {
		t.Errorf("convert to -: exit %d %s", code, errs)
	}
	// A trace that breaks the contract leaves no output behind.
	bad := filepath.Join(dir, "bad.lct")
	_, errs, code = runCLI(t, nil, "traces", "convert", "testdata/traces/bad.jsonl", bad)
	if code != 1 || !strings.Contains(errs, "bad.jsonl:3:") {
		t.Errorf("bad trace: exit %d, stderr %q", code, errs)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*bad*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestTracesStat(t *testing.T) {
	out, errs, code := runCLI(t, nil, "traces", "stat", myTracks)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkGolden(t, "traces", "stat.golden", out)
	out, errs, code = runCLI(t, nil, "traces", "stat", "--format", "json", myTracks, myTracks)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkGolden(t, "traces", "stat-json.golden", out)
	// --json, from before --format, still says the same.
	if old, _, code := runCLI(t, nil, "traces", "stat", "--json", myTracks, myTracks); code != 0 || old != out {
		t.Errorf("--json: exit %d, and not the output of --format json", code)
	}
}

func TestTracesValidate(t *testing.T) {
	out, errs, code := runCLI(t, nil, "traces", "validate", myTracks, "testdata/traces/bad.jsonl", "testdata/traces/nosuchfile.jsonl")
	if code != 1 || errs != "2 of 3 traces are invalid\n" {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	checkGolden(t, "traces", "validate.golden", out)
	out, _, code = runCLI(t, nil, "traces", "validate", "--max-errors", "2", "testdata/traces/bad.jsonl")
	if code != 1 || strings.Count(out, "bad.jsonl:") != 3 || !strings.Contains(out, "stopped after 2 errors") {
		t.Errorf("--max-errors 2: exit %d, out %q", code, out)
	}
	out, _, code = runCLI(t, nil, "traces", "validate", myTracks)
	if code != 0 || out != myTracks+": ok\n" {
		t.Errorf("valid trace: exit %d, out %q", code, out)
	}
}

func TestTracesUsage(t *testing.T) {
	for _, args := range [][]string{
		{"traces", "cat"},
		{"traces", "convert", myTracks},
		{"traces", "convert", myTracks, "out.txt"},
		{"traces", "convert", "--to", "xml", myTracks, "out.lct"},
		{"traces", "stat"},
		{"traces", "validate", "--max-errors", "-1", myTracks},
		{"traces", "stat", "--color", myTracks},
	} {
		if _, errs, code := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errs)
		}
	}
}
