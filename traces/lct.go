package traces

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// The binary form, .lct (docs/trace-format.md gives it byte by byte):
//
//	file    = magic version header block* end
//	magic   = "\x89LCT\r\n\x1a\n"
//	version = uvarint                      (lctVersion)
//	header  = uvarint(n) n bytes           (the canonical header line, no "\n")
//	block   = 0x01 uvarint(ops) uvarint(rawLen) uvarint(zLen) zLen bytes
//	end     = 0x00 uvarint(total ops)
//
// A block's zLen bytes are one zstd frame, with its checksum, holding
// rawLen bytes of payload: a block-local string table, then the block's ops,
// which refer to strings by their index in the table (0 is NoSym).
//
//	payload = uvarint(nstr) (uvarint(len) len bytes){nstr} op{ops}
//	op      = head [task] [aux] fields [value] [ts] [src]
//
// head is the kind (bits 0-4), "has ts" (bit 5), "has src" (bit 6) and
// "same task as the previous op of the block" (bit 7: no task follows).
// Blocks are self-contained: damage stays in its block, and a reader maps
// each string of a block to its Symbols once, not once per op.

const (
	lctVersion  = 1
	lctTagEnd   = 0x00
	lctTagBlock = 0x01

	// lctBlockOps is the most ops a block holds.
	lctBlockOps = 1 << 16
	// lctBlockTarget is the payload size at which a writer starts a new block.
	lctBlockTarget = 4 << 20
	// lctMaxBlockRaw bounds a block's payload: the target, plus the strings
	// of one op (at most maxLineBytes), plus room for its other fields.
	lctMaxBlockRaw = lctBlockTarget + maxLineBytes + 1<<20
	// lctMaxHeader bounds the header, as the text form bounds a line.
	lctMaxHeader = maxLineBytes

	headKind     = 0x1f
	headTS       = 1 << 5
	headSrc      = 1 << 6
	headSameTask = 1 << 7

	// ts encodings (the low two bits of the ts tag).
	tsDelta = 0 // same scale as the previous ts: the tag's other bits are the zigzag delta of the mantissa
	tsScale = 1 // the tag's other bits are a new scale, followed by the zigzag mantissa
	tsRaw   = 2 // 8 bytes of float64 bits follow, little-endian

	// float value encoding: a tag uvarint; floatRaw, or scale<<1.
	floatRaw = 1

	// maxScale is the largest power of ten a decimal float may be scaled by
	// on disk (10^22 is the largest exact float64 power of ten); the writer
	// tries up to maxWriteScale.
	maxScale      = 22
	maxWriteScale = 9
)

// lctMaxZ bounds the compressed size of a payload of n bytes: zstd never
// expands data by more than a few bytes per 128 KiB block.
func lctMaxZ(n uint64) uint64 { return n + n/128 + 1024 }

var pow10 = [maxScale + 1]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalOf finds n and the smallest scale k (at most maxWriteScale) with
// n / 10^k == v exactly, so that v is stored as a small integer.
func decimalOf(v float64) (n int64, k int, ok bool) {
	if v == 0 {
		return 0, 0, !math.Signbit(v)
	}
	for k := 0; k <= maxWriteScale; k++ {
		m := v * pow10[k]
		if !(math.Abs(m) < 1<<53) {
			return 0, 0, false
		}
		n := int64(math.Round(m))
		if float64(n)/pow10[k] == v {
			return n, k, true
		}
	}
	return 0, 0, false
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// lctEncoder writes the binary form.
type lctEncoder struct {
	w    io.Writer
	syms *Symbols
	zw   *zstd.Encoder
	gen  uint64 // syms.Generation() the local indexes belong to

	// local[y] is the block-local index of Sym y, valid if stamp[y] == epoch.
	local, stamp []uint32
	epoch        uint32

	nstr     int
	table    []byte // the block's string table, without its count
	ops      []byte // the block's ops
	nops     int
	total    uint64
	prevTask Sym
	prevOK   bool // prevTask names the previous op's task of this block
	tsK      int  // the scale of the previous decimal ts, -1 if none
	tsN      int64
	opNew    int // bytes of strings the current op added to the table

	payload, zbuf []byte
	err           error // sticky
}

func newLCTEncoder(w io.Writer, h *Header, syms *Symbols) (*lctEncoder, error) {
	// The fastest level: its blocks are 24% larger than the default's on
	// the benchmark trace (8.75 bytes/op instead of 7.08, still under a
	// tenth of the JSONL) and take a seventh of the instructions to
	// decompress, which was a quarter of the reader's time.
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(true),
		zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		return nil, err
	}
	e := &lctEncoder{w: w, syms: syms, zw: zw, gen: syms.Generation(), epoch: 1}
	e.startBlock()
	hl := appendHeader(nil, h)
	hl = hl[:len(hl)-1] // without "\n"
	b := append([]byte(nil), lctMagic...)
	b = binary.AppendUvarint(b, lctVersion)
	b = binary.AppendUvarint(b, uint64(len(hl)))
	b = append(b, hl...)
	if _, err := w.Write(b); err != nil {
		zw.Close()
		return nil, err
	}
	return e, nil
}

