package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompareDroidRacer(t *testing.T) {
	stdout, stderr, code := runCLI(t, nil, "compare", "droidracer", remindMe)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"DroidRacer: 54 race witnesses on 54 locations",
		"both     same    54         54",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in:\n%s", want, stdout)
		}
	}

	stdout, stderr, code = runCLI(t, nil, "compare", "droidracer", "--format", "json", "--lifecycle", "--app", "rm", remindMe)
	var doc struct {
		Version   int  `json:"licorice_compare"`
		Lifecycle bool `json:"lifecycle"`
		Witnesses int  `json:"witnesses"`
		Locations []struct {
			Verdict string `json:"verdict"`
		} `json:"locations"`
	}
	if code != 0 || stderr != "" {
		t.Fatalf("json: exit %d, stderr:\n%s", code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || !doc.Lifecycle || doc.Witnesses != 54 || len(doc.Locations) != 54 {
		t.Errorf("json: %+v", doc)
	}
}

func TestCompareErrors(t *testing.T) {
	dir := t.TempDir()
	noReport := filepath.Join(dir, "abc_log.txt")
	if err := os.WriteFile(noReport, []byte("1 START\n2 THREADINIT tid:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"compare"}, 2, "licorice compare droidracer LOG"},
		{[]string{"compare", "droidracer"}, 2, "compare droidracer: give the DroidRacer log (abc_log.txt) (usage: licorice compare droidracer LOG"},
		{[]string{"compare", "droidracer", "--format", "xml", remindMe}, 2, `--format "xml"`},
		{[]string{"compare", "droidracer", filepath.Join(dir, "missing.txt")}, 1, "no such file"},
		{[]string{"compare", "droidracer", noReport}, 1, "no race report"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, nil, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
}
