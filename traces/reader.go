package traces

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// decoder is one format's decoding of operations.
type decoder interface {
	// next decodes the next op; io.EOF at the end.
	next(op *Op) error
	// lineNumber is the line of the op last decoded, in the file's text form
	// or, for binary forms, in the canonical text form.
	lineNumber() int
}

// Option configures a Reader.
type Option func(*readerOptions)

type readerOptions struct {
	syms     *Symbols
	validate bool
	name     string
	progress func(ops int)
	stdin    io.Reader
}

// WithSymbols makes the reader intern into syms, so that Syms are shared
// with other readers and writers using the same table.
func WithSymbols(syms *Symbols) Option { return func(o *readerOptions) { o.syms = syms } }

// WithoutValidation makes the reader only decode: it checks syntax and
// field types but not the rules that relate operations to each other.
func WithoutValidation() Option { return func(o *readerOptions) { o.validate = false } }

// WithName sets the file name that errors carry.
func WithName(name string) Option { return func(o *readerOptions) { o.name = name } }

// StdinName is how a trace read from standard input ("-") is named in
// messages and outputs.
const StdinName = "<stdin>"

// DisplayName is how the trace at path is named in messages and
// outputs: path itself, or StdinName for "-".
func DisplayName(path string) string {
	if path == "-" {
		return StdinName
	}
	return path
}

// WithStdin makes [Open] read r for the path "-", instead of the
// process's standard input.
func WithStdin(r io.Reader) Option { return func(o *readerOptions) { o.stdin = r } }

// progressEvery is how many ops a reader reads between progress reports.
const progressEvery = 1 << 16

// WithProgress makes the reader call f with the number of ops read since
// its last call, every 65536 ops, at the end of the trace and when the
// reader is closed: for progress bars, at no cost per op. It is called by
// the goroutine that reads, which under [EachAhead] is not the caller's,
// and by Close.
func WithProgress(f func(ops int)) Option { return func(o *readerOptions) { o.progress = f } }

// Reader streams the operations of a trace in any of its forms. By default
// every operation is validated ([Validator]) before it is returned.
type Reader struct {
	name   string
	format Format
	header Header
	syms   *Symbols
	dec    decoder
	lct    *lctDecoder // dec, if the trace is .lct: Next calls its fast path directly
	// plain is lct while Next has nothing to do but decode: no validator,
	// no progress reports, no fatal error yet. Its ops take the shortest
	// path, a call of the fast path and a count; nil otherwise.
	plain  *lctDecoder
	val    *Validator
	closer io.Closer
	err    error // sticky fatal error
	n      int   // ops returned

	progress     func(ops int)
	progressLeft int // ops to read before the next progress report

	// The fields below are the visitor's of EachAhead (and of
	// EachChunkAhead), written for every op (or chunk) it visits while the
	// reading goroutine writes n for every op it reads:
	// on one cache line, every op would move the line between the two
	// cores, so they have lines of their own.
	_ [64]byte

	// visited is set once EachAhead has read r on another goroutine:
	// Line and Count then say visitedLine and visitedCount, those of the
	// op last visited, not of the op last read.
	visited                   bool
	visitedLine, visitedCount int

	_ [64]byte
}

// Open opens the trace file at path, whatever its form. The name "-" reads
// standard input (or the reader of [WithStdin]), named [StdinName].
func Open(path string, opts ...Option) (*Reader, error) {
	if path == "-" {
		var o readerOptions
		for _, opt := range opts {
			opt(&o)
		}
		in := o.stdin
		if in == nil {
			in = os.Stdin
		}
		return NewReader(in, append([]Option{WithName(StdinName)}, opts...)...)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory, not a trace file", path)
	}
	r, err := NewReader(f, append([]Option{WithName(path)}, opts...)...)
	if err != nil {
		f.Close()
		return nil, err
	}
	if zc := r.closer; zc != nil { // the decoder's own resources
		r.closer = closerFunc(func() error { zc.Close(); return f.Close() })
	} else {
		r.closer = f
	}
	return r, nil
}

// NewReader reads a trace from r, detecting its form from its first bytes.
func NewReader(r io.Reader, opts ...Option) (*Reader, error) {
	o := readerOptions{validate: true}
	for _, opt := range opts {
		opt(&o)
	}
	if o.syms == nil {
		o.syms = NewSymbols()
	}
	br := bufio.NewReaderSize(r, 64<<10)
	prefix, err := br.Peek(sniffLen)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, withFile(o.name, fatal(err))
	}
	format, err := DetectFormat(prefix)
	if err != nil {
		return nil, withFile(o.name, &LineError{Msg: err.Error(), Fatal: true})
	}
	rd := &Reader{name: o.name, format: format, syms: o.syms, progress: o.progress, progressLeft: progressEvery}
	switch format {
	case JSONL:
		if bytes.HasPrefix(prefix, utf8BOM) {
			br.Discard(len(utf8BOM))
		}
		rd.dec, rd.header, err = newJSONLDecoder(br, o.syms)
	case JSONLZstd:
		var zr *zstd.Decoder
		zr, err = newZstdReader(br)
		if err == nil {
			rd.closer = closerFunc(func() error { zr.Close(); return nil })
			rd.dec, rd.header, err = newJSONLDecoder(zstdErrReader{zr}, o.syms)
		}
	case LCT:
		var ld *lctDecoder
		ld, rd.header, err = newLCTDecoder(br, o.syms)
		if err == nil {
			rd.dec, rd.lct, rd.closer = ld, ld, closerFunc(ld.close)
		}
	}
	if err != nil {
		if rd.closer != nil {
			rd.closer.Close()
		}
		return nil, withFile(o.name, fatal(err))
	}
	if o.validate {
		rd.val = NewValidator(o.syms)
	}
	if rd.val == nil && rd.progress == nil {
		rd.plain = rd.lct
	}
	return rd, nil
}

