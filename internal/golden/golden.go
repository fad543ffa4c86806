package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Update reports whether the tests run with -update: golden files are to
// be written, not compared.
func Update() bool { return *update }

// maxLines is how much of got and want a failure shows.
const maxLines = 60

// Check compares got with the file at path. With -update it writes got
// there instead (making its directory if need be).
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (if the change is intended, run go test -update):\n--- got\n%s--- want\n%s", path, head(got), head(want))
	}
}

// head returns the first maxLines lines of b.
func head(b []byte) string {
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > maxLines {
		return strings.Join(lines[:maxLines], "") + "…\n"
	}
	return string(b)
}
