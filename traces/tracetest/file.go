package tracetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"

	"github.com/licorice-dev/licorice/traces"
)

// File returns the path of an .lct file in dir holding the trace cfg
// generates, writing it first if it is not there: benchmarks over large
// traces generate each once. The file's name says cfg's Name and Events
// and a hash of all of cfg, so a changed preset gets a new file; a change
// of the generator itself does not, and asks for dir to be emptied.
func File(ctx context.Context, dir string, cfg Config) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%+v", cfg)
	path := filepath.Join(dir, fmt.Sprintf("%s-%d-%016x.lct", cfg.Name, cfg.Events, h.Sum64()))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name()) // once renamed, there is nothing to remove
	if _, err := Write(ctx, f, traces.LCT, cfg); err != nil {
		f.Close()
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(f.Name(), path)
}
