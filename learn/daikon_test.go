package learn

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDaikon writes the samples of small traces as Daikon files: every
// rep-type (int, double, boolean, String, hashcode), a variable absent
// from a sample (nonsensical), names Daikon would misread, and one
// comparability class per abstract type.
func TestDaikon(t *testing.T) {
	res, err := learnKeeping(t, "testdata/sampler/names.jsonl", "testdata/sampler/types.jsonl", "testdata/sampler/livein.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteDaikon(dir, res); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"licorice.decls", "licorice.dtrace", "names.tsv"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, filepath.Join("testdata", "daikon", name), string(got))
	}
}

func learnKeeping(t *testing.T, paths ...string) (*Result, error) {
	t.Helper()
	return Learn(t.Context(), paths, Options{KeepSamples: true, Workers: 2})
}
