package progress

import (
	"bytes"
	"testing"
)

func TestSilentOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "learn", "traces", 10)
	b.Add(3)
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("bar wrote %q to a non-terminal", buf.String())
	}
	if got := b.done.Load(); got != 3 {
		t.Fatalf("done = %d, want 3", got)
	}
}
