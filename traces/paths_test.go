package traces

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.lct", "a.jsonl", "c.jsonl.zst", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.lct"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	in := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	tests := []struct {
		name string
		args []string
		want []string
		err  string
	}{
		{"a directory: its traces, by name", []string{dir}, in("a.jsonl", "b.lct", "c.jsonl.zst"), ""},
		{"files and - as given", []string{"x.lct", "-", dir + "/notes.txt"}, []string{"x.lct", "-", dir + "/notes.txt"}, ""},
		{"- twice", []string{"-", "a.lct", "-"}, nil, `"-" given twice`},
		{"a directory without traces", []string{empty}, nil, "no trace files"},
		{"a missing path stays", []string{"nope.jsonl"}, []string{"nope.jsonl"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Paths(tt.args)
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("err = %v, want %q", err, tt.err)
			case tt.err == "" && (err != nil || !slices.Equal(got, tt.want)):
				t.Fatalf("Paths = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
