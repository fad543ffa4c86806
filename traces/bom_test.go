package traces

import (
	"io"
	"strings"
	"testing"
)

// A text trace saved by an editor that starts files with a byte-order mark
// reads like the same trace without it.
func TestByteOrderMark(t *testing.T) {
	const text = `{"licorice_trace":1,"platform":"android","app":"x"}
{"op":"thread_begin","t":"main","kind":"looper"}
`
	for _, prefix := range []string{"", "\ufeff", "\ufeff\n "} {
		r, err := NewReader(strings.NewReader(prefix + text))
		if err != nil {
			t.Fatalf("%q: %v", prefix, err)
		}
		var op Op
		n := 0
		for {
			err := r.Next(&op)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", prefix, err)
			}
			n++
		}
		if n != 1 || r.Header().App != "x" {
			t.Errorf("%q: %d ops, app %q; want 1 op of app x", prefix, n, r.Header().App)
		}
	}
	if _, err := DetectFormat([]byte("\ufeffLCT")); err == nil {
		t.Error("a byte-order mark before something else than '{' is a trace")
	}
}
