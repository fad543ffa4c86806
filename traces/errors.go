package traces

import (
	"errors"
	"strconv"
	"strings"
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
			b.WriteString(e.Task)
			b.WriteByte(')')
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
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
