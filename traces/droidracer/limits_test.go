package droidracer

import (
	"context"
	"strings"
	"testing"
)

// A line longer than any real log's is an error at its line, not gigabytes
// of memory and a message that repeats it.
func TestLongLine(t *testing.T) {
	text := "Android bug-checker\n" + strings.Repeat("x", maxLine+1) + "\n"
	_, err := Read(context.Background(), strings.NewReader(text), "log")
	if err == nil || err.Error() != "log:2: line longer than 16 MiB" {
		t.Fatalf("err = %.200v, want log:2: line longer than 16 MiB", err)
	}
}