func (e *lctEncoder) startBlock() {
	e.epoch++
	e.nstr, e.nops = 0, 0
	e.table, e.ops = e.table[:0], e.ops[:0]
	e.prevTask, e.prevOK, e.tsK, e.tsN = NoSym, true, -1, 0
}

// sym appends the block-local index of y, adding its string to the table
// if the block has not used it yet.
func (e *lctEncoder) sym(y Sym) {
	if y == NoSym {
		e.ops = append(e.ops, 0)
		return
	}
	if int(y) >= len(e.stamp) {
		n := max(e.syms.Len(), int(y)+1)
		e.stamp = append(e.stamp, make([]uint32, n-len(e.stamp))...)
		e.local = append(e.local, make([]uint32, n-len(e.local))...)
	}
	if e.stamp[y] != e.epoch {
		s := validUTF8(e.syms.String(y))
		e.nstr++
		e.stamp[y], e.local[y] = e.epoch, uint32(e.nstr)
		e.table = binary.AppendUvarint(e.table, uint64(len(s)))
		e.table = append(e.table, s...)
		e.opNew += len(s)
	}
	e.ops = binary.AppendUvarint(e.ops, uint64(e.local[y]))
}

func (e *lctEncoder) varint(v int64)   { e.ops = binary.AppendUvarint(e.ops, zigzag(v)) }
func (e *lctEncoder) uvarint(v uint64) { e.ops = binary.AppendUvarint(e.ops, v) }

func (e *lctEncoder) float(v float64) {
	if n, k, ok := decimalOf(v); ok {
		e.uvarint(uint64(k) << 1)
		e.varint(n)
		return
	}
	e.uvarint(floatRaw)
	e.ops = binary.LittleEndian.AppendUint64(e.ops, math.Float64bits(v))
}

func (e *lctEncoder) ts(v float64) {
	// Keep the previous scale if v has one there: 12 after 10.25 is 1200
	// hundredths, a small delta, rather than a change of scale.
	if k := e.tsK; k >= 0 {
		if m := v * pow10[k]; math.Abs(m) < 1<<53 {
			if n := int64(math.Round(m)); float64(n)/pow10[k] == v && !(n == 0 && math.Signbit(v)) {
				e.uvarint(zigzag(n-e.tsN)<<2 | tsDelta)
				e.tsN = n
				return
			}
		}
	}
	n, k, ok := decimalOf(v)
	switch {
	case !ok:
		e.uvarint(tsRaw)
		e.ops = binary.LittleEndian.AppendUint64(e.ops, math.Float64bits(v))
		return
	case k == e.tsK:
		e.uvarint(zigzag(n-e.tsN)<<2 | tsDelta)
	default:
		e.uvarint(uint64(k)<<2 | tsScale)
		e.varint(n)
		e.tsK = k
	}
	e.tsN = n
}

func boolBit(b bool, bit byte) byte {
	if b {
		return bit
	}
	return 0
}

