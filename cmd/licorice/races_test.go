package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	mytracks  = "../../detect/races/testdata/mytracks.jsonl"
	mytracks2 = "../../detect/races/testdata/mytracks-2.jsonl"
	harmless  = "../../detect/races/testdata/harmless.txt"
	hbChain   = "../../detect/races/testdata/hb/chain.jsonl"
)

func TestRacesCommand(t *testing.T) {
	out, errs, code := runCLI(t, nil, "races", "--filter", harmless, "--window", "0", mytracks, mytracks2)
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	checkGolden(t, "races", "two-traces.txt", out)

	out, errs, code = runCLI(t, nil, "races", "--format", "json", "--kind", "use-free", mytracks)
	if code != 0 {
		t.Fatalf("json: status %d: %s", code, errs)
	}
	var doc struct {
		Version int `json:"licorice_races"`
		Traces  []struct {
			Groups []struct {
				Kind string `json:"kind"`
			} `json:"groups"`
		} `json:"traces"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 1 || len(doc.Traces) != 1 {
		t.Fatalf("json: %v, %+v", err, doc)
	}
	for _, g := range doc.Traces[0].Groups {
		if g.Kind != "use-free" {
			t.Errorf("--kind use-free printed a %s group", g.Kind)
		}
	}

	out, _, code = runCLI(t, nil, "races", "--summary", mytracks)
	if code != 0 || !strings.Contains(out, "data races: 6 found → 6 races in 6 groups") || strings.Contains(out, "G1") {
		t.Errorf("--summary: status %d, output:\n%s", code, out)
	}

	// Standard input is a trace too.
	data, err := os.ReadFile(mytracks)
	if err != nil {
		t.Fatal(err)
	}
	out, _, code = runCLI(t, strings.NewReader(string(data)), "races", "--all", "--per-group", "0", "-")
	if code != 0 || !strings.Contains(out, "trace <stdin>: 47 ops") || !strings.Contains(out, "every racing pair") {
		t.Errorf("stdin: status %d, output:\n%s", code, out)
	}
}

func TestRacesCommandErrors(t *testing.T) {
	dir := t.TempDir()
	badFilter := filepath.Join(dir, "bad.txt")
	os.WriteFile(badFilter, []byte("# ok\nfields=x\n"), 0o644)
	badTrace := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(badTrace, []byte("{\"licorice_trace\":1}\n{\"op\":\"end\",\"t\":\"E1\"}\n"), 0o644)
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"races"}, 2, "races: give the traces (files, directories, or - for standard input) (usage: licorice races TRACE|DIR..."},
		{[]string{"races", "--kind", "lost", mytracks}, 2, `--kind "lost": want data or use-free`},
		{[]string{"races", "--format", "xml", mytracks}, 2, `--format "xml": want text, json or html`},
		{[]string{"races", "--window", "-1s", mytracks}, 2, "--window -1s: must not be negative"},
		{[]string{"races", "--per-group", "-1", mytracks}, 2, "--per-group -1: must not be negative"},
		{[]string{"races", "--filter", filepath.Join(dir, "none.txt"), mytracks}, 1, "none.txt"},
		{[]string{"races", "--filter", badFilter, mytracks}, 1, badFilter + `:2: unknown key "fields"`},
		{[]string{"races", badTrace}, 1, badTrace + `:2: op "end" (task E1): task E1 has not begun`},
		{[]string{"races", filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl"},
	}
	for _, tt := range tests {
		_, errs, code := runCLI(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: status %d, stderr %q; want status %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}

func TestHBCommand(t *testing.T) {
	out, errs, code := runCLI(t, nil, "hb", hbChain, "A", "D")
	if code != 0 {
		t.Fatalf("status %d: %s", code, errs)
	}
	checkGolden(t, "races", "hb-chain-A-D.txt", out)

	out, _, code = runCLI(t, nil, "hb", "--format", "json", hbChain, "D", "E")
	var ex struct {
		Order      string `json:"order"`
		Concurrent struct {
			Reasons []string `json:"reasons"`
		} `json:"concurrent"`
	}
	if err := json.Unmarshal([]byte(out), &ex); code != 0 || err != nil || ex.Order != "concurrent" || len(ex.Concurrent.Reasons) == 0 {
		t.Errorf("json: status %d, %v, %+v", code, err, ex)
	}

	out, _, code = runCLI(t, nil, "hb", "--window", "0", hbChain)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 11 || !strings.HasPrefix(lines[0], `{"licorice_hb":1,`) || lines[1] != `{"a":"A","b":"C","order":"before"}` {
		t.Errorf("all pairs: status %d, %d lines:\n%s", code, len(lines), out)
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"hb", hbChain, "A"}, 2, "hb takes a trace, and two events or none (got 2 arguments)"},
		{[]string{"hb"}, 2, "hb takes a trace"},
		{[]string{"hb", hbChain, "A", "A"}, 2, "the two events are the same (A)"},
		{[]string{"hb", hbChain, "A", "Nope"}, 1, "event Nope is not in the trace"},
		{[]string{"hb", "--format", "yaml", hbChain, "A", "D"}, 2, `--format "yaml"`},
	} {
		_, errs, code := runCLI(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%q: status %d, stderr %q; want status %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}
