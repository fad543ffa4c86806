package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects accepted, as in
// encoding/json.
const MaxDepth = 10000

// SyntaxError is a JSON syntax error at a byte offset.
type SyntaxError struct {
	Offset int // of the byte that is wrong, or len(data) at an unexpected end
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

func fail(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// SkipSpace returns the offset of the first byte at or after off that is
// not JSON white space.
func SkipSpace(data []byte, off int) int {
	// Indentation eight spaces at a time.
	for off+8 <= len(data) && binary.LittleEndian.Uint64(data[off:]) == rep(' ') {
		off += 8
	}
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\n', '\r':
			off++
		default:
			return off
		}
	}
	return off
}

// Value checks the JSON value that starts at off (after white space) and
// returns the offset just after it.
func Value(data []byte, off int) (end int, err error) {
	return value(data, SkipSpace(data, off), 0)
}

// Valid reports whether data is one JSON value, with white space around
// it: encoding/json's Valid.
func Valid(data []byte) bool {
	end, err := Value(data, 0)
	return err == nil && SkipSpace(data, end) == len(data)
}

func value(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return i, fail(i, "unexpected end of JSON input")
	}
	switch c := data[i]; {
	case c == '"':
		return str(data, i)
	case c == '{':
		return object(data, i, depth+1, nil)
	case c == '[':
		return array(data, i, depth+1, nil)
	case c == '-' || '0' <= c && c <= '9':
		return number(data, i)
	case c == 't':
		return literal(data, i, "true")
	case c == 'f':
		return literal(data, i, "false")
	case c == 'n':
		return literal(data, i, "null")
	default:
		return i, fail(i, "invalid character %q looking for the beginning of a value", c)
	}
}

func literal(data []byte, i int, word string) (int, error) {
	for k := 0; k < len(word); k++ {
		if i+k >= len(data) {
			return i + k, fail(i+k, "unexpected end of JSON input")
		}
		if data[i+k] != word[k] {
			return i + k, fail(i+k, "invalid character %q in literal %s", data[i+k], word)
		}
	}
	return i + len(word), nil
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

func number(data []byte, i int) (int, error) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return i, fail(i, "unexpected end of JSON input")
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return i, fail(i, "invalid character %q in numeric literal", data[i])
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return j, numberEnd(data, j, "after decimal point")
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return j, numberEnd(data, j, "in exponent of numeric literal")
		}
		i = j
	}
	return i, nil
}

func numberEnd(data []byte, i int, where string) error {
	if i >= len(data) {
		return fail(i, "unexpected end of JSON input")
	}
	return fail(i, "invalid character %q %s", data[i], where)
}

// plain marks the bytes a string holds as they are: not '"', '\\' or a
// control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str checks the string at data[i] == '"'.
func str(data []byte, i int) (int, error) {
	i++
	for {
		// Eight bytes at a time while none is special (SWAR: a byte of
		// x ^ rep(c) is zero where x has c; x - rep(0x20) borrows into a
		// high bit where a byte is below 0x20).
		for i+8 <= len(data) {
			x := binary.LittleEndian.Uint64(data[i:])
			if (hasZero(x^rep('"'))|hasZero(x^rep('\\'))|(x-rep(0x20)&^x))&rep(0x80) != 0 {
				break
			}
			i += 8
		}
		for i < len(data) && plain[data[i]] {
			i++
		}
		if i >= len(data) {
			return i, fail(i, "unexpected end of JSON input")
		}
		switch c := data[i]; c {
		case '"':
			return i + 1, nil
		case '\\':
			i++
			if i >= len(data) {
				return i, fail(i, "unexpected end of JSON input")
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for k := 0; k < 4; k++ {
					if i >= len(data) {
						return i, fail(i, "unexpected end of JSON input")
					}
					if !isHex(data[i]) {
						return i, fail(i, "invalid character %q in \\u hexadecimal character escape", data[i])
					}
					i++
				}
			default:
				return i, fail(i, "invalid character %q in string escape code", data[i])
			}
		default:
			return i, fail(i, "invalid character %q in string literal", c)
		}
	}
}

// A MemberFunc is called for each member of an object with its key
// (decoded), where its value starts, and the depth of the object (1 for
// one at the top). It reads the value (ValueAt skips it, ObjectAt and
// ArrayAt look inside) and returns where it ends.
type MemberFunc func(key string, start, depth int) (end int, err error)

// An ElementFunc is called for each element of an array, as MemberFunc.
type ElementFunc func(start, depth int) (end int, err error)

