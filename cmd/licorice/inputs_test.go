package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// inputKind is one kind of argument a user may give where a command
// wants a file.
type inputKind struct {
	name string
	arg  func(t *testing.T, c inputCase, dir string) string // the argument, made in dir
	ok   func(c inputCase) bool                             // whether the command must succeed
}

// inputCase is a command with one input argument, written {IN}; {OUT} is
// its output file, if it writes one.
type inputCase struct {
	name  string
	args  []string
	valid string // a valid input file
	wrong string // a file of another kind than the command wants
	dirs  bool   // takes a directory of traces
	stdin bool   // takes "-"
	out   string // the name of {OUT} (default out.txt)
}

var inputKinds = []inputKind{
	{"file", func(t *testing.T, c inputCase, dir string) string { return copyFile(t, c.valid, dir) }, func(inputCase) bool { return true }},
	{"dir", func(t *testing.T, c inputCase, dir string) string {
		sub := filepath.Join(dir, "corpus")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, c.valid, sub)
		return sub
	}, func(c inputCase) bool { return c.dirs }},
	{"stdin", func(*testing.T, inputCase, string) string { return "-" }, func(c inputCase) bool { return c.stdin }},
	{"missing", func(_ *testing.T, _ inputCase, dir string) string { return filepath.Join(dir, "missing.jsonl") }, func(inputCase) bool { return false }},
	{"empty", func(t *testing.T, _ inputCase, dir string) string {
		p := filepath.Join(dir, "empty.jsonl")
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}, func(inputCase) bool { return false }},
	{"wrong kind", func(t *testing.T, c inputCase, dir string) string { return copyFile(t, c.wrong, dir) }, func(inputCase) bool { return false }},
}

// goTypeName matches what a Go error may leak: "learn.specJSON",
// "*os.PathError", "[]string".
var goTypeName = regexp.MustCompile(`\*?\b[a-z]+\.[a-z]*[A-Z]\w*\b|\[\][a-z]+\b|\bmap\[`)

