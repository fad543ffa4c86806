package droidracer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/licorice-dev/licorice/traces"
)

// Log is a parsed DroidRacer log: the records of its trace part and the race
// report that follows it.
type Log struct {
	Name string // the file name errors and the summary carry
	// Report is DroidRacer's race report, or nil if the log has no line
	// " HB Graph" (a run cut short before race detection).
	Report *Report

	records     []record
	lines       int               // lines in the trace part
	methodLines int               // "METHOD ENTRY/EXIT" lines (not imported)
	methodFirst Line              // the first of them
	other       []Line            // stray lines in the trace part
	reused      []int             // access records whose object address was reused
	classes     map[string]string // object name -> its class, as its accesses give it
}

// Class returns the class of an object of the imported trace, named as the
// import names it ("0x4109c470", "0x4109c470#2"), as DroidRacer logged it
// with its accesses; "" if the log has no access to it.
func (l *Log) Class(obj string) string { return l.classes[obj] }

// zstdMagic opens every zstd frame: logs may be stored compressed.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// maxLog bounds the size of a log (decompressed) that Read accepts;
// maxLine, one line of it (as the JSONL trace reader's); maxQuote, how
// much of a line a message quotes.
const (
	maxLog   = 1 << 30
	maxLine  = 16 << 20
	maxQuote = 200
)

// Read parses a DroidRacer log (abc_log.txt, or the same compressed with
// zstd). The trace part runs to the line " HB Graph"; what follows is read
// as DroidRacer's race report. A line of the trace part that cannot be read
// is an error that says which line and what is wrong; keywords this package
// does not know are kept and reported by Import, not fatal.
func Read(ctx context.Context, r io.Reader, name string) (*Log, error) {
	text, err := readText(r)
	if err != nil {
		return nil, &traces.LineError{File: name, Msg: err.Error(), Fatal: true, Err: err}
	}
	l := &Log{Name: name}
	var lines []string // none in an empty file
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	l.records = make([]record, 0, len(lines))
	for i, s := range lines {
		n := i + 1
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s = strings.TrimSuffix(s, "\r")
		if len(s) > maxLine {
			return nil, &traces.LineError{File: name, Line: n, Msg: fmt.Sprintf("line longer than %d MiB", maxLine>>20), Fatal: true}
		}
		if strings.TrimSpace(s) == "HB Graph" {
			rest := lines[i+1:]
			for j := range rest {
				rest[j] = strings.TrimSuffix(rest[j], "\r")
			}
			l.Report = parseReport(rest, n+1)
			break
		}
		l.lines++
		switch classify(s) {
		case blankLine:
		case methodLine:
			if l.methodLines == 0 {
				l.methodFirst = Line{n, s}
			}
			l.methodLines++
		case otherLine:
			if n == 1 && strings.HasPrefix(s, "Android bug-checker") {
				continue // the log's title
			}
			l.other = append(l.other, Line{n, s})
		default:
			rec, err := parseLine(s, n)
			if err != nil {
				return nil, &traces.LineError{File: name, Line: n, Msg: err.Error(), Fatal: true}
			}
			l.records = append(l.records, rec)
		}
	}
	l.locate()
	if l.Report != nil {
		l.resolve(l.Report)
	}
	return l, nil
}

// readText reads all of r, decompressing zstd.
func readText(r io.Reader) (string, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(len(zstdMagic))
	var src io.Reader = br
	if bytes.Equal(head, zstdMagic) {
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxLog))
		if err != nil {
			return "", fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	// A log is text: a NUL byte near the start means a wrong file
	// (/dev/zero, a binary trace), told at once rather than after 1 GiB.
	tr := bufio.NewReader(src)
	if head, _ := tr.Peek(4096); bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("not a DroidRacer log: binary data (a NUL byte at offset %d)", bytes.IndexByte(head, 0))
	}
	src = tr
	var b strings.Builder
	n, err := io.Copy(&b, io.LimitReader(src, maxLog+1))
	if err != nil {
		return "", err
	}
	if n > maxLog {
		return "", errors.New("log larger than 1 GiB")
	}
	return b.String(), nil
}

