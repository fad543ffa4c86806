package learn

import (
	"os"

	"github.com/licorice-dev/licorice/traces"
)

// TracePaths expands the arguments of a command that learns from or
// checks a corpus ([traces.Paths]): a file is taken as is; a directory
// stands for the trace files in it (.jsonl, .jsonl.zst, .lct), in name
// order; "-" is standard input. A path that cannot be opened is an
// error at once, before minutes of work on the others.
func TracePaths(args []string) ([]string, error) {
	for _, a := range args {
		if a == "-" {
			continue
		}
		f, err := os.Open(a)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	return traces.Paths(args)
}
