package traces

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Errors a reader wraps to say what kind of damage it found.
var (
	// ErrTruncated: the input ends in the middle of the trace (a cut .lct
	// block, a zstd stream without its end).
	ErrTruncated = errors.New("truncated")
	// ErrCorrupt: the input is damaged or not a trace of the form it claims.
	ErrCorrupt = errors.New("corrupt")
	// ErrTooManyErrors: validation stopped after the error limit.
	ErrTooManyErrors = errors.New("too many errors")
)

// LineError is a problem with one operation or line of a trace: a syntax
// error, an ill-typed field, a broken rule of the contract. It prints as
//
//	FILE:LINE: op "end" (task E5): event E5 is not running
//
// For binary traces, LINE is the line the op has in the canonical text form
// (the header is line 1), so `licorice traces cat` shows it.
type LineError struct {
	File string // the file name, or "" if unknown
	Line int    // 1-based line; 0 if the error is not about one line
	Op   Kind   // the op's kind, or 0 if the line could not be decoded that far
	Task string // the op's task, or ""
	Msg  string
	// Fatal errors end the reading: the rest of the input cannot be trusted.
	// Other errors are about one op; a reader can go on with the next.
	Fatal bool
	Err   error // a wrapped cause, such as ErrTruncated
}

func (e *LineError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteByte(':')
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if e.Op != 0 {
		b.WriteString("op ")
		b.WriteString(strconv.Quote(e.Op.String()))
		if e.Task != "" {
			b.WriteString(" (task ")
			b.WriteString(Elide(e.Task, maxNameBytes))
			b.WriteByte(')')
		}
		b.WriteString(": ")
	}
	b.WriteString(Elide(e.Msg, maxMsgBytes))
	return b.String()
}

// Bounds on what an error message quotes of its input: a trace may name a
// task with 16 MiB, and a hundred errors must not print gigabytes.
const (
	maxNameBytes = 120
	maxMsgBytes  = 2048
)

// Elide shortens s to about max bytes for a message: its beginning and
// end, and how many bytes were left out between them. Short strings come
// back as they are; cuts fall on UTF-8 boundaries.
func Elide(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max*2/3, max/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:head] + "…[" + strconv.Itoa(start-head) + " bytes]…" + s[start:]
}

func (e *LineError) Unwrap() error { return e.Err }

// IsFatal reports whether err ends the reading of a trace: anything that is
// not a LineError about a single op.
func IsFatal(err error) bool {
	var le *LineError
	if errors.As(err, &le) {
		return le.Fatal
	}
	return err != nil
}

var errInvalidUTF8 = errors.New("invalid UTF-8 in string")
