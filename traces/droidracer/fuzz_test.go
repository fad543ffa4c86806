package droidracer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

// FuzzImport feeds arbitrary logs to Read and Import (with the lifecycle
// orders for inputs of odd length): neither may panic, a
// log Read rejects is rejected with a *traces.LineError naming the file (and
// the line, unless the input could not be read at all), a
// log Read accepts imports, and the trace Import writes reads back valid.
func FuzzImport(f *testing.F) {
	for _, s := range []string{looper, reportLog,
		lines("1 THREADINIT tid:1", "2 FORK par-tid:1\t child-tid:5", "3 THREADEXIT tid:1", "4 CALL tid:5\t msg:1",
			"5 NATIVE-ENTRY tid:5thread-name:x", "6 POST src:5 msg:1 dest:-1 delay:0", "7 CALL tid:1\t msg:1",
			"rwId:1 READ tid:5 obj:0x1 class:LA; field:1", "8 LOCK tid:5\t lock-obj:0x1", "9 RET tid:1\t msg:1"),
		lines("1 THREADINIT tid:1", "2 ENABLE-LIFECYCLE tid:1 component: id:0 state:RESUME-ACT",
			"3 TRIGGER-LIFECYCLE tid:1 component:A id:7 state:RESUME-ACT", "4 ADD_IDLE_HANDLER idler:1 queue:2",
			"5 TRIGGER-BROADCAST tid:1 action:a component:1 intent:0 onRecLater:-1 state:ABC_ONRECEIVE"),
	} {
		f.Add([]byte(s))
	}
	f.Add(append([]byte{0x28, 0xb5, 0x2f, 0xfd}, "not zstd"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(context.Background(), bytes.NewReader(data), "fuzz")
		if err != nil {
			var le *traces.LineError
			if !errors.As(err, &le) || le.File != "fuzz" || (le.Line == 0) != (le.Err != nil) {
				t.Fatalf("Read error without its file and line: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		syms := traces.NewSymbols()
		w, err := traces.NewWriter(&buf, traces.JSONL, Header("fuzz"), syms)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.ImportWith(context.Background(), w, syms, Options{Lifecycle: len(data)%2 == 1}); err != nil {
			t.Fatalf("Import: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := traces.NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		var op traces.Op
		for {
			err := r.Next(&op)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("imported trace does not validate: %v\n%s", err, buf.String())
			}
		}
	})
}
