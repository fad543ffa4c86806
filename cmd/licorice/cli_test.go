package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"
)

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

// checkGolden compares got with the file testdata/dir/name, or writes it
// there with -update.
func checkGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", dir, name), []byte(got))
}

func TestVersion(t *testing.T) {
	want, _, code := runCLI(t, nil, "version")
	if code != 0 || !strings.HasPrefix(want, "licorice ") || !strings.Contains(want, "trace format") || strings.Contains(want, "(devel)") {
		t.Fatalf("licorice version: exit %d, %q", code, want)
	}
	got, _, code := runCLI(t, nil, "--version")
	if code != 0 || got != want {
		t.Errorf("licorice --version: exit %d, %q; want %q", code, got, want)
	}
}
