package traces

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// encoder is one format's encoding of operations.
type encoder interface {
	write(op *Op) error
	// close writes what is buffered and any end marker; it does not close
	// the underlying writer.
	close() error
}

var errWriterClosed = errors.New("trace writer is closed")

// Writer writes a trace in one of its forms. The ops' Syms must come from
// the table given to NewWriter.
type Writer struct {
	enc    encoder
	zw     *zstd.Encoder
	syms   *Symbols
	closed bool
}

// NewWriter starts a trace of format f on w with header h. Close must be
// called to complete it; Close does not close w.
//
// The header is written in its canonical form (Extra sorted, each value
// compacted); a header that could not be read back (an Extra key that is a
// known key or appears twice, an Extra value that is not JSON) is an error.
func NewWriter(w io.Writer, f Format, h *Header, syms *Symbols) (*Writer, error) {
	h, err := canonicalHeader(h)
	if err != nil {
		return nil, err
	}
	wr := &Writer{syms: syms}
	switch f {
	case JSONL:
		wr.enc, err = newJSONLEncoder(w, h, syms)
	case JSONLZstd:
		wr.zw, err = zstd.NewWriter(w, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true))
		if err == nil {
			wr.enc, err = newJSONLEncoder(wr.zw, h, syms)
		}
	case LCT:
		wr.enc, err = newLCTEncoder(w, h, syms)
	default:
		err = fmt.Errorf("cannot write trace format %v", f)
	}
	if err != nil {
		return nil, err
	}
	return wr, nil
}

// Write appends op to the trace. Fields that op's kind does not have are
// ignored. An op that could not be read back (a missing id, an unknown
// kind, a NaN) is an error, and nothing is written for it.
func (w *Writer) Write(op *Op) error {
	if w.closed {
		return errWriterClosed
	}
	if msg := checkFields(op); msg != "" {
		err := &LineError{Msg: "cannot write: " + msg}
		if op.Kind.Valid() {
			err.Op = op.Kind
			if op.Task != NoSym {
				err.Task = w.syms.String(op.Task)
			}
		}
		return err
	}
	return w.enc.write(op)
}

// Close completes the trace: flushes buffers and writes the end marker.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.enc.close()
	if w.zw != nil {
		if cerr := w.zw.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// jsonlEncoder writes the canonical text form.
type jsonlEncoder struct {
	bw   *bufio.Writer
	syms *Symbols
	buf  []byte
}

func newJSONLEncoder(w io.Writer, h *Header, syms *Symbols) (*jsonlEncoder, error) {
	e := &jsonlEncoder{bw: bufio.NewWriterSize(w, 64<<10), syms: syms}
	e.buf = appendHeader(e.buf[:0], h)
	_, err := e.bw.Write(e.buf)
	return e, err
}

func (e *jsonlEncoder) write(op *Op) error {
	e.buf = appendOp(e.buf[:0], op, e.syms)
	if len(e.buf) > maxLineBytes {
		return fmt.Errorf("op %q: its line would take %d bytes, more than the %d MiB a reader accepts", op.Kind, len(e.buf), maxLineBytes>>20)
	}
	_, err := e.bw.Write(e.buf)
	return err
}

func (e *jsonlEncoder) close() error { return e.bw.Flush() }

// AppendCanonical appends the canonical text line of op (with its newline).
func AppendCanonical(b []byte, op *Op, syms *Symbols) []byte { return appendOp(b, op, syms) }

// AppendCanonicalHeader appends the canonical text line of h, which
// writers write: of the newest version, Version.
func AppendCanonicalHeader(b []byte, h *Header) []byte {
	c := *h
	c.Version = Version
	return appendHeader(b, &c)
}
