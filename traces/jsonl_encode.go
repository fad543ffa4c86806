package traces

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The canonical text form (docs/trace-format.md):
//
//   - one JSON object per line, no spaces, "\n" after every line;
//   - keys in a fixed order: "op", "t", then the op's fields in the order of
//     the contract's table, then "ts", "src"; the header's known keys first,
//     then unknown ones sorted by key;
//   - a field equal to its default (worker, delayed, delay 0, false, absent
//     value, empty text) is left out;
//   - strings are escaped only where JSON requires it (", \ and control
//     characters; \n \r \t \b \f by their short escapes, the others \u00XX),
//     everything else is written as UTF-8; a byte that is not valid UTF-8
//     (only an Op built in memory can hold one) is written as U+FFFD;
//   - integers in decimal; floats in the shortest form that reads back to
//     the same float64, in exponent form below 1e-6 and from 1e21 on, and
//     always with a "." or an exponent so they read back as floats
//     ("2.0", "1e+21"); "ts" is a plain number and gets no ".0".

// appendOp appends the canonical line of op, newline included.
func appendOp(b []byte, op *Op, syms *Symbols) []byte {
	b = append(b, `{"op":"`...)
	b = append(b, op.Kind.String()...)
	b = append(b, '"')
	if op.Task != NoSym {
		b = appendStrField(b, "t", op.Task, syms)
	}
	switch op.Kind {
	case ThreadBegin:
		if op.ThreadKind != Worker {
			b = append(b, `,"kind":"`...)
			b = append(b, op.ThreadKind.String()...)
			b = append(b, '"')
		}
		b = appendTextField(b, "name", op.Name, syms)
	case Fork, Join:
		b = appendStrField(b, "child", op.Thread, syms)
	case Attach:
		b = appendStrField(b, "q", op.Queue, syms)
	case Send:
		b = appendStrField(b, "q", op.Queue, syms)
		b = appendStrField(b, "e", op.Event, syms)
		switch op.SendKind {
		case Delayed:
			if op.Time != 0 {
				b = appendIntField(b, "delay", op.Time)
			}
		case AtTime:
			b = append(b, `,"kind":"at_time"`...)
			b = appendIntField(b, "at", op.Time)
		case AtFront:
			b = append(b, `,"kind":"at_front"`...)
		}
		if op.Async {
			b = append(b, `,"async":true`...)
		}
		if op.External {
			b = append(b, `,"external":true`...)
		}
	case Remove:
		b = appendStrField(b, "e", op.Event, syms)
	case Begin:
		b = appendStrField(b, "thread", op.Thread, syms)
	case Signal, Wait:
		b = appendStrField(b, "m", op.Name, syms)
	case Lock, Unlock:
		b = appendStrField(b, "l", op.Name, syms)
	case Call, Ret:
		b = appendStrField(b, "h", op.Name, syms)
	case Alloc:
		b = appendStrField(b, "obj", op.Loc.Obj, syms)
		b = appendTextField(b, "site", op.Site, syms)
		b = appendTextField(b, "type", op.Type, syms)
	case Read, Write:
		b = appendLocation(b, op.Loc, syms, false)
		if !op.Val.IsAbsent() {
			b = append(b, `,"val":`...)
			b = appendValue(b, op.Val, syms)
		}
		if op.Deref && op.Kind == Read {
			b = append(b, `,"deref":true`...)
		}
		if op.Init && op.Kind == Write {
			b = append(b, `,"init":true`...)
		}
		if op.Update && op.Kind == Write {
			b = append(b, `,"update":true`...)
		}
	case Relate:
		b = append(b, `,"a":{`...)
		b = appendLocation(b, op.Loc, syms, true)
		b = append(b, `},"b":{`...)
		b = appendLocation(b, op.Loc2, syms, true)
		b = append(b, `},"via":"`...)
		b = append(b, op.Via.String()...)
		b = append(b, '"')
	case Branch:
		b = appendLocation(b, op.Loc, syms, false)
		b = append(b, `,"cond":"`...)
		b = append(b, op.Cond.String()...)
		b = append(b, '"')
		if op.Taken {
			b = append(b, `,"taken":true`...)
		}
		if op.PC != 0 {
			b = appendIntField(b, "pc", op.PC)
		}
		if op.Target != 0 {
			b = appendIntField(b, "target", op.Target)
		}
	case Error:
		b = appendTextField(b, "msg", op.Name, syms)
	}
	if op.HasTS {
		b = append(b, `,"ts":`...)
		b = appendNumber(b, op.TS)
	}
	b = appendTextField(b, "src", op.Src, syms)
	return append(b, "}\n"...)
}

