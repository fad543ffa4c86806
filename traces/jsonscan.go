package traces

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonType is the type of a scanned JSON value.
type jsonType uint8

const (
	jsonNone jsonType = iota
	jsonString
	jsonNumber
	jsonTrue
	jsonFalse
	jsonNull
	jsonObject
	jsonArray
)

var jsonTypeNames = [...]string{
	jsonNone: "nothing", jsonString: "a string", jsonNumber: "a number", jsonTrue: "true",
	jsonFalse: "false", jsonNull: "null", jsonObject: "an object", jsonArray: "an array",
}

func (t jsonType) String() string { return jsonTypeNames[t] }

// span is a scanned JSON value: its type and where it is in the line.
// For strings, [start,end) excludes the quotes and esc says whether the
// contents contain escapes.
type span struct {
	typ        jsonType
	esc        bool
	start, end int
}

// scanner reads one line of JSON. It is strict: RFC 8259 syntax, valid
// UTF-8, no duplicate keys (checked by the callers), nothing after the value.
type scanner struct {
	b   []byte
	pos int
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.b) {
		switch s.b[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("column %d: %s", s.pos+1, fmt.Sprintf(format, args...))
}

func (s *scanner) unexpected(want string) error {
	if s.pos >= len(s.b) {
		return s.errorf("unexpected end of line, want %s", want)
	}
	return s.errorf("unexpected %s, want %s", describeByte(s.b[s.pos]), want)
}

func describeByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// value scans any JSON value, nested ones included, to its span.
func (s *scanner) value(depth int) (span, error) {
	s.skipSpace()
	if s.pos >= len(s.b) {
		return span{}, s.unexpected("a value")
	}
	start := s.pos
	switch c := s.b[s.pos]; {
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true", jsonTrue)
	case c == 'f':
		return s.literal("false", jsonFalse)
	case c == 'n':
		return s.literal("null", jsonNull)
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return span{}, s.errorf("values nested deeper than %d", maxJSONDepth)
		}
		var err error
		if c == '{' {
			err = s.object(depth+1, func(int, span, span) error { return nil })
		} else {
			err = s.array(depth + 1)
		}
		if err != nil {
			return span{}, err
		}
		typ := jsonObject
		if c == '[' {
			typ = jsonArray
		}
		return span{typ: typ, start: start, end: s.pos}, nil
	}
	return span{}, s.unexpected("a value")
}

const maxJSONDepth = 64

// object scans an object, calling f with the position, key and value of
// each member in order. The scanner stands after the closing brace.
func (s *scanner) object(depth int, f func(keyPos int, key, val span) error) error {
	s.skipSpace()
	if s.pos >= len(s.b) || s.b[s.pos] != '{' {
		return s.unexpected("'{'")
	}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.b) && s.b[s.pos] == '}' {
		s.pos++
		return nil
	}
	for {
		s.skipSpace()
		keyPos := s.pos
		if s.pos >= len(s.b) || s.b[s.pos] != '"' {
			return s.unexpected("a key")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.b) || s.b[s.pos] != ':' {
			return s.unexpected("':'")
		}
		s.pos++
		val, err := s.value(depth)
		if err != nil {
			return err
		}
		if err := f(keyPos, key, val); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.b) {
			return s.unexpected("',' or '}'")
		}
		switch s.b[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.unexpected("',' or '}'")
		}
	}
}

func (s *scanner) array(depth int) error {
	s.pos++ // '['
	s.skipSpace()
	if s.pos < len(s.b) && s.b[s.pos] == ']' {
		s.pos++
		return nil
	}
	for {
		if _, err := s.value(depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.b) {
			return s.unexpected("',' or ']'")
		}
		switch s.b[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.unexpected("',' or ']'")
		}
	}
}

func (s *scanner) literal(lit string, typ jsonType) (span, error) {
	start := s.pos
	if len(s.b)-s.pos < len(lit) || string(s.b[s.pos:s.pos+len(lit)]) != lit {
		return span{}, s.unexpected("a value")
	}
	s.pos += len(lit)
	return span{typ: typ, start: start, end: s.pos}, nil
}

// str scans a string, checking escapes and UTF-8.
func (s *scanner) str() (span, error) {
	s.pos++ // opening quote
	sp := span{typ: jsonString, start: s.pos}
	for s.pos < len(s.b) {
		c := s.b[s.pos]
		switch {
		case c == '"':
			sp.end = s.pos
			s.pos++
			return sp, nil
		case c == '\\':
			sp.esc = true
			if s.pos+1 >= len(s.b) {
				return span{}, s.errorf("unterminated string")
			}
			switch s.b[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if _, ok := hex4(s.b, s.pos+2); !ok {
					return span{}, s.errorf("bad \\u escape in string")
				}
				s.pos += 6
			default:
				return span{}, s.errorf("bad escape \\%c in string", s.b[s.pos+1])
			}
		case c < 0x20:
			return span{}, s.errorf("control character 0x%02x in string", c)
		case c < utf8.RuneSelf:
			s.pos++
		default:
			r, n := utf8.DecodeRune(s.b[s.pos:])
			if r == utf8.RuneError && n == 1 {
				return span{}, s.errorf("invalid UTF-8 in string")
			}
			s.pos += n
		}
	}
	return span{}, s.errorf("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number scans a number per RFC 8259.
func (s *scanner) number() (span, error) {
	start := s.pos
	b := s.b
	i := s.pos
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.pos = i
		return span{}, s.unexpected("a digit")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.pos = i
			return span{}, s.unexpected("a digit")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.pos = i
			return span{}, s.unexpected("a digit")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return span{typ: jsonNumber, start: start, end: i}, nil
}

// isIntLiteral reports whether a number has no fraction and no exponent.
func isIntLiteral(b []byte) bool {
	for _, c := range b {
		if c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// unquote appends the contents of a scanned string to dst, resolving
// escapes. The string was checked by str, so only surrogates can fail.
func unquote(dst, src []byte) ([]byte, error) {
	for i := 0; i < len(src); {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch src[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(src, i+2)
			i += 6
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || i+6 > len(src) || src[i] != '\\' || src[i+1] != 'u' {
					return nil, fmt.Errorf("lone surrogate \\u%04x in string", r)
				}
				r2, _ := hex4(src, i+2)
				dec := utf16.DecodeRune(r, r2)
				if dec == utf8.RuneError {
					return nil, fmt.Errorf("lone surrogate \\u%04x in string", r)
				}
				r = dec
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, src[i+1])
		}
		i += 2
	}
	return dst, nil
}
