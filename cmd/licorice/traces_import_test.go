package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// remindMe is the DroidRacer log of RemindMe, compressed.
var remindMe = filepath.Join("..", "..", "traces", "droidracer", "testdata", "RemindMe.abc_log.txt.zst")

func TestTracesImport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "remindme.lct")
	stdout, stderr, code := runCLI(t, nil, "traces", "import", "--from", "droidracer", remindMe, "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "written: 10377 ops; 4 threads (1 loopers), 43 native brackets, 10 looper runs between events, 176 events") {
		t.Errorf("summary:\n%s", stderr)
	}
	if _, stderr, code := runCLI(t, nil, "traces", "validate", out); code != 0 {
		t.Errorf("validate: exit %d: %s", code, stderr)
	}

	// --lifecycle adds the activity lifecycle's orders, as signals and
	// waits; RemindMe's STOP-ACT at op 651 then waits for its activity's
	// pause (op 529), not for nothing.
	stdout, stderr, code = runCLI(t, nil, "traces", "import", "--from", "droidracer", "-q", "--lifecycle", remindMe)
	if code != 0 || stderr != "" || !strings.Contains(stdout, `{"op":"wait","t":"m78","m":"activity@529","src":"droidracer:651"}`) {
		t.Errorf("--lifecycle: exit %d, stderr %q, no wait of op 651 for activity@529", code, stderr)
	}

	// Without -o: JSON Lines on standard output, the app from --app.
	stdout, stderr, code = runCLI(t, nil, "traces", "import", "--from", "droidracer", "-q", "--app", "remindme", remindMe)
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, `{"licorice_trace":2,"platform":"android","app":"remindme","source":"droidracer"}`+"\n") {
		t.Errorf("exit %d, stderr %q, stdout starts %.100q", code, stderr, stdout)
	}
}

func TestTracesImportErrors(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "abc_log.txt")
	if err := os.WriteFile(broken, []byte("1 START\n2 THREADINIT tid:1\n3 CALL tid:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notALog := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notALog, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{remindMe}, 2, "--from droidracer"},
		{[]string{"--from", "eventracer", remindMe}, 2, `--from "eventracer"`},
		{[]string{"--from", "droidracer", remindMe, "-o", filepath.Join(dir, "out.txt")}, 2, "cannot tell the trace format"},
		{[]string{"--from", "droidracer", filepath.Join(dir, "missing.txt")}, 1, "no such file"},
		{[]string{"--from", "droidracer", broken, "-o", out}, 1, broken + `:3: CALL: missing field "msg"`},
		{[]string{"--from", "droidracer", notALog, "-o", out}, 1, notALog + ": no DroidRacer operation or access in its 2 lines"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, nil, append([]string{"traces", "import"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed import left %s behind (%v)", out, err)
	}
}
