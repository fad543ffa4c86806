package traces

import (
	"bytes"
	"fmt"
	"strings"
)

// Format is one of the forms a trace is stored in.
type Format uint8

const (
	JSONL     Format = iota + 1 // JSON Lines text (.jsonl)
	JSONLZstd                   // JSON Lines compressed with zstd (.jsonl.zst)
	LCT                         // the compact binary form (.lct)
)

var formatNames = [...]string{JSONL: "jsonl", JSONLZstd: "jsonl.zst", LCT: "lct"}

// String returns the format's usual file extension without the dot.
func (f Format) String() string {
	if f > 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "invalid"
}

// ParseFormat returns the format named s ("jsonl", "jsonl.zst" or "zst", "lct").
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimPrefix(s, ".")) {
	case "jsonl", "json":
		return JSONL, nil
	case "jsonl.zst", "zst", "zstd":
		return JSONLZstd, nil
	case "lct":
		return LCT, nil
	}
	return 0, fmt.Errorf("unknown trace format %q (want jsonl, jsonl.zst or lct)", s)
}

// FormatOf returns the format a file name's extension calls for.
func FormatOf(name string) (Format, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".lct"):
		return LCT, nil
	case strings.HasSuffix(lower, ".zst"):
		return JSONLZstd, nil
	case strings.HasSuffix(lower, ".jsonl"), strings.HasSuffix(lower, ".json"):
		return JSONL, nil
	}
	return 0, fmt.Errorf("%s: cannot tell the trace format from the name (want .jsonl, .jsonl.zst or .lct)", name)
}

// lctMagic opens every .lct file.
var lctMagic = []byte("\x89LCT\r\n\x1a\n")

// zstdMagic opens every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// sniffLen is how many leading bytes DetectFormat needs at most.
const sniffLen = 8

// utf8BOM is the byte-order mark some editors put at the start of a text
// file; a text trace may start with one.
var utf8BOM = []byte("\xef\xbb\xbf")

// DetectFormat tells the format from the first bytes of a trace. Text
// traces start with '{' (after an optional byte-order mark and white
// space).
func DetectFormat(prefix []byte) (Format, error) {
	switch {
	case bytes.HasPrefix(prefix, lctMagic):
		return LCT, nil
	case bytes.HasPrefix(prefix, zstdMagic):
		return JSONLZstd, nil
	}
	rest := bytes.TrimLeft(bytes.TrimPrefix(prefix, utf8BOM), " \t\r\n")
	if len(rest) > 0 && rest[0] == '{' {
		return JSONL, nil
	}
	if len(prefix) == 0 {
		return 0, fmt.Errorf("empty input: not a trace")
	}
	if len(rest) == 0 {
		return JSONL, nil // only white space so far; the text decoder will tell
	}
	return 0, fmt.Errorf("not a trace: unknown format (starts with %q)", prefix)
}
