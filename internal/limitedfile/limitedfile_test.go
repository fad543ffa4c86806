package limitedfile

import (
	"errors"
	"fmt"
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
			// View sees what Read returns, and fails as it does.
			var viewed string
			verr := View(tt.path, 1024, "a spec", func(data []byte) error {
				viewed = string(data)
				return nil
			})
			if fmt.Sprint(verr) != fmt.Sprint(err) || viewed != string(data) {
				t.Fatalf("View = %q, %v; Read = %q, %v", viewed, verr, data, err)
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
			verr := ViewJSONObject(tt.path, 1<<30, "a spec", func([]byte) error { return nil })
			if fmt.Sprint(verr) != fmt.Sprint(err) {
				t.Errorf("ViewJSONObject: %v; ReadJSONObject: %v", verr, err)
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

// TestViewFileShrinks: a file cut short while View's function reads it is
// an error, not a crash (a mapped page past the new end faults).
func TestViewFileShrinks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(p, []byte("{"+strings.Repeat(" ", 1<<20)+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var last byte
	err := View(p, 1<<30, "a spec", func(data []byte) error {
		if err := os.Truncate(p, 0); err != nil {
			return err
		}
		last = data[len(data)-1]
		return nil
	})
	if err == nil && last == '}' {
		t.Skip("this system reads a mapped file's old contents after it shrank (no mapping, or a copy)")
	}
	if !errors.Is(err, errShrank) {
		t.Fatalf("err = %v (read %q), want %v", err, last, errShrank)
	}
}
