package invariants

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/licorice-dev/licorice/internal/limitedfile"
)

// TemplateFileVersion is the version of the templates file format.
const TemplateFileVersion = 1

// A templates file is JSON:
//
//	{
//	  "licorice_templates": 1,
//	  "templates": [
//	    {"name": "even", "types": ["int"], "expr": "x % 2 == 0"},
//	    {"name": "gap", "types": ["int"], "expr": "y - x", "fitter": "bounds"}
//	  ]
//	}
//
// "licorice_templates" (the version) is optional; the fields of a template
// are those of [TemplateDecl].

// FileError is a mistake at a place in a templates file.
type FileError struct {
	File      string
	Line, Col int // 1-based; Col counts characters
	Msg       string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// FileErrors is every mistake found in a templates file, in file order.
type FileErrors []*FileError

func (es FileErrors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// MaxTemplateFileSize bounds a template file.
const MaxTemplateFileSize = 1 << 20

// ReadTemplateFile reads and compiles the templates of a file.
func ReadTemplateFile(path string) ([]*UserTemplate, error) {
	data, err := limitedfile.ReadJSONObject(path, MaxTemplateFileSize, "a template file")
	if err != nil {
		return nil, fmt.Errorf("read templates: %w", err)
	}
	return ParseTemplateFile(path, data)
}

// ReadTemplates is ReadTemplateFile for what r holds (standard input),
// named name in errors.
func ReadTemplates(r io.Reader, name string) ([]*UserTemplate, error) {
	data, err := limitedfile.ReadJSONObjectFrom(r, name, MaxTemplateFileSize, "a template file")
	if err != nil {
		return nil, fmt.Errorf("read templates: %w", err)
	}
	return ParseTemplateFile(name, data)
}

// LoadCatalog returns the built-ins plus the templates of the file at path
// ("" for the built-ins alone).
func LoadCatalog(path string) (*Catalog, error) {
	if path == "" {
		return Builtins(), nil
	}
	user, err := ReadTemplateFile(path)
	if err != nil {
		return nil, err
	}
	return NewCatalog(user...)
}

// ParseTemplateFile compiles the templates in data, the contents of the
// file name. It reports every mistake it finds (as FileErrors), each with
// its line and column; a mistake in an expression points into it.
func ParseTemplateFile(name string, data []byte) ([]*UserTemplate, error) {
	p := &fileParser{name: name, data: data}
	out := p.parse()
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return out, nil
}

type fileParser struct {
	name string
	data []byte
	errs FileErrors
}

func (p *fileParser) errorAt(off int, format string, args ...any) {
	line, col := position(p.data, off)
	p.errs = append(p.errs, &FileError{File: p.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)})
}

// position converts a byte offset to a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[start:])
}

// skip returns the offset of the next token at or after off.
func skip(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// jsonError reports a decoding error: a syntax error where it is (its
// offset counts from decoderStart), other errors at the value at.
func (p *fileParser) jsonError(decoderStart, at int, err error, what string) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		p.errorAt(decoderStart+int(se.Offset)-1, "%s: %v", what, se)
	case errors.As(err, &te):
		p.errorAt(at, "%s: a JSON %s cannot be %s", what, te.Value, te.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		p.errorAt(len(p.data), "%s: unexpected end of file", what)
	default:
		p.errorAt(at, "%s: %v", what, err)
	}
}

// object walks the JSON object at off, calling field with each key, the
// offset of the key and of its value, and the raw value. It returns the
// offset just after the object, or -1 if the object is broken.
func (p *fileParser) object(off int, what string, field func(key string, keyOff, valOff int, raw json.RawMessage)) int {
	dec := json.NewDecoder(bytes.NewReader(p.data[off:]))
	tok, err := dec.Token()
	if err != nil {
		p.jsonError(off, off, err, what)
		return -1
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		p.errorAt(off, "%s must be a JSON object", what)
		return -1
	}
	for dec.More() {
		keyOff := off + skip(p.data[off:], int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			p.jsonError(off, keyOff, err, what)
			return -1
		}
		key, _ := tok.(string)
		valOff := off + skip(p.data[off:], int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			p.jsonError(off, valOff, err, what)
			return -1
		}
		field(key, keyOff, valOff, raw)
	}
	if _, err := dec.Token(); err != nil {
		p.jsonError(off, off+int(dec.InputOffset()), err, what)
		return -1
	}
	return off + int(dec.InputOffset())
}