// zstdMaxWindow bounds the memory a hostile zstd stream can make the
// decoder allocate.
const zstdMaxWindow = 64 << 20

func newZstdReader(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow),
		zstd.WithDecoderMaxMemory(zstdMaxWindow))
}

// zstdErrReader marks decompression failures as corruption or truncation.
type zstdErrReader struct{ r io.Reader }

func (z zstdErrReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: zstd stream ends early", ErrTruncated)
		} else {
			err = fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
		}
	}
	return n, err
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func withFile(name string, err error) error {
	var le *LineError
	if errors.As(err, &le) && le.File == "" {
		le.File = name
	}
	return err
}

// Header returns the trace's header.
func (r *Reader) Header() *Header { return &r.header }

// Symbols returns the table the reader interns into.
func (r *Reader) Symbols() *Symbols { return r.syms }

// Format returns the form the trace is stored in.
func (r *Reader) Format() Format { return r.format }

// Name returns the file name errors carry.
func (r *Reader) Name() string { return r.name }

// Line returns the line of the op last returned (for binary forms, its line
// in the canonical text form); during and after [EachAhead], of the op
// last visited.
func (r *Reader) Line() int {
	if r.visited {
		return r.visitedLine
	}
	return r.dec.lineNumber()
}

// Count returns how many ops Next has returned without error; during and
// after [EachAhead], how many it visited.
func (r *Reader) Count() int {
	if r.visited {
		return r.visitedCount
	}
	return r.n
}

// Next reads the next operation into op. At the end of the trace it returns
// io.EOF. A *LineError that is not Fatal is about one op only: the caller
// may report it and call Next again. After a fatal error, Next keeps
// returning it.
func (r *Reader) Next(op *Op) error {
	if r.plain != nil && r.plain.fastOp(op) {
		r.n++
		return nil
	}
	return r.next(op)
}

// next is Next for the ops the plain path does not decode.
func (r *Reader) next(op *Op) error {
	if r.err != nil {
		return r.err
	}
	var err error
	if r.lct == nil || !r.lct.fastOp(op) {
		err = r.dec.next(op)
	}
	if err == nil && r.val != nil {
		err = r.val.Check(op, r.dec.lineNumber())
	}
	if err != nil {
		return r.failed(err)
	}
	r.count()
	return nil
}

// failed returns err, the error of the op being read (io.EOF at the end),
// as Next returns it, and keeps it if it is fatal.
func (r *Reader) failed(err error) error {
	if err == io.EOF {
		r.reportRest()
		return io.EOF
	}
	err = withFile(r.name, err)
	if IsFatal(err) {
		r.err, r.plain = err, nil
	}
	return err
}

// reportRest reports the ops read since the last progress report.
func (r *Reader) reportRest() {
	if r.progress != nil && r.progressLeft < progressEvery {
		r.progress(progressEvery - r.progressLeft)
		r.progressLeft = progressEvery
	}
}

// count counts an op read, and reports progress every progressEvery ops.
func (r *Reader) count() {
	r.n++
	if r.progress != nil {
		r.tick()
	}
}

// tick counts down to the next progress report, and makes it. It is kept
// out of line so that count, on every op, is inlined.
//
//go:noinline
func (r *Reader) tick() {
	if r.progressLeft--; r.progressLeft == 0 {
		r.progress(progressEvery)
		r.progressLeft = progressEvery
	}
}

// fill reads up to len(ops) ops into ops, and their lines into lines (as
// long as ops), as that many calls of Next, each followed by one of the
// decoder's lineNumber, would. It returns how many it read and the error
// that stopped it (io.EOF at the end); lines[n] is then the line of the
// op that failed. The ops of a .lct trace that its fast path decodes go
// round a loop of their own, without Next's calls and checks per op.
func (r *Reader) fill(ops []Op, lines []int) (int, error) {
	d, v := r.lct, r.val
	lines = lines[:len(ops)]
	for k := range ops {
		op := &ops[k]
		if d != nil && r.err == nil && d.fastOp(op) {
			line := d.lineNumber()
			lines[k] = line
			if v != nil && !v.shortcut(op) {
				if err := v.Check(op, line); err != nil {
					return k, r.failed(err)
				}
			}
			r.count()
			continue
		}
		err := r.Next(op)
		lines[k] = r.dec.lineNumber()
		if err != nil {
			return k, err
		}
	}
	return len(ops), nil
}

// Close releases the reader's resources and closes the file Open opened.
func (r *Reader) Close() error {
	r.reportRest()
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	r.closer = nil
	return err
}
