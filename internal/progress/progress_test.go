package progress

import (
	"bytes"
	"testing"
	"time"
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

func TestLine(t *testing.T) {
	tests := []struct {
		name        string
		total, done int64
		also        string
		alsoDone    int64
		want        string
	}{
		{name: "known total", total: 4, done: 1, want: "detect 1/4 traces (25%) 3s"},
		{name: "unknown total", done: 7, want: "detect 7 traces 3s"},
		{name: "a second count", total: 1, also: "ops read", alsoDone: 999, want: "detect 0/1 traces (0%), 999 ops read 3s"},
		{name: "thousands", total: 1, also: "ops read", alsoDone: 12_345, want: "detect 0/1 traces (0%), 12.3k ops read 3s"},
		{name: "millions", total: 1, done: 1, also: "ops read", alsoDone: 16_600_000, want: "detect 1/1 traces (100%), 16.6M ops read 3s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.also != "" {
				opts = append(opts, Also(tt.also))
			}
			b := New(&bytes.Buffer{}, "detect", "traces", tt.total, opts...)
			b.Add(tt.done)
			b.AddAlso(tt.alsoDone)
			if got := b.line(3200 * time.Millisecond); got != tt.want {
				t.Errorf("line = %q, want %q", got, tt.want)
			}
		})
	}
}