func (e *lctEncoder) write(op *Op) error {
	if e.err != nil {
		return e.err
	}
	if e.nops >= lctBlockOps || len(e.table)+len(e.ops) >= lctBlockTarget {
		if err := e.flush(); err != nil {
			return err
		}
	}
	if g := e.syms.Generation(); g != e.gen {
		// The table was reset: Syms now name other strings. Forget the
		// block's mapping; strings already in its table stay valid.
		e.gen = g
		e.epoch++
		e.prevOK = false
	}
	e.opNew = 0
	head := byte(op.Kind) | boolBit(op.HasTS, headTS) | boolBit(op.Src != NoSym, headSrc)
	if e.prevOK && op.Task == e.prevTask {
		head |= headSameTask
		e.ops = append(e.ops, head)
	} else {
		e.ops = append(e.ops, head)
		e.sym(op.Task)
		e.prevTask, e.prevOK = op.Task, true
	}
	switch op.Kind {
	case ThreadBegin:
		e.ops = append(e.ops, byte(op.ThreadKind))
		e.sym(op.Name)
	case Fork, Join, Begin:
		e.sym(op.Thread)
	case Attach:
		e.sym(op.Queue)
	case Send:
		e.ops = append(e.ops, byte(op.SendKind)|boolBit(op.Async, 4)|boolBit(op.External, 8))
		e.sym(op.Queue)
		e.sym(op.Event)
		if op.SendKind != AtFront {
			e.uvarint(uint64(op.Time))
		}
	case Remove:
		e.sym(op.Event)
	case Signal, Wait, Lock, Unlock, Call, Ret, Error:
		e.sym(op.Name)
	case Alloc:
		e.sym(op.Loc.Obj)
		e.sym(op.Site)
		e.sym(op.Type)
	case Read, Write:
		v := op.Val
		e.ops = append(e.ops, byte(v.Kind())|boolBit(v.Bool(), 8)|boolBit(op.Loc.Static, 16)|
			boolBit(op.Deref && op.Kind == Read, 32)|boolBit(op.Init && op.Kind == Write, 32)|
			boolBit(op.Update && op.Kind == Write, 64))
		e.sym(op.Loc.Obj)
		e.sym(op.Loc.Field)
		switch v.Kind() {
		case RefValue, StringValue:
			e.sym(v.Sym())
		case IntValue:
			e.varint(v.Int())
		case FloatValue:
			e.float(v.Float())
		}
	case Relate:
		e.ops = append(e.ops, boolBit(op.Loc.Static, 1)|boolBit(op.Loc2.Static, 2)|byte(op.Via)<<2)
		e.sym(op.Loc.Obj)
		e.sym(op.Loc.Field)
		e.sym(op.Loc2.Obj)
		e.sym(op.Loc2.Field)
	case Branch:
		e.ops = append(e.ops, boolBit(op.Loc.Static, 1)|branchCondBits(op.Cond)|boolBit(op.Taken, 8))
		e.sym(op.Loc.Obj)
		e.sym(op.Loc.Field)
		e.varint(op.PC)
		e.varint(op.Target)
	}
	if op.HasTS {
		e.ts(op.TS)
	}
	if op.Src != NoSym {
		e.sym(op.Src)
	}
	if e.opNew > maxLineBytes {
		// The block would be larger than a reader accepts. The op is half
		// written, so the trace cannot be completed.
		e.err = fmt.Errorf("op %q: its strings take %d bytes, more than the %d MiB an op may have", op.Kind, e.opNew, maxLineBytes>>20)
		return e.err
	}
	e.nops++
	e.total++
	return nil
}

// flush writes the current block, if it has ops.
func (e *lctEncoder) flush() error {
	if e.nops == 0 {
		return nil
	}
	e.payload = binary.AppendUvarint(e.payload[:0], uint64(e.nstr))
	e.payload = append(e.payload, e.table...)
	e.payload = append(e.payload, e.ops...)
	e.zbuf = e.zw.EncodeAll(e.payload, e.zbuf[:0])
	var hdr [1 + 3*binary.MaxVarintLen64]byte
	b := append(hdr[:0], lctTagBlock)
	b = binary.AppendUvarint(b, uint64(e.nops))
	b = binary.AppendUvarint(b, uint64(len(e.payload)))
	b = binary.AppendUvarint(b, uint64(len(e.zbuf)))
	if _, err := e.w.Write(b); err != nil {
		e.err = err
		return err
	}
	if _, err := e.w.Write(e.zbuf); err != nil {
		e.err = err
		return err
	}
	e.startBlock()
	return nil
}

func (e *lctEncoder) close() error {
	defer e.zw.Close()
	if err := e.flush(); err != nil {
		return err
	}
	if e.err != nil {
		return e.err
	}
	b := binary.AppendUvarint([]byte{lctTagEnd}, e.total)
	_, err := e.w.Write(b)
	return err
}

