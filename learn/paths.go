package learn

import (
	"fmt"
	"os"

	"github.com/licorice-dev/licorice/traces"
)

// TracePaths expands the arguments of a learning command: a file is taken
// as is; a directory stands for the trace files in it (.jsonl, .jsonl.zst,
// .lct), in name order. "-" is not allowed: traces are read in parallel.
func TracePaths(args []string) ([]string, error) {
	for _, a := range args {
		if a == "-" {
			return nil, fmt.Errorf("%q: training traces must be files", a)
		}
		if _, err := os.Stat(a); err != nil {
			return nil, err
		}
	}
	return traces.Paths(args, false)
}
