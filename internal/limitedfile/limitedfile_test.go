package limitedfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(small, []byte("1234"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string // data, or the error's text
		err        bool
	}{
		{"within", small, "1234", false},
		{"at the limit", small, "1234", false},
		{"a file over", big, big + ": larger than 1 KiB, more than a spec may hold", true},
		{"an endless device", "/dev/zero", "/dev/zero: larger than 1 KiB, more than a spec may hold", true},
		{"missing", filepath.Join(dir, "no"), "no such file", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.path); tt.path == "/dev/zero" && err != nil {
				t.Skip("no /dev/zero")
			}
			start := time.Now()
			data, err := Read(tt.path, 1024, "a spec")
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			switch {
			case tt.err && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want %q", err, tt.want)
			case !tt.err && (err != nil || string(data) != tt.want):
				t.Fatalf("Read = %q, %v; want %q", data, err, tt.want)
			}
		})
	}
}

func TestReadJSONObject(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string // want "" for no error
	}{
		{"an object", write("a.json", ` {"a": 1}`), ""},
		{"after a byte-order mark", write("bom.json", "\ufeff\n{}"), ""},
		{"an array", write("arr.json", `[1, 2, 3]`), `not a spec (a JSON object): it starts with "[1, 2, 3"`},
		{"empty", write("empty.json", ``), "the file is empty"},
		{"blank", write("blank.json", "\n\n  "), "only white space"},
		{"a binary trace", write("t.lct", "LCT\x00\x01"), `it starts with "LCT\x00\x01"`},
		{"a text trace", write("t.jsonl", `{"licorice_trace":1}`+"\n"), `not a spec (a JSON object): it is a licorice trace`},
		{"a directory", dir, "is a directory, not a spec"},
		{"an endless device", "/dev/zero", `it starts with "\x00\x00`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := ReadJSONObject(tt.path, 1<<30, "a spec")
			if time.Since(start) > time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
