package traces

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"
)

func validTraceFiles(t *testing.T) []string {
	names, err := filepath.Glob("testdata/valid/*.jsonl")
	if err != nil || len(names) == 0 {
		t.Fatalf("no valid traces: %v", err)
	}
	return names
}

// validateFile lists every error of a trace file, one per line.
func validateFile(t *testing.T, path string) []byte {
	var out bytes.Buffer
	r, err := Open(path)
	if err != nil {
		out.WriteString(err.Error() + "\n")
		return out.Bytes()
	}
	defer r.Close()
	_, err = ValidateAll(context.Background(), r, 20, func(err error) {
		out.WriteString(err.Error() + "\n")
	})
	if err != nil {
		out.WriteString(err.Error() + "\n")
	}
	return out.Bytes()
}

func TestValidTraces(t *testing.T) {
	for _, name := range validTraceFiles(t) {
		if out := validateFile(t, name); len(out) > 0 {
			t.Errorf("%s:\n%s", name, out)
		}
	}
}

// TestInvalidTraces reads each bad trace under testdata/invalid (one per
// rule of the contract and per error of the text decoder) and compares all
// the errors it has with its golden file.
func TestInvalidTraces(t *testing.T) {
	names, err := filepath.Glob("testdata/invalid/*.jsonl")
	if err != nil || len(names) == 0 {
		t.Fatal("no invalid traces")
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			out := validateFile(t, name)
			if len(out) == 0 {
				t.Fatalf("%s: no error", name)
			}
			golden.Check(t, strings.TrimSuffix(name, ".jsonl")+".golden", out)
		})
	}
}

// TestEveryRuleProven checks that every error message the validator and
// the text decoder can give appears in some golden file, so no rule goes
// untested.
func TestEveryRuleProven(t *testing.T) {
	var all []byte
	goldens, _ := filepath.Glob("testdata/*/*.golden")
	for _, name := range goldens {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	// c.fail("..." and p.fail("..." / fail("..." calls, with their format.
	call := regexp.MustCompile("(?:c|p)\\.fail\\((\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-z]`)
	for _, src := range []string{"validate.go", "jsonl_decode.go"} {
		code, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllSubmatch(code, -1) {
			lit := string(m[1])
			format := lit[1 : len(lit)-1]
			if lit[0] == '"' {
				format = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(format)
			}
			if format == "%v" {
				continue // a scanner error, proven by the syntax-* traces
			}
			parts := verb.Split(format, -1)
			for i, p := range parts {
				parts[i] = regexp.QuoteMeta(p)
			}
			re := regexp.MustCompile(strings.Join(parts, ".*"))
			if !re.Match(all) {
				t.Errorf("%s: no golden file shows the error %s", src, lit)
			}
		}
	}
}
