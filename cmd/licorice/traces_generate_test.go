package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// traces generate writes a valid trace, the same bytes for the same
// flags, in the form the name asks for; bad flags are usage errors.
func TestTracesGenerate(t *testing.T) {
	dir := t.TempDir()
	for _, shape := range []string{"app", "android", "small"} {
		a, b := filepath.Join(dir, shape+"-a.lct"), filepath.Join(dir, shape+"-b.jsonl")
		for _, out := range []string{a, b} {
			if _, errs, code := runCLI(t, nil, "traces", "generate", "--shape", shape, "--events", "200", "--seed", "7", "-o", out); code != 0 {
				t.Fatalf("%s: exit %d: %s", shape, code, errs)
			}
			if stdout, _, code := runCLI(t, nil, "traces", "validate", out); code != 0 {
				t.Fatalf("%s: the generated trace is invalid:\n%s", out, stdout)
			}
		}
		catA, _, _ := runCLI(t, nil, "traces", "cat", a)
		catB, _, _ := runCLI(t, nil, "traces", "cat", b)
		if catA != catB || !strings.Contains(catA, `"seed":7`) {
			t.Errorf("%s: .lct and .jsonl hold different traces, or not seed 7", shape)
		}
		again := filepath.Join(dir, shape+"-again.lct")
		runCLI(t, nil, "traces", "generate", "--shape", shape, "--events", "200", "--seed", "7", "-o", again)
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(again)
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s: the same flags gave different bytes", shape)
		}
	}
	for _, args := range [][]string{
		{"traces", "generate", "--events", "10"},
		{"traces", "generate", "--shape", "huge", "-o", filepath.Join(dir, "x.lct")},
		{"traces", "generate", "--events", "0", "-o", filepath.Join(dir, "x.lct")},
		{"traces", "generate", "-o", filepath.Join(dir, "x.txt")},
	} {
		if _, errs, code := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%q: exit %d (%s), want 2", args, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.lct")); err == nil {
		t.Error("a refused command wrote its output")
	}
}