// appendLocation appends the fields obj|class and field; first says
// whether they open an object (no leading comma).
func appendLocation(b []byte, loc Location, syms *Symbols, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	if loc.Static {
		b = append(b, `"class":`...)
	} else {
		b = append(b, `"obj":`...)
	}
	b = appendQuoted(b, syms.String(loc.Obj))
	return appendStrField(b, "field", loc.Field, syms)
}

func appendStrField(b []byte, name string, y Sym, syms *Symbols) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendQuoted(b, syms.String(y))
}

func appendTextField(b []byte, name string, y Sym, syms *Symbols) []byte {
	if y == NoSym {
		return b
	}
	return appendStrField(b, name, y, syms)
}

func appendIntField(b []byte, name string, n int64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, n, 10)
}

// AppendValueJSON appends v as JSON, in the canonical spelling of the
// trace's text form (null, {"ref":"o3"}, 42, 1.5, true, "text"): the one
// form every JSON output of licorice gives values in. NoValue is null.
func AppendValueJSON(b []byte, v Value, syms *Symbols) []byte { return appendValue(b, v, syms) }

// appendValue appends v in its canonical spelling.
func appendValue(b []byte, v Value, syms *Symbols) []byte {
	switch v.Kind() {
	case NullValue:
		return append(b, "null"...)
	case RefValue:
		b = append(b, `{"ref":`...)
		b = appendQuoted(b, syms.String(v.Sym()))
		return append(b, '}')
	case IntValue:
		return strconv.AppendInt(b, v.Int(), 10)
	case FloatValue:
		return appendFloat(b, v.Float())
	case BoolValue:
		return strconv.AppendBool(b, v.Bool())
	case StringValue:
		return appendQuoted(b, syms.String(v.Sym()))
	}
	return append(b, "null"...) // NoValue is never written as a value
}

// appendNumber appends f in the shortest form that reads back to f, in
// exponent form below 1e-6 and from 1e21 on (as encoding/json does).
func appendNumber(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// "1e-07" -> "1e-7"
		n := len(b)
		if n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendFloat is appendNumber, marked as a float with ".0" if it would
// otherwise read back as an integer.
func appendFloat(b []byte, f float64) []byte {
	start := len(b)
	b = appendNumber(b, f)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// appendQuoted appends s as a canonical JSON string.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || n > 1 {
				i += n - 1
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			start = i + 1
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			const hex = "0123456789abcdef"
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendHeader appends the canonical header line.
func appendHeader(b []byte, h *Header) []byte {
	b = append(b, `{"licorice_trace":`...)
	b = strconv.AppendInt(b, int64(h.Version), 10)
	for _, f := range [...]struct{ k, v string }{{"platform", h.Platform}, {"app", h.App}, {"run", h.Run}} {
		if f.v != "" {
			b = append(b, `,"`...)
			b = append(b, f.k...)
			b = append(b, `":`...)
			b = appendQuoted(b, f.v)
		}
	}
	if h.Shuffled {
		b = append(b, `,"shuffled":true`...)
	}
	if h.HasSeed {
		b = appendIntField(b, "seed", h.Seed)
	}
	for _, f := range h.Extra {
		b = append(b, ',')
		b = appendQuoted(b, f.Key)
		b = append(b, ':')
		b = append(b, f.JSON...)
	}
	return append(b, "}\n"...)
}

func sortExtra(fs []ExtraField) {
	slices.SortFunc(fs, func(a, b ExtraField) int { return strings.Compare(a.Key, b.Key) })
}

// compactJSON appends the JSON value lit (already checked by the scanner)
// without insignificant spaces and with strings spelled canonically.
func compactJSON(dst, lit []byte) ([]byte, error) {
	for i := 0; i < len(lit); {
		c := lit[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '"':
			s := scanner{b: lit, pos: i}
			sp, err := s.str()
			if err != nil {
				return nil, err
			}
			str, err := unquote(nil, lit[sp.start:sp.end])
			if err != nil {
				return nil, err
			}
			if !utf8.Valid(str) {
				return nil, errInvalidUTF8
			}
			dst = appendQuoted(dst, string(str))
			i = s.pos
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst, nil
}
