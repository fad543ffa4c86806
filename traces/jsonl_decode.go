package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// maxLineBytes bounds one line of the text form; longer lines are an error,
// never an allocation of their size.
const maxLineBytes = 16 << 20

// The fields of the text form, as bits of a set.
type key uint8

const (
	keyOp key = iota
	keyT
	keyTS
	keySrc
	keyKind
	keyName
	keyChild
	keyQ
	keyE
	keyDelay
	keyAt
	keyAsync
	keyExternal
	keyThread
	keyM
	keyL
	keyH
	keyObj
	keyClass
	keySite
	keyType
	keyField
	keyVal
	keyDeref
	keyInit
	keyUpdate
	keyA
	keyB
	keyVia
	keyCond
	keyTaken
	keyPC
	keyTarget
	keyMsg
	numKeys
)

var keyNames = [numKeys]string{
	keyOp: "op", keyT: "t", keyTS: "ts", keySrc: "src", keyKind: "kind", keyName: "name",
	keyChild: "child", keyQ: "q", keyE: "e", keyDelay: "delay", keyAt: "at", keyAsync: "async",
	keyExternal: "external", keyThread: "thread", keyM: "m", keyL: "l", keyH: "h", keyObj: "obj",
	keyClass: "class", keySite: "site", keyType: "type", keyField: "field", keyVal: "val",
	keyDeref: "deref", keyInit: "init", keyUpdate: "update", keyA: "a", keyB: "b", keyVia: "via", keyCond: "cond", keyTaken: "taken",
	keyPC: "pc", keyTarget: "target", keyMsg: "msg",
}

func lookupKey(b []byte) (key, bool) {
	switch string(b) {
	case "op":
		return keyOp, true
	case "t":
		return keyT, true
	case "ts":
		return keyTS, true
	case "src":
		return keySrc, true
	case "kind":
		return keyKind, true
	case "name":
		return keyName, true
	case "child":
		return keyChild, true
	case "q":
		return keyQ, true
	case "e":
		return keyE, true
	case "delay":
		return keyDelay, true
	case "at":
		return keyAt, true
	case "async":
		return keyAsync, true
	case "external":
		return keyExternal, true
	case "thread":
		return keyThread, true
	case "m":
		return keyM, true
	case "l":
		return keyL, true
	case "h":
		return keyH, true
	case "obj":
		return keyObj, true
	case "class":
		return keyClass, true
	case "site":
		return keySite, true
	case "type":
		return keyType, true
	case "field":
		return keyField, true
	case "val":
		return keyVal, true
	case "deref":
		return keyDeref, true
	case "init":
		return keyInit, true
	case "update":
		return keyUpdate, true
	case "a":
		return keyA, true
	case "b":
		return keyB, true
	case "via":
		return keyVia, true
	case "cond":
		return keyCond, true
	case "taken":
		return keyTaken, true
	case "pc":
		return keyPC, true
	case "target":
		return keyTarget, true
	case "msg":
		return keyMsg, true
	}
	return 0, false
}

type keySet uint64

func keys(ks ...key) keySet {
	var s keySet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s keySet) has(k key) bool { return s&(1<<k) != 0 }

// allowedKeys lists, per op kind, the fields it may have besides op, t, ts
// and src.
var allowedKeys = [numKinds]keySet{
	ThreadBegin: keys(keyKind, keyName),
	ThreadEnd:   0,
	Fork:        keys(keyChild),
	Join:        keys(keyChild),
	Attach:      keys(keyQ),
	Send:        keys(keyQ, keyE, keyKind, keyDelay, keyAt, keyAsync, keyExternal),
	Remove:      keys(keyE),
	Begin:       keys(keyThread),
	End:         0,
	Signal:      keys(keyM),
	Wait:        keys(keyM),
	Lock:        keys(keyL),
	Unlock:      keys(keyL),
	Call:        keys(keyH),
	Ret:         keys(keyH),
	Alloc:       keys(keyObj, keySite, keyType),
	Read:        keys(keyObj, keyClass, keyField, keyVal, keyDeref),
	Write:       keys(keyObj, keyClass, keyField, keyVal, keyInit, keyUpdate),
	Relate:      keys(keyA, keyB, keyVia),
	Branch:      keys(keyObj, keyClass, keyField, keyCond, keyTaken, keyPC, keyTarget),
	Error:       keys(keyMsg),
}