// TestInputs runs every command that reads files on every kind of input:
// a file and, where the command takes them, a directory and "-" work; a
// missing file, an empty one and one of the wrong kind fail with a
// non-zero status, a message that names the input and no Go type, and no
// output file. The messages are in testdata/cli/inputs.golden.
func TestInputs(t *testing.T) {
	const trace = detectTrace
	// A learned spec with its whole learning state (--mergeable): merge
	// wants it, and a hand-written spec lacks it.
	spec := filepath.Join(t.TempDir(), "learned.spec.json")
	if _, errs, code := runCLI(t, nil, "learn", "--mergeable", trace, "-o", spec); code != 0 {
		t.Fatalf("learn: %s", errs)
	}
	cases := []inputCase{
		{"learn", []string{"learn", "{IN}", "-o", "{OUT}"}, trace, detectSpec, true, true, ""},
		{"detect", []string{"detect", "--spec", detectSpec, "{IN}", "-o", "{OUT}"}, trace, detectSpec, true, true, ""},
		{"detect --spec", []string{"detect", "--spec", "{IN}", trace, "-o", "{OUT}"}, spec, trace, false, true, ""},
		{"spec check", []string{"spec", "check", detectSpec, "{IN}"}, trace, detectSpec, true, true, ""},
		{"spec show", []string{"spec", "show", "{IN}", "-o", "{OUT}"}, spec, trace, false, true, ""},
		{"spec merge", []string{"spec", "merge", "{IN}", "-o", "{OUT}"}, spec, trace, false, true, "out.spec.json"},
		{"races", []string{"races", "{IN}", "-o", "{OUT}"}, trace, detectSpec, true, true, ""},
		{"hb", []string{"hb", "{IN}", "-o", "{OUT}"}, trace, detectSpec, false, true, ""},
		{"traces cat", []string{"traces", "cat", "{IN}", "-o", "{OUT}"}, trace, detectSpec, true, true, ""},
		{"traces stat", []string{"traces", "stat", "{IN}", "-o", "{OUT}"}, trace, detectSpec, true, true, ""},
		{"traces validate", []string{"traces", "validate", "{IN}"}, trace, detectSpec, true, true, ""},
		{"traces convert", []string{"traces", "convert", "{IN}", "{OUT}"}, trace, detectSpec, false, true, "out.lct"},
		{"traces import", []string{"traces", "import", "--from", "droidracer", "{IN}", "-o", "{OUT}"}, remindMe, trace, false, true, "out.jsonl"},
		{"compare droidracer", []string{"compare", "droidracer", "{IN}", "-o", "{OUT}"}, remindMe, trace, false, true, ""},
		{"templates check", []string{"templates", "check", "{IN}"}, "testdata/cli/templates.json", trace, false, true, ""},
	}
	var golden strings.Builder
	for _, c := range cases {
		for _, k := range inputKinds {
			t.Run(c.name+"/"+k.name, func(t *testing.T) {
				dir := t.TempDir()
				in := k.arg(t, c, dir)
				out := filepath.Join(dir, cmp.Or(c.out, "out.txt"))
				var args []string
				for _, a := range c.args {
					args = append(args, strings.NewReplacer("{IN}", in, "{OUT}", out).Replace(a))
				}
				stdin, err := os.Open(c.valid)
				if err != nil {
					t.Fatal(err)
				}
				defer stdin.Close()
				stdout, stderr, code := runCLI(t, stdin, args...)
				// The first line of the error, or of the report of a
				// command that lists problems on standard output.
				msg, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
				if code != 0 && stdout != "" {
					msg, _, _ = strings.Cut(strings.TrimSpace(stdout), "\n")
				}
				msg = strings.ReplaceAll(msg, dir, "$DIR")
				fmt.Fprintf(&golden, "%-19s %-10s exit %d  %s\n", c.name, k.name, code, msg)

				_, statErr := os.Stat(out)
				wrote := statErr == nil
				if k.ok(c) {
					if code != 0 {
						t.Fatalf("%q: exit %d: %s", args, code, stderr)
					}
					if strings.Contains(strings.Join(c.args, " "), "{OUT}") && !wrote {
						t.Errorf("%q: no output file; stdout:\n%.300s", args, stdout)
					}
					return
				}
				if code == 0 {
					t.Fatalf("%q: exit 0, want a failure; stdout:\n%.300s", args, stdout)
				}
				if wrote {
					t.Errorf("%q failed, but wrote %s", args, out)
				}
				name := filepath.Base(in)
				if in == "-" {
					name = "-"
				}
				if !strings.Contains(stdout+stderr, name) && !strings.Contains(stdout+stderr, "<stdin>") {
					t.Errorf("%q: the message does not name the input %s: %s%s", args, name, stdout, stderr)
				}
				if m := goTypeName.FindString(stderr); m != "" {
					t.Errorf("%q: the message shows the Go name %q: %s", args, m, stderr)
				}
			})
		}
	}
	// Standard input holds one input: "-" twice is a mistake of usage.
	for _, args := range [][]string{
		{"learn", "-", "-", "-o", "{OUT}"},
		{"learn", "--templates", "-", "-", "-o", "{OUT}"},
		{"detect", "--spec", "-", "-"},
		{"detect", "--spec", spec, "--allow", "-", "-"},
		{"spec", "check", "-", "-"},
		{"spec", "merge", "-", "-", "-o", "{OUT}"},
		{"races", "-", "-"},
		{"traces", "stat", "-", "-"},
	} {
		out := filepath.Join(t.TempDir(), "out.txt")
		for i, a := range args {
			if a == "{OUT}" {
				args[i] = out
			}
		}
		_, stderr, code := runCLI(t, strings.NewReader(""), args...)
		fmt.Fprintf(&golden, "%-30s exit %d  %s", strings.Join(args[:2], " ")+" … - -", code, stderr)
		if code != 2 || !strings.Contains(stderr, `"-" given twice`) {
			t.Errorf("%q: exit %d, %s; want 2 and \"-\" given twice", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q failed, but wrote %s", args, out)
		}
	}
	checkGolden(t, "cli", "inputs.golden", golden.String())
}
