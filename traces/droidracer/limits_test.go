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

// A binary file (here NUL bytes, as /dev/zero gives) is refused after its
// first bytes, not after reading a gibibyte.
func TestBinaryLog(t *testing.T) {
	_, err := Read(context.Background(), strings.NewReader("Android bug-checker\n\x00\x00"), "log")
	if err == nil || !strings.Contains(err.Error(), "not a DroidRacer log: binary data (a NUL byte at offset 20)") {
		t.Fatalf("err = %v", err)
	}
}
