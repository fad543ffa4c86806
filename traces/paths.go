package traces

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Paths expands the trace arguments of a command: a file stays as it is,
// a directory becomes its trace files (.jsonl, .jsonl.zst, .lct; not its
// subdirectories), sorted by name, and "-" (standard input, which holds
// one trace) stays; it may be given once. A directory without traces is
// an error; a path that cannot be looked at stays as it is, for the
// command to report.
func Paths(args []string) ([]string, error) {
	var out []string
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, fmt.Errorf(`"-" given twice: standard input holds one trace`)
			}
			stdin = true
			out = append(out, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			// A missing file stays: the command reports it when it
			// opens it, and goes on with the others where it can.
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, e := range entries {
			name := strings.ToLower(e.Name())
			if !e.IsDir() && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst") || strings.HasSuffix(name, ".lct")) {
				out = append(out, filepath.Join(a, e.Name()))
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no trace files (.jsonl, .jsonl.zst, .lct) in the directory", a)
		}
		slices.Sort(out[n:])
	}
	return out, nil
}