var commonKeys = keys(keyOp, keyT, keyTS, keySrc)

// jsonlDecoder reads the text form.
type jsonlDecoder struct {
	br      *bufio.Reader
	syms    *Symbols
	lineNo  int
	long    []byte // a line longer than the bufio buffer
	scratch []byte // unescaped strings
	spans   [numKeys]span
	keyPos  [numKeys]int
	line    []byte
}

func newJSONLDecoder(r io.Reader, syms *Symbols) (*jsonlDecoder, Header, error) {
	d := &jsonlDecoder{br: bufio.NewReaderSize(r, 64<<10), syms: syms}
	h, err := d.readHeader()
	return d, h, err
}

func (d *jsonlDecoder) lineNumber() int { return d.lineNo }

// readLine returns the next line that is not blank, without its newline.
func (d *jsonlDecoder) readLine() ([]byte, error) {
	for {
		line, err := d.readRawLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (d *jsonlDecoder) readRawLine() ([]byte, error) {
	line, err := d.br.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(line) > 0) {
		d.lineNo++
		return line, nil
	}
	if err == io.EOF {
		return nil, io.EOF
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	d.lineNo++
	d.long = append(d.long[:0], line...)
	for {
		line, err = d.br.ReadSlice('\n')
		if len(d.long)+len(line) > maxLineBytes {
			// Skip the rest of the line, so that the next one can be read.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = d.br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, &LineError{Line: d.lineNo, Msg: fmt.Sprintf("line longer than %d MiB", maxLineBytes>>20)}
		}
		d.long = append(d.long, line...)
		if err == nil || err == io.EOF {
			return d.long, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

func (d *jsonlDecoder) readHeader() (Header, error) {
	line, err := d.readLine()
	if err == io.EOF {
		return Header{}, &LineError{Msg: "empty input: not a trace", Fatal: true}
	}
	if err != nil {
		return Header{}, fatal(err)
	}
	h, err := parseHeader(line)
	if err != nil {
		msg := "header: " + err.Error()
		if !bytes.Contains(line, []byte(`"licorice_trace"`)) {
			msg = notATrace(line)
		}
		return Header{}, &LineError{Line: d.lineNo, Msg: msg, Fatal: true}
	}
	return h, nil
}

// notATrace says why a first line without "licorice_trace" is no trace
// header, naming what the file looks like where that is clear.
func notATrace(line []byte) string {
	const want = `not a licorice trace: the first line must be the header {"licorice_trace":1, ...}`
	switch first := bytes.TrimSpace(line); {
	case bytes.Contains(first, []byte(`"op"`)):
		return want + ", before the first op"
	case bytes.Equal(first, []byte("{")):
		return want + "; this is a JSON document over several lines (a spec, a template file?)"
	}
	return want
}

func fatal(err error) error {
	var le *LineError
	if errors.As(err, &le) {
		le.Fatal = true
		return le
	}
	return &LineError{Msg: err.Error(), Fatal: true, Err: err}
}

func parseHeader(line []byte) (Header, error) {
	var h Header
	s := scanner{b: line}
	seen := map[string]bool{}
	version := false
	err := s.object(1, func(_ int, k, v span) error {
		name, err := unquote(nil, line[k.start:k.end])
		if err != nil {
			return err
		}
		key := string(name)
		if seen[key] {
			return fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		lit := line[v.start:v.end]
		wantType := func(t jsonType, what string) error {
			if v.typ != t {
				return fmt.Errorf("%q: want %s, got %s", key, what, v.typ)
			}
			return nil
		}
		switch key {
		case "licorice_trace":
			if v.typ != jsonNumber || !isIntLiteral(lit) {
				return fmt.Errorf("%q: want the format version, an integer, got %s", key, v.typ)
			}
			n, err := strconv.Atoi(string(lit))
			if err != nil || n < MinVersion || n > Version {
				return fmt.Errorf("unsupported trace format version %s (this licorice reads versions %d to %d)", lit, MinVersion, Version)
			}
			h.Version = n
			version = true
		case "platform", "app", "run":
			if err := wantType(jsonString, "a string"); err != nil {
				return err
			}
			str, err := unquote(nil, lit)
			if err != nil {
				return err
			}
			switch key {
			case "platform":
				h.Platform = string(str)
			case "app":
				h.App = string(str)
			default:
				h.Run = string(str)
			}
		case "shuffled":
			if v.typ != jsonTrue && v.typ != jsonFalse {
				return fmt.Errorf("%q: want true or false, got %s", key, v.typ)
			}
			h.Shuffled = v.typ == jsonTrue
		case "seed":
			if v.typ != jsonNumber || !isIntLiteral(lit) {
				return fmt.Errorf("%q: want an integer, got %s", key, v.typ)
			}
			n, err := strconv.ParseInt(string(lit), 10, 64)
			if err != nil {
				return fmt.Errorf("%q: integer out of range", key)
			}
			h.Seed, h.HasSeed = n, true
		default:
			if v.typ == jsonString { // the span leaves out the quotes
				lit = line[v.start-1 : v.end+1]
			}
			c, err := compactJSON(nil, lit)
			if err != nil {
				return err
			}
			h.Extra = append(h.Extra, ExtraField{Key: key, JSON: string(c)})
		}
		return nil
	})
	if err != nil {
		return Header{}, err
	}
	s.skipSpace()
	if s.pos != len(s.b) {
		return Header{}, s.unexpected("the end of the line")
	}
	if !version {
		return Header{}, errors.New(notATrace(line))
	}
	sortExtra(h.Extra)
	return h, nil
}

// next decodes the next op into op. It returns io.EOF at the end, a
// *LineError for a bad line (after which decoding can go on), or another
// error if the input cannot be read.
func (d *jsonlDecoder) next(op *Op) error {
	line, err := d.readLine()
	if err != nil {
		var le *LineError
		if errors.As(err, &le) || err == io.EOF {
			return err
		}
		return fatal(err)
	}
	d.line = line
	if err := d.decodeOp(op); err != nil {
		err.Line = d.lineNo
		return err
	}
	return nil
}

// decodeOp parses d.line into op.
func (d *jsonlDecoder) decodeOp(op *Op) *LineError {
	*op = Op{}
	line := d.line
	var seen keySet
	s := scanner{b: line}
	err := s.object(1, func(keyPos int, k, v span) error {
		name := line[k.start:k.end]
		if k.esc {
			var err error
			if name, err = unquote(nil, name); err != nil {
				return err
			}
		}
		kk, ok := lookupKey(name)
		if !ok {
			return fmt.Errorf("unknown field %q", name)
		}
		if seen.has(kk) {
			return fmt.Errorf("duplicate field %q", name)
		}
		seen |= 1 << kk
		d.spans[kk] = v
		d.keyPos[kk] = keyPos
		return nil
	})
	if err == nil {
		s.skipSpace()
		if s.pos != len(s.b) {
			err = s.unexpected("the end of the line")
		}
	}
	// Find the op and task first, so that any error can name them.
	if seen.has(keyOp) {
		if sp := d.spans[keyOp]; sp.typ == jsonString {
			if k, ok := ParseKind(string(line[sp.start:sp.end])); ok {
				op.Kind = k
			}
		}
	}
	if seen.has(keyT) && d.spans[keyT].typ == jsonString {
		op.Task, _ = d.internSpan(d.spans[keyT])
	}
	p := fieldParser{d: d, op: op, seen: seen}
	fail := p.fail
	if err != nil {
		return fail("%v", err)
	}
	if !seen.has(keyOp) {
		return fail(`missing field "op"`)
	}
	if op.Kind == 0 {
		sp := d.spans[keyOp]
		if sp.typ != jsonString {
			return fail(`field "op": want a string, got %s`, sp.typ)
		}
		return fail("unknown op %q", line[sp.start:sp.end])
	}
	allowed := allowedKeys[op.Kind] | commonKeys
	if extra := seen &^ allowed; extra != 0 {
		for k := key(0); k < numKeys; k++ {
			if extra.has(k) {
				return fail("field %q is not a field of op %q", keyNames[k], op.Kind)
			}
		}
	}
	return p.fill(op)
}

// internSpan interns a scanned string.
func (d *jsonlDecoder) internSpan(sp span) (Sym, error) {
	b := d.line[sp.start:sp.end]
	if sp.esc {
		var err error
		d.scratch, err = unquote(d.scratch[:0], b)
		if err != nil {
			return NoSym, err
		}
		b = d.scratch
	}
	return d.syms.InternBytes(b), nil
}

// fieldParser converts the scanned fields of one op.
type fieldParser struct {
	d    *jsonlDecoder
	op   *Op // the op being decoded: its kind and task name errors
	seen keySet
}

// fail makes the error of a bad field.
func (p *fieldParser) fail(format string, args ...any) *LineError {
	le := &LineError{Op: p.op.Kind, Msg: fmt.Sprintf(format, args...)}
	if p.op.Task != NoSym {
		le.Task = p.d.syms.String(p.op.Task)
	}
	return le
}

func (p *fieldParser) has(k key) bool { return p.seen.has(k) }

// id reads a required, non-empty string field.
func (p *fieldParser) id(k key) (Sym, *LineError) {
	if !p.has(k) {
		return NoSym, p.fail("missing field %q", keyNames[k])
	}
	return p.nonEmpty(k, p.d.spans[k])
}

func (p *fieldParser) nonEmpty(k key, sp span) (Sym, *LineError) {
	if sp.typ != jsonString {
		return NoSym, p.fail("field %q: want a string, got %s", keyNames[k], sp.typ)
	}
	if sp.start == sp.end {
		return NoSym, p.fail("field %q must not be empty", keyNames[k])
	}
	y, err := p.d.internSpan(sp)
	if err != nil {
		return NoSym, p.fail("field %q: %v", keyNames[k], err)
	}
	return y, nil
}

// text reads an optional string field; "" is the same as absent.
func (p *fieldParser) text(k key) (Sym, *LineError) {
	if !p.has(k) {
		return NoSym, nil
	}
	sp := p.d.spans[k]
	if sp.typ != jsonString {
		return NoSym, p.fail("field %q: want a string, got %s", keyNames[k], sp.typ)
	}
	y, err := p.d.internSpan(sp)
	if err != nil {
		return NoSym, p.fail("field %q: %v", keyNames[k], err)
	}
	return y, nil
}

// word reads a string field that must be one of a few words.
func (p *fieldParser) word(k key, what string) (string, *LineError) {
	sp := p.d.spans[k]
	if sp.typ != jsonString || sp.esc {
		return "", p.fail("field %q: want %s, got %s", keyNames[k], what, p.describe(sp))
	}
	return string(p.d.line[sp.start:sp.end]), nil
}

func (p *fieldParser) describe(sp span) string {
	if sp.typ == jsonString || sp.typ == jsonNumber {
		return string(p.d.line[sp.start-boolInt(sp.typ == jsonString) : sp.end+boolInt(sp.typ == jsonString)])
	}
	return sp.typ.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *fieldParser) flag(k key) (bool, *LineError) {
	if !p.has(k) {
		return false, nil
	}
	switch p.d.spans[k].typ {
	case jsonTrue:
		return true, nil
	case jsonFalse:
		return false, nil
	}
	return false, p.fail("field %q: want true or false, got %s", keyNames[k], p.describe(p.d.spans[k]))
}

func (p *fieldParser) integer(k key) (int64, *LineError) {
	sp := p.d.spans[k]
	lit := p.d.line[sp.start:sp.end]
	if sp.typ != jsonNumber || !isIntLiteral(lit) {
		return 0, p.fail("field %q: want an integer, got %s", keyNames[k], p.describe(sp))
	}
	n, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		return 0, p.fail("field %q: integer %s out of range", keyNames[k], lit)
	}
	return n, nil
}

func (p *fieldParser) nonNegative(k key) (int64, *LineError) {
	n, le := p.integer(k)
	if le == nil && n < 0 {
		return 0, p.fail("field %q must not be negative, got %d", keyNames[k], n)
	}
	return n, le
}

// location reads obj|class and field.
func (p *fieldParser) location() (Location, *LineError) {
	var loc Location
	switch {
	case p.has(keyObj) && p.has(keyClass):
		return loc, p.fail(`fields "obj" and "class" exclude each other`)
	case p.has(keyObj):
		y, le := p.id(keyObj)
		if le != nil {
			return loc, le
		}
		loc.Obj = y
	case p.has(keyClass):
		y, le := p.id(keyClass)
		if le != nil {
			return loc, le
		}
		loc.Obj, loc.Static = y, true
	default:
		return loc, p.fail(`missing field "obj" or "class"`)
	}
	y, le := p.id(keyField)
	loc.Field = y
	return loc, le
}

// datum reads a relate operand: {"obj"|"class": ..., "field": ...}.
func (p *fieldParser) datum(k key) (Location, *LineError) {
	var loc Location
	if !p.has(k) {
		return loc, p.fail("missing field %q", keyNames[k])
	}
	sp := p.d.spans[k]
	if sp.typ != jsonObject {
		return loc, p.fail(`field %q: want {"obj"|"class": ..., "field": ...}, got %s`, keyNames[k], p.describe(sp))
	}
	line := p.d.line
	s := scanner{b: line[:sp.end], pos: sp.start}
	var obj, class, field span
	err := s.object(1, func(_ int, kk, v span) error {
		var dst *span
		switch string(line[kk.start:kk.end]) {
		case "obj":
			dst = &obj
		case "class":
			dst = &class
		case "field":
			dst = &field
		default:
			return fmt.Errorf("unknown field %q", line[kk.start:kk.end])
		}
		if dst.typ != jsonNone {
			return fmt.Errorf("duplicate field %q", line[kk.start:kk.end])
		}
		*dst = v
		return nil
	})
	if err != nil {
		return loc, p.fail("field %q: %v", keyNames[k], err)
	}
	sub := func(name string, sp span) (Sym, *LineError) {
		if sp.typ != jsonString || sp.start == sp.end {
			return NoSym, p.fail("field %q: %q must be a non-empty string", keyNames[k], name)
		}
		y, err := p.d.internSpan(sp)
		if err != nil {
			return NoSym, p.fail("field %q: %v", keyNames[k], err)
		}
		return y, nil
	}
	var le *LineError
	switch {
	case obj.typ != jsonNone && class.typ != jsonNone:
		return loc, p.fail(`field %q: "obj" and "class" exclude each other`, keyNames[k])
	case obj.typ != jsonNone:
		loc.Obj, le = sub("obj", obj)
	case class.typ != jsonNone:
		loc.Obj, le = sub("class", class)
		loc.Static = true
	default:
		return loc, p.fail(`field %q: missing "obj" or "class"`, keyNames[k])
	}
	if le != nil {
		return loc, le
	}
	if field.typ == jsonNone {
		return loc, p.fail(`field %q: missing "field"`, keyNames[k])
	}
	loc.Field, le = sub("field", field)
	return loc, le
}

// value reads a value: null, a number, true, false, a string or {"ref": id}.
func (p *fieldParser) value(k key) (Value, *LineError) {
	sp := p.d.spans[k]
	line := p.d.line
	lit := line[sp.start:sp.end]
	switch sp.typ {
	case jsonNull:
		return Null(), nil
	case jsonTrue:
		return Bool(true), nil
	case jsonFalse:
		return Bool(false), nil
	case jsonString:
		y, err := p.d.internSpan(sp)
		if err != nil {
			return Value{}, p.fail("field %q: %v", keyNames[k], err)
		}
		return String(y), nil
	case jsonNumber:
		if isIntLiteral(lit) {
			n, err := strconv.ParseInt(string(lit), 10, 64)
			if err != nil {
				return Value{}, p.fail("field %q: integer %s out of the range of int64", keyNames[k], lit)
			}
			return Int(n), nil
		}
		f, err := strconv.ParseFloat(string(lit), 64)
		if err != nil || math.IsInf(f, 0) {
			return Value{}, p.fail("field %q: number %s out of the range of float64", keyNames[k], lit)
		}
		return Float(f), nil
	case jsonObject:
		s := scanner{b: line[:sp.end], pos: sp.start}
		var ref span
		n := 0
		err := s.object(1, func(_ int, kk, v span) error {
			n++
			if string(line[kk.start:kk.end]) != "ref" || n > 1 {
				return errors.New(`a reference is {"ref": "<object id>"} and nothing else`)
			}
			ref = v
			return nil
		})
		if err != nil {
			return Value{}, p.fail("field %q: %v", keyNames[k], err)
		}
		if n == 0 || ref.typ != jsonString || ref.start == ref.end {
			return Value{}, p.fail(`field %q: a reference is {"ref": "<object id>"} with a non-empty id`, keyNames[k])
		}
		y, err := p.d.internSpan(ref)
		if err != nil {
			return Value{}, p.fail("field %q: %v", keyNames[k], err)
		}
		return Ref(y), nil
	}
	return Value{}, p.fail(`field %q: a value is null, a number, true, false, a string or {"ref": id}; got %s`, keyNames[k], sp.typ)
}

// fill converts the fields of the op of kind op.Kind.
func (p *fieldParser) fill(op *Op) *LineError {
	var le *LineError
	// Common fields.
	if p.has(keyT) {
		if op.Task, le = p.id(keyT); le != nil {
			return le
		}
	}
	if p.has(keyTS) {
		sp := p.d.spans[keyTS]
		if sp.typ != jsonNumber {
			return p.fail(`field "ts": want a number of milliseconds, got %s`, p.describe(sp))
		}
		f, err := strconv.ParseFloat(string(p.d.line[sp.start:sp.end]), 64)
		if err != nil || math.IsInf(f, 0) {
			return p.fail(`field "ts": number out of range`)
		}
		op.TS, op.HasTS = f, true
	}
	if op.Src, le = p.text(keySrc); le != nil {
		return le
	}
	switch op.Kind {
	case ThreadBegin:
		if p.has(keyKind) {
			w, le := p.word(keyKind, `"worker", "looper" or "binder"`)
			if le != nil {
				return le
			}
			k, ok := ParseThreadKind(w)
			if !ok {
				return p.fail(`field "kind": want "worker", "looper" or "binder", got %q`, w)
			}
			op.ThreadKind = k
		}
		op.Name, le = p.text(keyName)
	case Fork, Join:
		op.Thread, le = p.id(keyChild)
	case Attach:
		op.Queue, le = p.id(keyQ)
	case Send:
		le = p.send(op)
	case Remove:
		op.Event, le = p.id(keyE)
	case Begin:
		op.Thread, le = p.id(keyThread)
	case Signal, Wait:
		op.Name, le = p.id(keyM)
	case Lock, Unlock:
		op.Name, le = p.id(keyL)
	case Call, Ret:
		op.Name, le = p.id(keyH)
	case Alloc:
		if op.Loc.Obj, le = p.id(keyObj); le != nil {
			return le
		}
		if op.Site, le = p.text(keySite); le != nil {
			return le
		}
		op.Type, le = p.text(keyType)
	case Read, Write:
		if op.Loc, le = p.location(); le != nil {
			return le
		}
		if p.has(keyVal) {
			if op.Val, le = p.value(keyVal); le != nil {
				return le
			}
		}
		if op.Kind == Read {
			op.Deref, le = p.flag(keyDeref)
		} else if op.Init, le = p.flag(keyInit); le == nil {
			op.Update, le = p.flag(keyUpdate)
		}
	case Relate:
		if op.Loc, le = p.datum(keyA); le != nil {
			return le
		}
		if op.Loc2, le = p.datum(keyB); le != nil {
			return le
		}
		if !p.has(keyVia) {
			return p.fail(`missing field "via"`)
		}
		w, le := p.word(keyVia, `"cmp" or "arith"`)
		if le != nil {
			return le
		}
		v, ok := ParseRelateVia(w)
		if !ok {
			return p.fail(`field "via": want "cmp" or "arith", got %q`, w)
		}
		op.Via = v
	case Branch:
		if op.Loc, le = p.location(); le != nil {
			return le
		}
		if !p.has(keyCond) {
			return p.fail(`missing field "cond"`)
		}
		w, le := p.word(keyCond, `"null", "nonnull" or "eq"`)
		if le != nil {
			return le
		}
		c, ok := ParseBranchCond(w)
		if !ok {
			return p.fail(`field "cond": want "null", "nonnull" or "eq", got %q`, w)
		}
		op.Cond = c
		if op.Taken, le = p.flag(keyTaken); le != nil {
			return le
		}
		if p.has(keyPC) {
			if op.PC, le = p.integer(keyPC); le != nil {
				return le
			}
		}
		if p.has(keyTarget) {
			if op.Target, le = p.integer(keyTarget); le != nil {
				return le // le is this case's own: the check after the switch would miss it
			}
		}
	case Error:
		op.Name, le = p.text(keyMsg)
	}
	if le != nil {
		return le
	}
	if op.Task == NoSym && !(op.Kind == Send && op.External) {
		return p.fail(`missing field "t"`)
	}
	return nil
}

func (p *fieldParser) send(op *Op) *LineError {
	var le *LineError
	if op.Queue, le = p.id(keyQ); le != nil {
		return le
	}
	if op.Event, le = p.id(keyE); le != nil {
		return le
	}
	if p.has(keyKind) {
		w, le := p.word(keyKind, `"delayed", "at_time" or "at_front"`)
		if le != nil {
			return le
		}
		k, ok := ParseSendKind(w)
		if !ok {
			return p.fail(`field "kind": want "delayed", "at_time" or "at_front", got %q`, w)
		}
		op.SendKind = k
	}
	switch op.SendKind {
	case Delayed:
		if p.has(keyAt) {
			return p.fail(`field "at" goes with kind "at_time", not "delayed"`)
		}
		if p.has(keyDelay) {
			if op.Time, le = p.nonNegative(keyDelay); le != nil {
				return le
			}
		}
	case AtTime:
		if p.has(keyDelay) {
			return p.fail(`field "delay" goes with kind "delayed", not "at_time"`)
		}
		if !p.has(keyAt) {
			return p.fail(`missing field "at" (kind "at_time")`)
		}
		if op.Time, le = p.nonNegative(keyAt); le != nil {
			return le
		}
	case AtFront:
		if p.has(keyDelay) || p.has(keyAt) {
			return p.fail(`fields "delay" and "at" do not go with kind "at_front"`)
		}
	}
	if op.Async, le = p.flag(keyAsync); le != nil {
		return le
	}
	op.External, le = p.flag(keyExternal)
	return le
}
