package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const (
	detectTrace = "../../detect/testdata/demo.jsonl"
	detectSpec  = "../../detect/testdata/demo.spec.json"
)

func TestDetectCommand(t *testing.T) {
	out, errs, code := runCLI(t, nil, "detect", "--spec", detectSpec, detectTrace)
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	for _, want := range []string{
		"licorice detect: 5 reports (5 findings) in demo.jsonl",
		"#1 precondition violation  Act.onPause × Act.onShow",
		"#2 REQ-KILL  Act.onChange × Act.onDraw",
		"mid KILL   E11 Act.onChange on main",
		"#3 REQ-KILL  Act.onPause × Act.onUpdateResults",
		"#4 GEN-KILL  Act.onClose × Act.onOpen",
		"#5 GEN-REQ  Act.onLoad × Act.refresh", // on a bound: last
		"missing    E1 (Act.onUpdateResults) was sent at line 19 by thread T1",
		"not checked: 1 condition disabled in the spec",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\033[") {
		t.Error("colour escapes in output that is not a terminal")
	}

	// --exit-code: status 1 when something is reported.
	if _, _, code := runCLI(t, nil, "detect", "--spec", detectSpec, "--exit-code", detectTrace); code != 1 {
		t.Errorf("--exit-code: status %d, want 1", code)
	}

	// JSON and SARIF parse, and -o writes the file.
	for _, format := range []string{"json", "sarif"} {
		path := filepath.Join(t.TempDir(), "out."+format)
		_, errs, code := runCLI(t, nil, "detect", "--spec", detectSpec, "--format", format, "-o", path, detectTrace)
		if code != 0 {
			t.Fatalf("%s: status %d: %s", format, code, errs)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		key := map[string]string{"json": "licorice_detect", "sarif": "version"}[format]
		if doc[key] == nil {
			t.Errorf("%s: no %q", format, key)
		}
	}

	// An allow-list suppresses and counts.
	allow := filepath.Join(t.TempDir(), "allow.txt")
	os.WriteFile(allow, []byte("class Act # everything\n"), 0o644)
	out, _, code = runCLI(t, nil, "detect", "--spec", detectSpec, "--allow", allow, detectTrace)
	if code != 0 || !strings.Contains(out, "0 reports") || !strings.Contains(out, "allowed: 5 findings (5 reports)") {
		t.Errorf("--allow: status %d:\n%s", code, out)
	}
}

func TestDetectCommandErrors(t *testing.T) {
	dir := t.TempDir()
	badAllow := filepath.Join(dir, "allow.txt")
	os.WriteFile(badAllow, []byte("handler a\npair x\n"), 0o644)
	badTrace := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(badTrace, []byte(`{"licorice_trace":1}`+"\n"+`{"op":"end","t":"E1"}`+"\n"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"detect", detectTrace}, 2, "--spec SPEC is required"},
		{[]string{"detect", "--spec", detectSpec}, 2, "detect: give the traces to check (files or directories) (usage: licorice detect --spec SPEC TRACE|DIR..."},
		{[]string{"detect", "--spec", detectSpec, "--format", "xml", detectTrace}, 2, `--format "xml"`},
		{[]string{"detect", "--spec", detectSpec, "-", "-"}, 2, `"-" given twice`},
		{[]string{"detect", "--spec", detectSpec, "--window", "-1s", detectTrace}, 2, "--window -1s"},
		{[]string{"detect", "--spec", filepath.Join(dir, "none.json"), detectTrace}, 1, "none.json"},
		{[]string{"detect", "--spec", detectSpec, "--allow", badAllow, detectTrace}, 1, "allow.txt:2: pair takes two handler patterns"},
		{[]string{"detect", "--spec", detectSpec, badTrace}, 1, "bad.jsonl:2"},
	}
	for _, tt := range tests {
		_, errs, code := runCLI(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}

func TestDemoCommand(t *testing.T) {
	keep := filepath.Join(t.TempDir(), "demo")
	out, errs, code := runCLI(t, nil, "demo", "--runs", "12", "--actions", "250", "--keep", keep)
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	for _, want := range []string{"licorice demo: MyTracks", "What happened:", "Try it yourself:", "The traces and the spec are in " + keep} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo does not say %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(keep, "mytracks.spec.json")); err != nil {
		t.Errorf("--keep: %v", err)
	}
	if _, errs, code := runCLI(t, nil, "demo", "--app", "nosuch"); code != 2 || !strings.Contains(errs, "unknown app nosuch") {
		t.Errorf("demo --app nosuch: status %d, %q", code, errs)
	}
}

func TestEvalCommand(t *testing.T) {
	out, errs, code := runCLI(t, nil, "eval", "--app", "eventracer", "--train-runs", "6", "--train-actions", "150",
		"--test-runs", "1", "--test-actions", "150", "--format", "json")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	var tab struct {
		Version int `json:"licorice_eval"` // the version key every JSON output has
		Rows    []struct {
			App string `json:"app"`
		} `json:"apps"`
	}
	if err := json.Unmarshal([]byte(out), &tab); err != nil || tab.Version != 1 || len(tab.Rows) != 1 || tab.Rows[0].App != "eventracer" {
		t.Errorf("eval --format json: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"eval", "--test-runs", "0"},
		{"eval", "--format", "csv"},
		{"eval", "--app", "nosuch"},
	} {
		if _, errs, code := runCLI(t, nil, args...); code != 2 {
			t.Errorf("%q: status %d (%s), want 2", args, code, errs)
		}
	}
}

// TestHTMLFormat: detect and races write one page with an item and a
// timeline per group; a trace read from standard input gets its items,
// not its timelines; demo --html writes the demo's report as a page.
func TestHTMLFormat(t *testing.T) {
	dir := t.TempDir()
	trace, err := os.ReadFile(detectTrace)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin []byte
		items int
		times int // timelines
	}{
		{"detect", []string{"detect", "--spec", detectSpec, "--format", "html", detectTrace}, nil, 5, 5},
		{"detect from stdin", []string{"detect", "--spec", detectSpec, "--format", "html", "-"}, trace, 5, 0},
		{"races", []string{"races", "--format", "html", mytracks}, nil, -1, -1},
	}
	for _, tt := range tests {
		var stdin io.Reader
		if tt.stdin != nil {
			stdin = bytes.NewReader(tt.stdin)
		}
		out, errs, code := runCLI(t, stdin, tt.args...)
		if code != 0 {
			t.Errorf("%s: status %d: %s", tt.name, code, errs)
			continue
		}
		if !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.HasSuffix(out, "</html>\n") {
			t.Errorf("%s: not a whole HTML page:\n%.200s", tt.name, out)
		}
		items, times := strings.Count(out, `<tr class="item"`), strings.Count(out, `<figure class="timeline">`)
		if tt.items < 0 {
			// As many as the text report's groups.
			text, _, _ := runCLI(t, nil, "races", mytracks)
			tt.items = len(regexp.MustCompile(`(?m)^G[0-9]+ `).FindAllString(text, -1))
			tt.times = tt.items
		}
		if items != tt.items || times != tt.times || items == 0 && tt.items != 0 {
			t.Errorf("%s: %d items and %d timelines, want %d and %d", tt.name, items, times, tt.items, tt.times)
		}
		if tt.stdin != nil && !strings.Contains(out, "the trace was read from standard input") {
			t.Errorf("%s: the page does not say why there is no timeline", tt.name)
		}
	}
	page := filepath.Join(dir, "demo.html")
	out, errs, code := runCLI(t, nil, "demo", "--runs", "12", "--actions", "250", "--html", page)
	if code != 0 || !strings.Contains(out, "The report as a page, with a timeline of each example: "+page) {
		t.Fatalf("demo --html: status %d, %s\n%s", code, errs, out)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("demo --html wrote no page: %v", err)
	}
	if _, errs, code := runCLI(t, nil, "demo", "--html", dir); code != 1 || !strings.Contains(errs, "is a directory") {
		t.Errorf("demo --html DIR: status %d, %q; want 1 and a directory error, before any work", code, errs)
	}
}
