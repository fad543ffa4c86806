package traces

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/klauspost/compress/zstd"
)

// Hand-made .lct files, to damage them in exactly one way each.

func uv(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// lctFile is a file with the given header line and body (blocks and end).
func lctFile(header string, body ...[]byte) []byte {
	return cat(lctMagic, uv(lctVersion), uv(uint64(len(header))), []byte(header), cat(body...))
}

const okHeader = `{"licorice_trace":1}`

// payload is a block payload: a string table and the ops' bytes.
func payload(strs []string, ops ...byte) []byte {
	b := uv(uint64(len(strs)))
	for _, s := range strs {
		b = append(b, uv(uint64(len(s)))...)
		b = append(b, s...)
	}
	return append(b, ops...)
}

var testZstd, _ = zstd.NewWriter(nil, zstd.WithEncoderCRC(true), zstd.WithEncoderConcurrency(1))

func compress(p []byte) []byte { return testZstd.EncodeAll(p, nil) }

// block frames a payload of nops ops.
func block(nops int, p []byte) []byte {
	z := compress(p)
	return cat([]byte{lctTagBlock}, uv(uint64(nops)), uv(uint64(len(p))), uv(uint64(len(z))), z)
}

func end(n uint64) []byte { return cat([]byte{lctTagEnd}, uv(n)) }

// Two valid ops: thread_begin of T, then a lock by the same task.
var (
	okStrs = []string{"T", "m"}
	okOps  = []byte{byte(ThreadBegin), 1, 0, 0, byte(Lock) | headSameTask, 2}
)

// decodeCases are damaged files, one per check of the decoder; the name
// says which error class (ErrTruncated, ErrCorrupt) each must give.
func decodeCases() map[string][]byte {
	good := lctFile(okHeader, block(2, payload(okStrs, okOps...)), end(2))
	endAt := len(good) - 2
	huge := uint64(1) << 60
	op := func(strs []string, ops ...byte) []byte {
		return lctFile(okHeader, block(1, payload(strs, ops...)), end(1))
	}
	flip := func(b []byte, i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x40
		return c
	}
	zst := func() []byte {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, JSONLZstd, &Header{}, NewSymbols())
		w.Close()
		return buf.Bytes()
	}()
	zstFrame := compress([]byte(okHeader + "\n" + `{"op":"thread_begin","t":"T"}` + "\n"))
	return map[string][]byte{
		"ok.lct": good,
		// Structure.
		"truncated-magic.lct":             lctMagic[:8], // the magic only
		"truncated-header.lct":            lctFile(okHeader)[:len(lctMagic)+4],
		"truncated-block.lct":             good[:endAt-5],
		"truncated-block-header.lct":      cat(lctFile(okHeader), []byte{lctTagBlock, 2}),
		"truncated-no-end-marker.lct":     good[:endAt],
		"truncated-end-marker.lct":        good[:endAt+1],
		"unsupported-version.lct":         cat(lctMagic, uv(2), uv(uint64(len(okHeader))), []byte(okHeader), end(0)),
		"corrupt-header-length-2e60.lct":  cat(lctMagic, uv(1), uv(huge)),
		"corrupt-header-not-json.lct":     lctFile(`{"licorice_trace":1`, end(0)),
		"corrupt-header-version.lct":      lctFile(`{"licorice_trace":3}`, end(0)),
		"corrupt-bad-varint.lct":          cat(lctMagic, bytes.Repeat([]byte{0xff}, 11)),
		"corrupt-block-tag.lct":           lctFile(okHeader, []byte{0x07}),
		"corrupt-block-no-ops.lct":        lctFile(okHeader, block(0, payload(nil)), end(0)),
		"corrupt-block-ops-2e60.lct":      lctFile(okHeader, []byte{lctTagBlock}, uv(huge), uv(10), uv(10)),
		"corrupt-block-size-2e60.lct":     lctFile(okHeader, []byte{lctTagBlock}, uv(1), uv(huge), uv(10)),
		"corrupt-block-ops-over-size.lct": lctFile(okHeader, []byte{lctTagBlock}, uv(100), uv(10), uv(10)),
		"corrupt-block-zsize-2e60.lct":    lctFile(okHeader, []byte{lctTagBlock}, uv(1), uv(10), uv(huge)),
		"truncated-block-zsize-20MiB.lct": lctFile(okHeader, []byte{lctTagBlock}, uv(1), uv(20<<20), uv(20<<20), []byte("abc")),
		"corrupt-checksum.lct":            flip(good, endAt-1),
		"corrupt-zstd.lct":                flip(good, len(lctFile(okHeader))+8),
		"corrupt-block-size-mismatch.lct": func() []byte {
			p := payload(okStrs, okOps...)
			z := compress(p)
			return lctFile(okHeader, []byte{lctTagBlock}, uv(2), uv(uint64(len(p)+1)), uv(uint64(len(z))), z, end(2))
		}(),
		"corrupt-end-count.lct":      cat(good[:endAt], end(3)),
		"corrupt-after-end.lct":      cat(good, []byte{0}),
		"not-a-trace-empty-file.lct": nil,
		// Payload: the string table.
		"corrupt-table-count-2e60.lct":   lctFile(okHeader, block(1, cat(uv(huge), []byte{1, 1, 0, 0})), end(1)),
		"corrupt-table-length-2e60.lct":  lctFile(okHeader, block(1, cat(uv(1), uv(huge), []byte{1, 1, 0, 0})), end(1)),
		"corrupt-table-empty-string.lct": op([]string{""}, byte(ThreadBegin), 1, 0, 0),
		"corrupt-table-invalid-utf8.lct": op([]string{"T\xff"}, byte(ThreadBegin), 1, 0, 0),
		// Payload: ops.
		"corrupt-op-kind.lct":           op(okStrs, 0x1f, 1),
		"corrupt-op-kind-zero.lct":      op(okStrs, 0, 1),
		"corrupt-op-string-index.lct":   op(okStrs, byte(Lock), 1, 9),
		"corrupt-op-task-index.lct":     op(okStrs, byte(Lock), 9, 2),
		"corrupt-op-cut-short.lct":      op(okStrs, byte(Send), 1, 0),
		"corrupt-op-missing-ops.lct":    lctFile(okHeader, block(3, payload(okStrs, okOps...)), end(3)),
		"corrupt-op-bytes-after.lct":    lctFile(okHeader, block(1, payload(okStrs, okOps...)), end(1)),
		"corrupt-op-bad-varint.lct":     op(okStrs, append([]byte{byte(Lock), 1}, bytes.Repeat([]byte{0x80}, 11)...)...),
		"corrupt-op-thread-kind.lct":    op(okStrs, byte(ThreadBegin), 1, 3, 0),
		"corrupt-op-send-flags.lct":     op([]string{"T", "q", "E"}, byte(Send), 1, 0x10, 2, 3, 0),
		"corrupt-op-send-kind.lct":      op([]string{"T", "q", "E"}, byte(Send), 1, 3, 2, 3, 0),
		"corrupt-op-send-time.lct":      op([]string{"T", "q", "E"}, append([]byte{byte(Send), 1, 0, 2, 3}, uv(1<<63)...)...),
		"corrupt-op-access-flags.lct":   op([]string{"T", "o", "f"}, byte(Read), 1, 0x40|byte(NullValue), 2, 3),
		"corrupt-op-value-kind.lct":     op([]string{"T", "o", "f"}, byte(Write), 1, 7, 2, 3),
		"corrupt-op-bool-bit.lct":       op([]string{"T", "o", "f"}, byte(Write), 1, 8|byte(IntValue), 2, 3, 0),
		"corrupt-op-float-encoding.lct": op([]string{"T", "o", "f"}, byte(Write), 1, byte(FloatValue), 2, 3, 3, 0),
		"corrupt-op-float-nan.lct": op([]string{"T", "o", "f"}, append([]byte{byte(Write), 1, byte(FloatValue), 2, 3, floatRaw},
			binary.LittleEndian.AppendUint64(nil, 0x7ff8000000000001)...)...),
		"corrupt-op-empty-id.lct":       op(okStrs, byte(Lock), 1, 0),
		"corrupt-op-missing-task.lct":   op(okStrs, byte(Lock), 0, 2),
		"corrupt-op-empty-src.lct":      op(okStrs, byte(Lock)|headSrc, 1, 2, 0),
		"corrupt-op-relate-via.lct":     op([]string{"T", "o", "f"}, byte(Relate), 1, 0, 2, 3, 2, 3),
		"corrupt-op-relate-flags.lct":   op([]string{"T", "o", "f"}, byte(Relate), 1, 0x14, 2, 3, 2, 3),
		"corrupt-op-branch-cond.lct":    op([]string{"T", "o", "f"}, byte(Branch), 1, 0, 2, 3, 0, 0),
		"corrupt-op-branch-flags.lct":   op([]string{"T", "o", "f"}, byte(Branch), 1, 0x12, 2, 3, 0, 0),
		"corrupt-op-ts-delta-first.lct": op(okStrs, byte(Lock)|headTS, 1, 2, tsDelta|4),
		"corrupt-op-ts-encoding.lct":    op(okStrs, byte(Lock)|headTS, 1, 2, 3),
		"corrupt-op-ts-raw-tag.lct":     op(okStrs, byte(Lock)|headTS, 1, 2, 6, 0, 0, 0, 0, 0, 0, 0, 0),
		"corrupt-op-ts-scale.lct":       op(okStrs, byte(Lock)|headTS, 1, 2, 23<<2|tsScale, 2),
		"corrupt-op-ts-inf.lct": op(okStrs, append([]byte{byte(Lock) | headTS, 1, 2, tsRaw},
			binary.LittleEndian.AppendUint64(nil, 0x7ff0000000000000)...)...),
		// The compressed text form.
		"truncated-stream.jsonl.zst": zstFrame[:len(zstFrame)-6],
		"corrupt-stream.jsonl.zst":   flip(zstFrame, len(zstFrame)-1),
		"ok-empty.jsonl.zst":         zst,
	}
}