func (p *fileParser) parse() []*UserTemplate {
	start := skip(p.data, 0)
	if start == len(p.data) {
		p.errorAt(0, "empty file: want {\"templates\": [...]}")
		return nil
	}
	// Syntax first, so that every later error is about meaning. (A
	// json.Decoder's syntax error offsets are not reliable mid-stream;
	// Unmarshal's are.)
	var probe any
	if err := json.Unmarshal(p.data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at, msg := int(se.Offset)-1, se.Error()
			if strings.HasPrefix(msg, "unexpected end of JSON input") {
				at, msg = len(p.data), "unexpected end of file"
			}
			p.errorAt(at, "%s", msg)
			return nil
		}
	}
	var out []*UserTemplate
	found := false
	end := p.object(start, "templates file", func(key string, keyOff, valOff int, raw json.RawMessage) {
		switch key {
		case "licorice_templates":
			var v int
			if err := json.Unmarshal(raw, &v); err != nil || v != TemplateFileVersion {
				p.errorAt(valOff, "unsupported templates file version %s (this licorice reads version %d)", raw, TemplateFileVersion)
			}
		case "templates":
			found = true
			out = p.templates(valOff, raw)
		default:
			p.errorAt(keyOff, "unknown key %q (want \"licorice_templates\" or \"templates\")", key)
		}
	})
	if end < 0 {
		return nil
	}
	if !found && len(p.errs) == 0 {
		p.errorAt(start, "no \"templates\" list")
	}
	return out
}

func (p *fileParser) templates(off int, raw json.RawMessage) []*UserTemplate {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		p.errorAt(off, "\"templates\" must be a list of templates")
		return nil
	}
	var out []*UserTemplate
	seen := map[string]bool{}
	for dec.More() {
		elemOff := off + skip(raw, int(dec.InputOffset()))
		var elem json.RawMessage
		if err := dec.Decode(&elem); err != nil {
			p.jsonError(off, elemOff, err, "template")
			return out
		}
		u, nameOff := p.template(elemOff)
		if u == nil {
			continue
		}
		if seen[u.decl.Name] {
			p.errorAt(nameOff, "template %q is declared twice", u.decl.Name)
			continue
		}
		seen[u.decl.Name] = true
		out = append(out, u)
	}
	return out
}

// template decodes and compiles the template at off; it returns the
// offset of its name's value too.
func (p *fileParser) template(off int) (*UserTemplate, int) {
	var d TemplateDecl
	fields := map[string]int{} // key -> offset of its value
	nerr := len(p.errs)
	end := p.object(off, "template", func(key string, keyOff, valOff int, raw json.RawMessage) {
		var dst any
		switch key {
		case "name":
			dst = &d.Name
		case "doc":
			dst = &d.Doc
		case "arity":
			dst = &d.Arity
		case "types":
			dst = &d.Types
		case "expr":
			dst = &d.Expr
		case "fitter":
			dst = &d.Fitter
		case "symmetric":
			dst = &d.Symmetric
		case "min_distinct":
			dst = &d.MinDistinct
		default:
			p.errorAt(keyOff, "unknown template key %q (want name, doc, arity, types, expr, fitter, symmetric, min_distinct)", key)
			return
		}
		if _, dup := fields[key]; dup {
			p.errorAt(keyOff, "key %q is given twice", key)
			return
		}
		fields[key] = valOff
		if err := json.Unmarshal(raw, dst); err != nil {
			p.jsonError(valOff, valOff, err, fmt.Sprintf("template key %q", key))
		}
	})
	if end < 0 || len(p.errs) > nerr {
		return nil, 0
	}
	for _, req := range []string{"name", "types", "expr"} {
		if _, ok := fields[req]; !ok {
			p.errorAt(off, "template has no %q", req)
			return nil, 0
		}
	}
	u, err := CompileTemplate(d)
	if err != nil {
		var de *DeclError
		if !errors.As(err, &de) {
			p.errorAt(off, "%v", err)
			return nil, 0
		}
		at, ok := fields[de.Field]
		if !ok {
			at = off
		}
		if de.Field == "expr" && de.Offset >= 0 {
			at = stringRuneOffset(p.data, at, de.Offset)
		}
		p.errorAt(at, "%v", de)
		return nil, 0
	}
	return u, fields["name"]
}

// stringRuneOffset returns the byte offset in data of the rune with index
// r of the JSON string literal starting (with its quote) at off.
func stringRuneOffset(data []byte, off, r int) int {
	i := off + 1
	for n := 0; i < len(data) && data[i] != '"'; n++ {
		if n == r {
			return i
		}
		if data[i] == '\\' && i+1 < len(data) {
			if data[i+1] == 'u' {
				i += 6
				// A surrogate pair is one rune.
				if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' && isHighSurrogate(data[i-4:i]) {
					i += 6
				}
			} else {
				i += 2
			}
			continue
		}
		_, size := utf8.DecodeRune(data[i:])
		i += size
	}
	return i
}

func isHighSurrogate(hex []byte) bool {
	var v int
	if _, err := fmt.Sscanf(string(hex), "%04x", &v); err != nil {
		return false
	}
	return v >= 0xD800 && v < 0xDC00
}