// ValueAt is Value for a value inside depth containers, which count
// towards MaxDepth.
func ValueAt(data []byte, off, depth int) (end int, err error) {
	return value(data, SkipSpace(data, off), depth)
}

// Object checks the object that starts at off (after white space), calling
// fn, if not nil, for each member in order; an error of fn stops the scan
// and is returned. It returns the offset just after the object.
func Object(data []byte, off int, fn MemberFunc) (end int, err error) {
	return ObjectAt(data, off, 0, fn)
}

// ObjectAt is Object for an object inside depth containers.
func ObjectAt(data []byte, off, depth int, fn MemberFunc) (end int, err error) {
	off = SkipSpace(data, off)
	if off >= len(data) || data[off] != '{' {
		return off, notA(data, off, "object")
	}
	return object(data, off, depth+1, fn)
}

// Array checks the array that starts at off (after white space), calling
// fn, if not nil, for each element in order.
func Array(data []byte, off int, fn ElementFunc) (end int, err error) {
	return ArrayAt(data, off, 0, fn)
}

// ArrayAt is Array for an array inside depth containers.
func ArrayAt(data []byte, off, depth int, fn ElementFunc) (end int, err error) {
	off = SkipSpace(data, off)
	if off >= len(data) || data[off] != '[' {
		return off, notA(data, off, "array")
	}
	return array(data, off, depth+1, fn)
}

func notA(data []byte, off int, what string) error {
	if off >= len(data) {
		return fail(off, "unexpected end of JSON input")
	}
	return fail(off, "want an %s, not %q", what, data[off])
}

// object scans the object at data[i] == '{', the depth-th container.
func object(data []byte, i, depth int, fn MemberFunc) (int, error) {
	if depth > MaxDepth {
		return i, fail(i, "exceeded max depth")
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(data) {
			return i, fail(i, "unexpected end of JSON input")
		}
		if data[i] != '"' {
			return i, fail(i, "invalid character %q looking for beginning of object key string", data[i])
		}
		keyEnd, err := str(data, i)
		if err != nil {
			return keyEnd, err
		}
		keyStart := i
		i = SkipSpace(data, keyEnd)
		if i >= len(data) {
			return i, fail(i, "unexpected end of JSON input")
		}
		if data[i] != ':' {
			return i, fail(i, "invalid character %q after object key", data[i])
		}
		start := SkipSpace(data, i+1)
		var end int
		if fn != nil {
			end, err = fn(key(data[keyStart:keyEnd]), start, depth)
		} else {
			end, err = value(data, start, depth)
		}
		if err != nil {
			return end, err
		}
		var done bool
		if i, done, err = next(data, end, '}', "object key:value pair"); done || err != nil {
			return i, err
		}
	}
}

// array scans the array at data[i] == '[', the depth-th container.
func array(data []byte, i, depth int, fn ElementFunc) (int, error) {
	if depth > MaxDepth {
		return i, fail(i, "exceeded max depth")
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1, nil
	}
	for {
		var end int
		var err error
		if fn != nil {
			end, err = fn(i, depth)
		} else {
			end, err = value(data, i, depth)
		}
		if err != nil {
			return end, err
		}
		var done bool
		if i, done, err = next(data, end, ']', "array element"); done || err != nil {
			return i, err
		}
	}
}

// next reads what follows a member or element of a container that ends
// with closer, from end: a comma (it returns where the next one starts),
// or closer (done, and where the container ends).
func next(data []byte, end int, closer byte, what string) (int, bool, error) {
	i := SkipSpace(data, end)
	switch {
	case i >= len(data):
		return i, false, fail(i, "unexpected end of JSON input")
	case data[i] == ',':
		return SkipSpace(data, i+1), false, nil
	case data[i] == closer:
		return i + 1, true, nil
	}
	return i, false, fail(i, "invalid character %q after %s", data[i], what)
}

// key decodes a checked string literal as encoding/json does; one with
// escapes or bytes that are not UTF-8 (rare in keys) is decoded by it.
func key(lit []byte) string {
	inner := lit[1 : len(lit)-1]
	for _, c := range inner {
		if c == '\\' || c >= utf8.RuneSelf {
			if c == '\\' || !utf8.Valid(inner) {
				var s string
				if json.Unmarshal(lit, &s) == nil {
					return s
				}
			}
			break
		}
	}
	return string(inner)
}

// rep is c in every byte of a word.
func rep(c byte) uint64 { return 0x0101010101010101 * uint64(c) }

// hasZero has the high bit set in bytes of x that are zero (and possibly
// in higher ones after such a byte, which only makes the test stop early).
func hasZero(x uint64) uint64 { return (x - rep(1)) &^ x }
