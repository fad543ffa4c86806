package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		commit bool
		want   string // "" means the file must not exist
	}{
		{"committed", true, "data"},
		{"aborted", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dest := filepath.Join(dir, tt.name+".out")
			f, err := Create(dest)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Abort()
			if _, err := f.WriteString("data"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Fatalf("destination exists before commit: %v", err)
			}
			if tt.commit {
				if err := f.Commit(); err != nil {
					t.Fatal(err)
				}
			} else {
				f.Abort()
			}
			got, err := os.ReadFile(dest)
			switch {
			case tt.want == "" && !os.IsNotExist(err):
				t.Fatalf("aborted file exists (err %v)", err)
			case tt.want != "" && string(got) != tt.want:
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if filepath.Ext(e.Name()) != ".out" {
					t.Errorf("temporary file left behind: %s", e.Name())
				}
			}
		})
	}
}
