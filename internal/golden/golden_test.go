package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what the check says.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		got  string
		fail bool
	}{
		{"one\ntwo\n", false},
		{"one\n", true},
		{"one\ntwo\nthree\n", true},
	}
	for _, tt := range tests {
		r := &recorder{TB: t}
		Check(r, path, []byte(tt.got))
		if failed := len(r.errors) > 0; failed != tt.fail {
			t.Errorf("got %q: failed %v, want %v", tt.got, failed, tt.fail)
		}
	}
}

func TestHead(t *testing.T) {
	long := strings.Repeat("x\n", maxLines+5)
	if got := head([]byte(long)); strings.Count(got, "\n") != maxLines+1 || !strings.HasSuffix(got, "…\n") {
		t.Errorf("head of %d lines: %d lines", maxLines+5, strings.Count(got, "\n"))
	}
	if got := head([]byte("a\nb\n")); got != "a\nb\n" {
		t.Errorf("head of a short text: %q", got)
	}
}
