package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// runCLI runs licorice with args and stdin (nil: none), and returns what
// it printed and its exit status, as run would.
func runCLI(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	root := newRootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	if stdin != nil {
		root.SetIn(stdin)
	}
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.code
		errb.WriteString(ee.msg + "\n")
	case isUsageError(err):
		code = 2
		errb.WriteString(err.Error() + "\n")
	default:
		code = 1
		errb.WriteString(err.Error() + "\n")
	}
	return out.String(), errb.String(), code
}

// golden compares got with the file testdata/dir/name, or writes it there
// with -update.
func golden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