// lctDecoder reads the binary form.
type lctDecoder struct {
	br   *bufio.Reader
	syms *Symbols
	zd   *zstd.Decoder
	gen  uint64 // syms.Generation() symMap belongs to

	comp, raw []byte    // the current block, compressed and not
	pos       int       // in raw
	left      int       // ops of the block not yet decoded
	strs      []strSpan // the block's strings by local index; strs[0] is empty
	symMap    []Sym     // local index -> Sym (after a Symbols reset: NoSym until first used)
	prevTask  uint64    // block-local index of the previous op's task
	tsK       int       // the scale of the block's last decimal ts, -1 if none
	tsDiv     float64   // 10^tsK, 0 if none: what fastOp divides a mantissa by
	tsN       int64     // its mantissa
	tsF       float64   // its value

	n      int // ops decoded
	blocks int
	done   bool   // the end marker was read
	bad    string // what is wrong with the op being decoded

	// fastEnd is where fastOp stops: it decodes the ops that start
	// before it, which have room for the longest op it reads. It is 0
	// when symMap does not hold the Sym of every string of the block.
	fastEnd int
	careful bool // never use fastOp (tests compare the two paths)
}

func newLCTDecoder(br *bufio.Reader, syms *Symbols) (*lctDecoder, Header, error) {
	d := &lctDecoder{br: br, syms: syms}
	if _, err := io.ReadFull(br, make([]byte, len(lctMagic))); err != nil {
		return nil, Header{}, d.readErr(err, "the file ends in its magic number")
	}
	v, err := d.headerUvarint("version")
	if err != nil {
		return nil, Header{}, err
	}
	if v != lctVersion {
		return nil, Header{}, &LineError{Msg: fmt.Sprintf("unsupported .lct version %d (this licorice reads version %d)", v, lctVersion), Fatal: true}
	}
	n, err := d.headerUvarint("header length")
	if err != nil {
		return nil, Header{}, err
	}
	if n > lctMaxHeader {
		return nil, Header{}, d.corrupt("header length %d is more than the %d MiB allowed", n, lctMaxHeader>>20)
	}
	line, err := readN(br, int(n), nil)
	if err != nil {
		return nil, Header{}, d.readErr(err, "the file ends in the header")
	}
	h, err := parseHeader(line)
	if err != nil {
		return nil, Header{}, d.corrupt("header: %v", err)
	}
	d.zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(lctMaxBlockRaw), zstd.WithDecoderMaxWindow(lctMaxBlockRaw),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, Header{}, fatal(err)
	}
	return d, h, nil
}

func (d *lctDecoder) close() error {
	d.zd.Close()
	return nil
}

