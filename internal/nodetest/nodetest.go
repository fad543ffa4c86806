// Package nodetest finds the Node.js recorder for tests that run Node.js
// programs. Where node or the recorder's packages are missing such tests
// are skipped, unless LICORICE_REQUIRE_NODE=1 (as CI sets it): then they
// fail, so that a machine without Node.js cannot pass them silently.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/licorice-dev/licorice/recorders/nodejs"
)

// Recorder returns the recorder's folder in this checkout, or skips (or
// fails, under LICORICE_REQUIRE_NODE=1) the test.
func Recorder(t testing.TB) string {
	t.Helper()
	missing := func(why string) string {
		if os.Getenv("LICORICE_REQUIRE_NODE") == "1" {
			t.Fatalf("LICORICE_REQUIRE_NODE=1 but %s", why)
		}
		t.Skipf("skipped: %s (LICORICE_REQUIRE_NODE=1 makes this a failure)", why)
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return missing("node is not on PATH")
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return missing("the checkout cannot be found")
	}
	dir := filepath.Join(filepath.Dir(file), "..", "..", "recorders", "node")
	t.Setenv(nodejs.EnvRecorder, dir)
	rec, err := nodejs.Locate()
	if err != nil {
		return missing(err.Error())
	}
	return rec
}
