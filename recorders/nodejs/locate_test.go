package nodejs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/licorice-dev/licorice/recorders/nodejs"
)

func TestIsESModule(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("esm/package.json", `{"type": "module"}`)
	write("cjs/package.json", `{"name": "x"}`)
	tests := []struct {
		file string
		want bool
	}{
		{write("a.mjs", ""), true},
		{write("esm/b.cjs", ""), false},
		{write("esm/lib/c.js", ""), true},
		{write("cjs/d.js", ""), false},
		{write("cjs/e.mjs", ""), true},
	}
	for _, tc := range tests {
		if got := nodejs.IsESModule(tc.file); got != tc.want {
			t.Errorf("IsESModule(%s) = %v, want %v", tc.file, got, tc.want)
		}
	}
}