// readN reads n bytes into buf[:0], growing it only as the data arrives,
// so that a length read from a damaged file costs no more memory than the
// file holds.
func readN(r io.Reader, n int, buf []byte) ([]byte, error) {
	if n <= cap(buf) { // the usual case: a block no larger than the last big one
		buf = buf[:n]
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	buf = buf[:0]
	for len(buf) < n {
		chunk := min(n-len(buf), max(len(buf), 64<<10))
		buf = append(buf, make([]byte, chunk)...)
		if _, err := io.ReadFull(r, buf[len(buf)-chunk:]); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func (d *lctDecoder) lineNumber() int { return d.n + 1 }

// errorAt makes a fatal error about the op after the last one decoded, or
// about the header (no line) if no block was read yet.
func (d *lctDecoder) errorAt(cause error, format string, args ...any) *LineError {
	le := &LineError{Line: d.n + 2, Msg: fmt.Sprintf("%v .lct file: ", cause) + fmt.Sprintf(format, args...), Fatal: true, Err: cause}
	if d.n == 0 && d.blocks == 0 {
		le.Line = 0
	}
	return le
}

func (d *lctDecoder) corrupt(format string, args ...any) *LineError {
	return d.errorAt(ErrCorrupt, format, args...)
}

func (d *lctDecoder) truncated(format string, args ...any) *LineError {
	return d.errorAt(ErrTruncated, format, args...)
}

// readErr explains an error reading the input: an early end is
// truncation, anything else is passed on.
func (d *lctDecoder) readErr(err error, format string, args ...any) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return d.truncated(format, args...)
	}
	return fatal(err)
}

func (d *lctDecoder) headerUvarint(what string) (uint64, error) {
	v, err := binary.ReadUvarint(d.br)
	switch {
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return 0, d.truncated("the file ends in the %s", what)
	case err != nil:
		return 0, d.corrupt("bad %s: %v", what, err)
	}
	return v, nil
}

func (d *lctDecoder) next(op *Op) error {
	if d.left == 0 {
		if d.done {
			return io.EOF
		}
		if err := d.readBlock(); err != nil {
			return err
		}
	}
	if d.syms.Generation() != d.gen {
		d.internBlock()
	}
	if !d.fastOp(op) {
		if err := d.decodeOp(op); err != nil {
			return err
		}
		d.n++
		d.left--
	}
	if d.left == 0 && d.pos != len(d.raw) {
		return d.corrupt("block %d has %d bytes after its last op", d.blocks, len(d.raw)-d.pos)
	}
	return nil
}

// readBlock reads the next block, or the end marker (io.EOF).
func (d *lctDecoder) readBlock() error {
	d.fastEnd = 0 // until the new block's strings are interned
	tag, err := d.br.ReadByte()
	if err == io.EOF {
		return d.truncated("the file ends after %d ops without its end marker", d.n)
	}
	if err != nil {
		return fatal(err)
	}
	switch tag {
	case lctTagEnd:
		total, err := d.headerUvarint("end marker")
		if err != nil {
			return err
		}
		if total != uint64(d.n) {
			return d.corrupt("the end marker counts %d ops, the file holds %d", total, d.n)
		}
		if _, err := d.br.ReadByte(); err != io.EOF {
			if err != nil {
				return fatal(err)
			}
			return d.corrupt("data after the end marker")
		}
		d.done = true
		return io.EOF
	case lctTagBlock:
	default:
		return d.corrupt("unknown block tag 0x%02x after %d ops", tag, d.n)
	}
	d.blocks++
	nops, err := d.headerUvarint("block header")
	if err != nil {
		return err
	}
	rawLen, err := d.headerUvarint("block header")
	if err != nil {
		return err
	}
	zLen, err := d.headerUvarint("block header")
	if err != nil {
		return err
	}
	switch {
	case nops == 0 || nops > lctBlockOps:
		return d.corrupt("block %d claims %d ops (1 to %d allowed)", d.blocks, nops, lctBlockOps)
	case rawLen > lctMaxBlockRaw:
		return d.corrupt("block %d claims %d bytes (at most %d allowed)", d.blocks, rawLen, lctMaxBlockRaw)
	case rawLen < nops:
		return d.corrupt("block %d claims %d ops in %d bytes", d.blocks, nops, rawLen)
	case zLen > lctMaxZ(rawLen):
		return d.corrupt("block %d claims %d compressed bytes for %d bytes", d.blocks, zLen, rawLen)
	}
	d.comp, err = readN(d.br, int(zLen), d.comp)
	if err != nil {
		return d.readErr(err, "the file ends in block %d", d.blocks)
	}
	if cap(d.raw) < int(rawLen) {
		// With room for blocks a little larger: a trace's blocks differ
		// in size by a few percent, and each new buffer is fresh memory
		// to fault in and clear.
		d.raw = make([]byte, 0, min(rawLen+rawLen/4, lctMaxBlockRaw))
	}
	d.raw, err = d.zd.DecodeAll(d.comp, d.raw[:0])
	if err != nil {
		return d.corrupt("block %d: zstd: %v", d.blocks, err)
	}
	if len(d.raw) != int(rawLen) {
		return d.corrupt("block %d holds %d bytes, its header says %d", d.blocks, len(d.raw), rawLen)
	}
	d.pos, d.left = 0, int(nops)
	d.prevTask, d.tsK, d.tsN, d.tsDiv = 0, -1, 0, 0
	return d.readTable()
}

// strSpan is where a string of the block's table is in its payload.
type strSpan struct{ start, end uint32 }

// readTable reads the block's string table and interns its strings.
func (d *lctDecoder) readTable() error {
	nstr := d.uvarint()
	if d.bad != "" || nstr > uint64(len(d.raw)-d.pos) {
		return d.corrupt("block %d: bad string table size", d.blocks)
	}
	d.strs = append(d.strs[:0], strSpan{}) // local index 0 is NoSym
	start := d.pos
	var lenErr error
	for range nstr {
		n := d.uvarint()
		if d.bad != "" || n == 0 || n > uint64(len(d.raw)-d.pos) {
			lenErr = d.corrupt("block %d: bad string length in string %d", d.blocks, len(d.strs))
			break
		}
		d.strs = append(d.strs, strSpan{uint32(d.pos), uint32(d.pos) + uint32(n)})
		d.pos += int(n)
	}
	// The strings are valid UTF-8 if the whole table is ASCII, as it
	// usually is; otherwise the first string that is not is the error
	// (it comes before a bad length, if there is one).
	if !isASCII(d.raw[start:d.pos]) {
		for i, sp := range d.strs[1:] {
			if !utf8.Valid(d.raw[sp.start:sp.end]) {
				return d.corrupt("block %d: string %d is not valid UTF-8", d.blocks, i+1)
			}
		}
	}
	if lenErr != nil {
		return lenErr
	}
	d.internAll()
	return nil
}

// isASCII reports whether every byte of b is below 0x80.
func isASCII(b []byte) bool {
	var or uint64
	for len(b) >= 8 {
		or |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

// internAll interns the block's strings in one loop, in the order of the
// table, which is the order in which its ops first use them (so Syms are
// issued in the order in which interning at first use would issue them),
// and lets the fast path, which finds every Sym in symMap, decode the
// block. A block costs one lookup per distinct string.
func (d *lctDecoder) internAll() {
	d.gen = d.syms.Generation()
	d.symMap = d.syms.internSpans(d.raw, d.strs[1:], append(d.symMap[:0], NoSym))
	if !d.careful {
		d.fastEnd = len(d.raw) - lctFastWindow
	}
}

// internBlock forgets the Syms of the block's strings when the table was
// reset in the middle of the block; each is then interned into the current
// table when an op first uses it (symMap[i] == NoSym means "not yet": only
// index 0 is the empty string), and the rest of the block is decoded the
// careful way.
func (d *lctDecoder) internBlock() {
	d.gen = d.syms.Generation()
	d.symMap = append(d.symMap[:0], make([]Sym, len(d.strs))...)
	d.fastEnd = 0
}

// symAt returns the Sym of block-local string i. Its common case (a string
// the block has used before) is inlined.
func (d *lctDecoder) symAt(i uint64) Sym {
	if i < uint64(len(d.symMap)) && d.symMap[i] != NoSym {
		return d.symMap[i]
	}
	return d.symFirst(i)
}

// symFirst is symAt for index 0, an index out of range, or a string not
// interned yet.
func (d *lctDecoder) symFirst(i uint64) Sym {
	switch {
	case i == 0:
		return NoSym
	case i >= uint64(len(d.symMap)):
		d.fail("string index out of range")
		return NoSym
	}
	sp := d.strs[i]
	y := d.syms.InternBytes(d.raw[sp.start:sp.end])
	d.symMap[i] = y
	return y
}

func (d *lctDecoder) uvarint() uint64 {
	if p := d.pos; p < len(d.raw) {
		if c := d.raw[p]; c < 0x80 {
			d.pos = p + 1
			return uint64(c)
		}
	}
	return d.uvarintSlow()
}

func (d *lctDecoder) uvarintSlow() uint64 {
	if p := d.pos; p+1 < len(d.raw) && d.raw[p+1] < 0x80 { // two bytes
		d.pos += 2
		return uint64(d.raw[p]&0x7f) | uint64(d.raw[p+1])<<7
	}
	v, n := binary.Uvarint(d.raw[d.pos:])
	if n <= 0 {
		if n == 0 {
			d.fail("op cut short")
		} else {
			d.fail("bad varint")
		}
		return 0
	}
	d.pos += n
	return v
}

func (d *lctDecoder) fail(msg string) {
	if d.bad == "" {
		d.bad = msg
	}
	d.pos = len(d.raw)
}

// sym reads a local index and returns its Sym.
func (d *lctDecoder) sym() Sym { return d.symAt(d.uvarint()) }

// id reads a Sym that must not be NoSym.
func (d *lctDecoder) id() Sym {
	y := d.sym()
	if y == NoSym {
		d.fail("empty id")
	}
	return y
}

func (d *lctDecoder) raw64() float64 {
	if len(d.raw)-d.pos < 8 {
		d.fail("op cut short")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.raw[d.pos:]))
	d.pos += 8
	return v
}

func (d *lctDecoder) float() float64 {
	tag := d.uvarint()
	if tag == floatRaw {
		return d.raw64()
	}
	if tag&1 != 0 || tag>>1 > maxScale {
		d.fail("bad float encoding")
		return 0
	}
	return float64(unzigzag(d.uvarint())) / pow10[tag>>1]
}

func (d *lctDecoder) ts() float64 {
	var tag uint64
	if p := d.pos; p+1 < len(d.raw) && d.raw[p+1] < 0x80 && d.raw[p] >= 0x80 {
		tag, d.pos = uint64(d.raw[p]&0x7f)|uint64(d.raw[p+1])<<7, p+2 // the usual delta
	} else {
		tag = d.uvarint()
	}
	switch tag & 3 {
	case tsDelta:
		if d.tsK < 0 {
			d.fail("ts delta without a previous ts")
			return 0
		}
		if tag == tsDelta { // the same time as the op before
			return d.tsF
		}
		d.tsN += unzigzag(tag >> 2)
	case tsScale:
		if tag>>2 > maxScale {
			d.fail("bad ts scale")
			return 0
		}
		d.tsK, d.tsN = int(tag>>2), unzigzag(d.uvarint())
		d.tsDiv = pow10[d.tsK]
	case tsRaw:
		if tag != tsRaw {
			d.fail("bad ts encoding")
		}
		return d.raw64()
	default:
		d.fail("bad ts encoding")
		return 0
	}
	if d.tsK == 0 {
		d.tsF = float64(d.tsN)
	} else {
		d.tsF = float64(d.tsN) / pow10[d.tsK]
	}
	return d.tsF
}

// kindAux marks the kinds whose ops have an aux byte; kindFields is how
// many uvarints follow it at least (the value, ts and src not counted).
var (
	kindAux = [numKinds]bool{ThreadBegin: true, Send: true, Read: true, Write: true, Relate: true, Branch: true}

	kindFields = [numKinds]uint8{
		ThreadBegin: 1, Fork: 1, Join: 1, Attach: 1, Send: 2, Remove: 1, Begin: 1,
		Signal: 1, Wait: 1, Lock: 1, Unlock: 1, Call: 1, Ret: 1, Alloc: 3,
		Read: 2, Write: 2, Relate: 4, Branch: 4, Error: 1,
	}
)

// Positions past the end of a block that uvarintAt returns for errors.
const (
	posCutShort  = 1 // the payload ends inside the uvarint
	posBadVarint = 2 // the uvarint overflows 64 bits
)

// uvarintAt decodes the uvarint at b[p:] and returns it with the position
// after it, or a position past len(b) (len(b)+posCutShort or
// len(b)+posBadVarint) on error; given such a position it returns it.
func uvarintAt(b []byte, p int) (uint64, int) {
	if p > len(b) {
		return 0, p
	}
	if p+1 < len(b) && b[p+1] < 0x80 { // two bytes, the usual slow case
		return uint64(b[p]&0x7f) | uint64(b[p+1])<<7, p + 2
	}
	v, n := binary.Uvarint(b[p:])
	switch {
	case n == 0:
		return 0, len(b) + posCutShort
	case n < 0:
		return 0, len(b) + posBadVarint
	}
	return v, p + n
}

// decodeOp decodes the next op of the block into op. Its fixed fields are
// uvarints, decoded in one tight loop; the value, ts and src follow.
func (d *lctDecoder) decodeOp(op *Op) error {
	*op = Op{}
	d.bad = ""
	b, p := d.raw, d.pos
	if p >= len(b) {
		return d.corrupt("block %d ends before its last op", d.blocks)
	}
	head := b[p]
	p++
	kind := Kind(head & headKind)
	if !kind.Valid() {
		d.pos = p
		return d.corrupt("unknown op kind %d", kind)
	}
	op.Kind = kind
	if head&headSameTask == 0 {
		if p < len(b) && b[p] < 0x80 {
			d.prevTask = uint64(b[p])
			p++
		} else {
			d.prevTask, p = uvarintAt(b, p)
		}
	}
	var aux byte
	n := int(kindFields[kind])
	if kindAux[kind] {
		if p < len(b) {
			aux = b[p]
			p++
		} else if p == len(b) {
			p += posCutShort
		}
		switch kind {
		case Send:
			if SendKind(aux&3) != AtFront {
				n++ // the delay or at
			}
		case Read, Write:
			if vk := ValueKind(aux & 7); vk == RefValue || vk == IntValue || vk == StringValue {
				n++ // the value
			}
		}
	}
	var f [5]uint64
	for i := range n {
		if p < len(b) && b[p] < 0x80 {
			f[i] = uint64(b[p])
			p++
		} else {
			f[i], p = uvarintAt(b, p)
		}
	}
	switch {
	case p == len(b)+posBadVarint:
		d.fail("bad varint")
	case p > len(b):
		d.fail("op cut short")
	default:
		d.pos = p
	}
	op.Task = d.symAt(d.prevTask)
	if op.Task == NoSym && !(kind == Send && aux&8 != 0) {
		d.fail(`missing field "t"`)
	}
	// f[i] == 0 is the empty string, which ids may not be.
	need := func(k int) {
		if f[k] == 0 {
			d.fail("empty id")
		}
	}
	switch kind {
	case ThreadBegin:
		if aux > byte(Binder) {
			d.fail("bad thread kind")
		}
		op.ThreadKind = ThreadKind(aux)
		op.Name = d.symAt(f[0])
	case Fork, Join, Begin:
		need(0)
		op.Thread = d.symAt(f[0])
	case Attach:
		need(0)
		op.Queue = d.symAt(f[0])
	case Send:
		if aux&^0xf != 0 || aux&3 > byte(AtFront) {
			d.fail("bad send flags")
		}
		op.SendKind, op.Async, op.External = SendKind(aux&3), aux&4 != 0, aux&8 != 0
		need(0)
		need(1)
		op.Queue, op.Event = d.symAt(f[0]), d.symAt(f[1])
		if f[2] > math.MaxInt64 {
			d.fail("send time out of range")
		}
		op.Time = int64(f[2])
	case Remove:
		need(0)
		op.Event = d.symAt(f[0])
	case Signal, Wait, Lock, Unlock, Call, Ret:
		need(0)
		op.Name = d.symAt(f[0])
	case Error:
		op.Name = d.symAt(f[0])
	case Alloc:
		need(0)
		op.Loc.Obj, op.Site, op.Type = d.symAt(f[0]), d.symAt(f[1]), d.symAt(f[2])
	case Read, Write:
		vk := ValueKind(aux & 7)
		if aux&^0x7f != 0 || vk > StringValue || (aux&8 != 0 && vk != BoolValue) || (aux&64 != 0 && kind != Write) {
			d.fail("bad access flags")
		}
		need(0)
		need(1)
		op.Loc = Location{Obj: d.symAt(f[0]), Field: d.symAt(f[1]), Static: aux&16 != 0}
		op.Deref = aux&32 != 0 && kind == Read
		op.Init = aux&32 != 0 && kind == Write
		op.Update = aux&64 != 0
		switch vk {
		case NullValue:
			op.Val = Null()
		case RefValue:
			need(2)
			op.Val = Ref(d.symAt(f[2]))
		case IntValue:
			op.Val = Int(unzigzag(f[2]))
		case FloatValue:
			v := d.float()
			if !finite(v) {
				d.fail(`field "val": not a finite number`)
			}
			op.Val = Float(v)
		case BoolValue:
			op.Val = Bool(aux&8 != 0)
		case StringValue:
			op.Val = String(d.symAt(f[2]))
		}
	case Relate:
		if aux&^0xf != 0 {
			d.fail("bad relate flags")
		}
		op.Via = RelateVia(aux >> 2)
		if op.Via != ViaCmp && op.Via != ViaArith {
			d.fail(fmt.Sprintf(`field "via": invalid relate mode %d`, op.Via))
		}
		for k := range 4 {
			need(k)
		}
		op.Loc = Location{Obj: d.symAt(f[0]), Field: d.symAt(f[1]), Static: aux&1 != 0}
		op.Loc2 = Location{Obj: d.symAt(f[2]), Field: d.symAt(f[3]), Static: aux&2 != 0}
	case Branch:
		if !branchAux(aux) {
			d.fail("bad branch flags")
		}
		op.Cond, op.Taken = branchCondOf(aux), aux&8 != 0
		if op.Cond == 0 {
			d.fail(`field "cond": invalid branch condition 0`)
		}
		need(0)
		need(1)
		op.Loc = Location{Obj: d.symAt(f[0]), Field: d.symAt(f[1]), Static: aux&1 != 0}
		op.PC, op.Target = unzigzag(f[2]), unzigzag(f[3])
	}
	if head&headTS != 0 {
		op.TS, op.HasTS = d.ts(), true
		if !finite(op.TS) {
			d.fail(`field "ts": not a finite number`)
		}
	}
	if head&headSrc != 0 {
		op.Src = d.id()
	}
	if d.bad != "" {
		le := d.corrupt("block %d: %s", d.blocks, d.bad)
		le.Op = kind
		if op.Task != NoSym {
			le.Task = d.syms.String(op.Task)
		}
		return le
	}
	return nil
}
