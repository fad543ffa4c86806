package learn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TracePaths expands the arguments of a learning command: a file is taken
// as is; a directory stands for the trace files in it (.jsonl, .jsonl.zst,
// .lct), in name order. "-" is not allowed: traces are read in parallel.
func TracePaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" {
			return nil, fmt.Errorf("%q: training traces must be files", a)
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
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
