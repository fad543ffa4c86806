package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	boxTrace     = "testdata/learn/box.jsonl"
	erroredTrace = "testdata/learn/errored.jsonl"
)

func TestLearnCommand(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "box.spec.json")
	out, errs, code := runCLI(t, nil, "learn", boxTrace, erroredTrace, "-o", spec, "--templates", "testdata/learn/templates.json", "-j", "2")
	if code != 0 {
		t.Fatalf("learn: status %d: %s", code, errs)
	}
	checkGolden(t, "learn", "learn.golden", strings.ReplaceAll(out, dir, "DIR"))
	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "learn", "box.spec.json", string(data))

	out, _, code = runCLI(t, nil, "spec", "show", spec, "-v")
	if code != 0 {
		t.Fatalf("spec show: status %d", code)
	}
	checkGolden(t, "learn", "show.golden", out)

	// Learning to standard output gives the same spec, and the summary
	// goes to standard error.
	out, errs, code = runCLI(t, nil, "learn", boxTrace, erroredTrace, "-o", "-", "--templates", "testdata/learn/templates.json")
	if code != 0 || out != string(data) || !strings.Contains(errs, "learned ") {
		t.Errorf("learn -o -: status %d, spec equal %v, stderr %q", code, out == string(data), errs)
	}
}

func TestLearnCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"learn", boxTrace}, 2, "-o SPEC is required"},
		{[]string{"learn", "-o", "x.json"}, 2, "learn: give the training traces (files or directories) (usage: licorice learn TRACE|DIR... -o SPEC"},
		{[]string{"learn", boxTrace, "-o", "x.json", "--confidence", "2"}, 2, "--confidence 2"},
		{[]string{"learn", boxTrace, "-o", "x.json", "--min-samples", "0"}, 2, "--min-samples 0"},
		{[]string{"learn", "testdata/learn/nope.jsonl", "-o", "x.json"}, 1, "nope.jsonl"},
		{[]string{"learn", "testdata", "-o", "x.json"}, 1, "no trace files"},
		{[]string{"learn", boxTrace, "-o", "x.json", "--templates", "testdata/learn/bad-templates.json"}, 1, "bad-templates.json:3:"},
		{[]string{"spec", "show", "testdata/learn/box.jsonl"}, 1, "box.jsonl"},
		{[]string{"spec", "show", "testdata/learn/box.spec.json", "--handler", "tick"}, 1, "did you mean Box.tick?"},
		{[]string{"spec", "merge", "testdata/learn/box.spec.json"}, 2, "-o SPEC is required"},
		{[]string{"templates", "check", "a.json", "b.json"}, 2, `templates check: unexpected argument "b.json": it takes the template file`},
		{[]string{"templates", "list", "a.json"}, 2, `templates list: unexpected argument "a.json": it takes none`},
	}
	for _, tc := range tests {
		_, errs, code := runCLI(t, nil, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: status %d, stderr %q; want status %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	if _, err := os.Stat("x.json"); err == nil {
		os.Remove("x.json")
		t.Error("a failed learn wrote its output")
	}
}

func TestSpecMergeCommand(t *testing.T) {
	dir := t.TempDir()
	all, a, b, merged := filepath.Join(dir, "all.json"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "m.json")
	// Without --mergeable a spec keeps only what its conditions need, and
	// merging it is refused.
	if _, errs, code := runCLI(t, nil, "learn", boxTrace, "-o", a); code != 0 {
		t.Fatalf("learn: %s", errs)
	}
	if _, errs, code := runCLI(t, nil, "spec", "merge", a, a, "-o", merged); code != 1 || !strings.Contains(errs, "learn the shards with --mergeable") {
		t.Errorf("merging a spec learned without --mergeable: status %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(merged); err == nil {
		t.Error("a refused merge wrote its output")
	}
	for _, run := range [][]string{
		{"learn", "--mergeable", boxTrace, erroredTrace, "-o", all},
		{"learn", "--mergeable", boxTrace, "-o", a},
		{"learn", "--mergeable", erroredTrace, "-o", b},
	} {
		if _, errs, code := runCLI(t, nil, run...); code != 0 {
			t.Fatalf("%q: %s", run, errs)
		}
	}
	out, errs, code := runCLI(t, nil, "spec", "merge", a, b, "-o", merged)
	if code != 0 {
		t.Fatalf("merge: %s", errs)
	}
	if want := "merged 2 specs (2 traces): 4 conditions for 1 handler; wrote " + merged + "\n"; out != want {
		t.Errorf("merge said %q, want %q", out, want)
	}
	x, _ := os.ReadFile(all)
	y, _ := os.ReadFile(merged)
	if !bytes.Equal(x, y) {
		t.Error("merged spec differs from learning on all traces")
	}
}

func TestTemplatesCommands(t *testing.T) {
	out, _, code := runCLI(t, nil, "templates", "list", "--templates", "testdata/learn/templates.json")
	if code != 0 {
		t.Fatalf("list: status %d", code)
	}
	checkGolden(t, "learn", "templates-list.golden", out)

	out, _, code = runCLI(t, nil, "templates", "check", "testdata/learn/templates.json")
	if code != 0 || out != "testdata/learn/templates.json: ok, 2 templates (gap, small)\n" {
		t.Errorf("check good file: status %d, %q", code, out)
	}
	out, errs, code := runCLI(t, nil, "templates", "check", "testdata/learn/bad-templates.json")
	if code != 1 {
		t.Errorf("check bad file: status %d", code)
	}
	checkGolden(t, "learn", "templates-check.golden", out+errs)
}

func TestSpecCheckCommand(t *testing.T) {
	// The spec of box.jsonl, checked against itself, holds; one whose line
	// was edited is falsified.
	dir := t.TempDir()
	spec := filepath.Join(dir, "box.json")
	if _, errs, code := runCLI(t, nil, "learn", boxTrace, "-o", spec); code != 0 {
		t.Fatal(errs)
	}
	out, _, code := runCLI(t, nil, "spec", "check", spec, boxTrace, erroredTrace, "-v")
	if code != 0 {
		t.Errorf("self check: status %d: %s", code, out)
	}
	data, _ := os.ReadFile(spec)
	// The constants edited, and the text with them (an edit of the
	// constants alone is an error: TestSpecTextEdited).
	narrow := strings.Replace(string(data), `"constants": {"a": 1.0, "b": -1.0}`, `"constants": {"a": 1.0, "b": -2.0}`, 1)
	narrow = strings.Replace(narrow, `"text": "Box.tick: this.n == this.m - 1"`, `"text": "Box.tick: this.n == this.m - 2"`, 1)
	if err := os.WriteFile(spec, []byte(narrow), 0o644); err != nil {
		t.Fatal(err)
	}
	out2, _, code := runCLI(t, nil, "spec", "check", spec, boxTrace, "-v")
	if code != 1 {
		t.Errorf("narrowed spec: status %d", code)
	}
	checkGolden(t, "learn", "check.golden", out+out2)
}

// TestSpecTextEdited: a condition whose text was edited without its
// structure (or the other way round) is an error at its line, not an edit
// silently ignored.
func TestSpecTextEdited(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "box.json")
	if _, errs, code := runCLI(t, nil, "learn", boxTrace, "-o", spec); code != 0 {
		t.Fatal(errs)
	}
	data, _ := os.ReadFile(spec)
	edited := strings.Replace(string(data), `"text": "Box.tick: this.n == this.m - 1"`, `"text": "Box.tick: this.n == this.m - 5"`, 1)
	if edited == string(data) {
		t.Fatal("the spec has no such condition")
	}
	if err := os.WriteFile(spec, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runCLI(t, nil, "spec", "check", spec, boxTrace)
	if code != 1 || !strings.Contains(errs, "the text does not say what the condition is (\"Box.tick: this.n == this.m - 1\")") || !strings.Contains(errs, spec+":") {
		t.Errorf("status %d, stderr %q", code, errs)
	}
}