// TestDecodeErrors reads each damaged file under testdata/decode and
// compares the error with its golden file. Files named truncated-* must
// give ErrTruncated, corrupt-* ErrCorrupt, ok* nothing, others a fatal
// error of their own.
func TestDecodeErrors(t *testing.T) {
	dir := filepath.Join("testdata", "decode")
	if golden.Update() {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range decodeCases() {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*[tz]"))
	if len(names) < len(decodeCases()) {
		t.Fatalf("%d files under %s, want %d (run with -update)", len(names), dir, len(decodeCases()))
	}
	for _, name := range names {
		base := filepath.Base(name)
		t.Run(base, func(t *testing.T) {
			var out bytes.Buffer
			var errs []error
			err := func() error {
				r, err := Open(name, WithoutValidation())
				if err != nil {
					return err
				}
				defer r.Close()
				for {
					var op Op
					if err := r.Next(&op); err != nil {
						if err == io.EOF {
							return nil
						}
						return err
					}
				}
			}()
			if err != nil {
				errs = append(errs, err)
				out.WriteString(err.Error() + "\n")
				if !IsFatal(err) {
					t.Errorf("not fatal: %v", err)
				}
			}
			switch {
			case strings.HasPrefix(base, "ok"):
				if len(errs) > 0 {
					t.Fatalf("unexpected error: %v", errs[0])
				}
				return
			case strings.HasPrefix(base, "truncated-"):
				if len(errs) == 0 || !errors.Is(errs[0], ErrTruncated) {
					t.Errorf("want ErrTruncated, got %v", errs)
				}
			case strings.HasPrefix(base, "corrupt-"):
				if len(errs) == 0 || !errors.Is(errs[0], ErrCorrupt) {
					t.Errorf("want ErrCorrupt, got %v", errs)
				}
			default:
				if len(errs) == 0 {
					t.Errorf("no error")
				}
			}
			golden.Check(t, strings.TrimSuffix(strings.TrimSuffix(name, ".lct"), ".jsonl.zst")+".golden", out.Bytes())
		})
	}
}

// TestHostileLengths: a length prefix of 2^60 (or one of 20 MiB in a file
// of a few bytes) is an error, not an allocation of its size.
func TestHostileLengths(t *testing.T) {
	cases := decodeCases()
	for _, name := range []string{"corrupt-header-length-2e60.lct", "corrupt-block-ops-2e60.lct",
		"corrupt-block-size-2e60.lct", "corrupt-block-zsize-2e60.lct", "truncated-block-zsize-20MiB.lct",
		"corrupt-table-count-2e60.lct", "corrupt-table-length-2e60.lct"} {
		data := cases[name]
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := decode(data, WithoutValidation())
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("%s: decoding allocated %d bytes", name, alloc)
		}
	}
}

// TestLCTFastPathTaken: the fast path decodes nearly every op of a
// realistic trace (else FuzzLCTFastPath would compare the careful path
// with itself), and a good share of the random traces' ops, whose numbers
// are often of the kinds it leaves to the careful path by design (floats
// stored as raw bits, changes of ts scale, varints of three bytes or more).
func TestLCTFastPathTaken(t *testing.T) {
	h, ops, syms := benchOps(20000)
	rh, rops, rsyms := randomTrace(1, 2000)
	for _, tc := range []struct {
		name string
		data []byte
		min  float64 // the least share of ops the fast path must decode
	}{
		{"bench", encode(t, LCT, &h, ops, syms), 0.97},
		{"random", encode(t, LCT, &rh, rops, rsyms), 0.25},
	} {
		r, err := NewReader(bytes.NewReader(tc.data), WithoutValidation())
		if err != nil {
			t.Fatal(err)
		}
		d := r.dec.(*lctDecoder)
		fast, total := 0, 0
		for {
			if d.left > 0 && d.pos < d.fastEnd {
				// Try the fast path on the next op, then undo it.
				pos, task, tsN, tsF, n, left := d.pos, d.prevTask, d.tsN, d.tsF, d.n, d.left
				var op Op
				if d.fastOp(&op) {
					fast++
				}
				d.pos, d.prevTask, d.tsN, d.tsF, d.n, d.left = pos, task, tsN, tsF, n, left
			}
			var op Op
			err := r.Next(&op)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			total++
		}
		r.Close()
		if share := float64(fast) / float64(total); share < tc.min {
			t.Errorf("%s: the fast path decoded %d of %d ops (%.2f), want at least %.2f", tc.name, fast, total, share, tc.min)
		}
		t.Logf("%s: the fast path decoded %d of %d ops", tc.name, fast, total)
	}
}

// TestFastUvarint checks fastUvarint against binary.Uvarint on every
// uvarint of up to two bytes, on random ones of up to four and on random
// words: where binary.Uvarint reads one or two bytes, the same value and
// length; otherwise not ok.
func TestFastUvarint(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(b [8]byte) {
		t.Helper()
		want, n := binary.Uvarint(b[:])
		got, p, ok := fastUvarint(unsafe.Pointer(&b[0]), 0)
		if wantOK := n == 1 || n == 2; ok != wantOK || ok && (got != want || p != n) {
			t.Fatalf("% x: fastUvarint = %d, %d, %v; binary.Uvarint = %d, %d", b, got, p, ok, want, n)
		}
	}
	var b [8]byte
	for v := range uint64(1 << 14) {
		binary.PutUvarint(b[:], v)
		check(b)
	}
	for range 1 << 16 {
		v := rng.Uint64N(1 << 28)
		clear(b[:])
		n := binary.PutUvarint(b[:], v)
		for i := n; i < len(b); i++ {
			b[i] = byte(rng.Uint32())
		}
		check(b)
		binary.LittleEndian.PutUint64(b[:], rng.Uint64())
		check(b)
		b[0], b[1] = b[0]|0x80, b[1]&0x7f // two bytes, maybe not minimal
		check(b)
	}
}