// incarnation is one object that lived at an address: the accesses to an
// address while they have one class.
type incarnation struct {
	class string
	last  int // record index of its last access
}

// locate names the location of every access and the lock of every
// LOCK/UNLOCK. Objects are their addresses. An address whose accesses
// change class was reused by a new object (an object's class never
// changes): from the change on it is "<address>#2", then "#3", ... A lock
// belongs to the first object at its address whose accesses are not all
// behind it: between the last access of one object and the first of the
// next, a lock is taken on the next (a synchronized method locks before it
// touches its object's fields).
func (l *Log) locate() {
	objs := map[string][]incarnation{}
	l.classes = map[string]string{}
	for i := range l.records {
		r := &l.records[i]
		switch {
		case r.access && !r.known:
		case r.access && r.has("database"):
			r.obj = "db:" + r.str("database")
		case r.access && strings.HasSuffix(r.kw, "-STATIC"):
			r.obj = r.str("class")
		case r.access:
			addr, class := r.str("obj"), r.str("class")
			incs := objs[addr]
			if n := len(incs); n == 0 || incs[n-1].class != class {
				if n > 0 {
					l.reused = append(l.reused, i)
				}
				incs = append(incs, incarnation{class: class})
			}
			incs[len(incs)-1].last = i
			objs[addr] = incs
			r.obj = objectName(addr, len(incs))
			l.classes[r.obj] = class
		}
	}
	for i := range l.records {
		r := &l.records[i]
		if r.kw != "LOCK" && r.kw != "UNLOCK" || r.access {
			continue
		}
		addr := r.str("lock-obj")
		incs := objs[addr]
		k := len(incs)
		for j, inc := range incs {
			if inc.last > i {
				k = j + 1
				break
			}
		}
		r.obj = objectName(addr, k)
	}
}

// objectName names incarnation n (from 1) of the object at addr.
func objectName(addr string, n int) string {
	if n <= 1 {
		return addr
	}
	return addr + "#" + strconv.Itoa(n)
}

// location is the location of an access record.
func location(r *record) Location {
	switch {
	case r.has("database"):
		return Location{Obj: r.obj, Field: "*"}
	case strings.HasSuffix(r.kw, "-STATIC"):
		return Location{Obj: r.obj, Field: r.str("field"), Static: true}
	}
	return Location{Obj: r.obj, Field: r.str("field")}
}

// resolve finds each witness access in the trace part: its rwId line, and
// the ACCESS line that closes its thread's block.
func (l *Log) resolve(rep *Report) {
	want := map[int64]bool{}
	for _, race := range rep.Races {
		want[race.First.RW], want[race.Second.RW] = true, true
	}
	type place struct{ rw, access int } // record indexes
	found := map[int64]*place{}
	pending := map[int64][]int64{} // tid -> rwIds waiting for their ACCESS
	for i := range l.records {
		r := &l.records[i]
		switch {
		case r.access && want[r.id]:
			found[r.id] = &place{rw: i, access: -1}
			pending[r.tid()] = append(pending[r.tid()], r.id)
		case r.kw == "ACCESS":
			for _, rw := range pending[r.tid()] {
				found[rw].access = i
			}
			delete(pending, r.tid())
		}
	}
	for i := range rep.Races {
		for _, a := range []*Access{&rep.Races[i].First, &rep.Races[i].Second} {
			p := found[a.RW]
			if p == nil {
				a.Loc = witnessLocation(a)
				continue
			}
			rw := &l.records[p.rw]
			a.Loc, a.RWLine = location(rw), rw.line
			if p.access >= 0 {
				a.Op, a.OpLine = l.records[p.access].id, l.records[p.access].line
			}
		}
	}
}

// witnessLocation builds a location from a witness's own fields, for an
// access whose rwId line is not in the log.
func witnessLocation(a *Access) Location {
	field := strconv.FormatInt(a.FieldIdx, 10)
	switch {
	case a.DBPath != "":
		return Location{Obj: "db:" + a.DBPath, Field: "*"}
	case a.Obj == "" || a.Obj == "0" || a.Obj == "(nil)":
		return Location{Obj: a.Class, Field: field, Static: true}
	}
	return Location{Obj: a.Obj, Field: field}
}
