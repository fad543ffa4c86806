package traces

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/klauspost/compress/zstd"
)

// fuzzDecode reads a whole trace, as a command would, going on after
// errors that are about one op. It returns the ops of a trace that had no
// error at all.
func fuzzDecode(t *testing.T, data []byte) (*decoded, bool) {
	r, err := NewReader(bytes.NewReader(data), WithoutValidation())
	if err != nil {
		checkErr(t, err)
		return nil, false
	}
	defer r.Close()
	d := &decoded{header: *r.Header(), format: r.Format(), syms: r.Symbols()}
	clean := true
	for range 10000 {
		var op Op
		err := r.Next(&op)
		if err == io.EOF {
			return d, clean
		}
		if err != nil {
			checkErr(t, err)
			clean = false
			if IsFatal(err) {
				return d, false
			}
			continue
		}
		if msg := checkFields(&op); msg != "" {
			t.Fatalf("decoder returned an op that cannot be written (%s): %+v", msg, op)
		}
		d.ops = append(d.ops, op)
	}
	return d, false
}

// checkErr checks that a decoding error says where and what.
func checkErr(t *testing.T, err error) {
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("error is not a *LineError: %T %v", err, err)
	}
	if le.Msg == "" {
		t.Fatalf("error without a message: %+v", le)
	}
}

// fuzzRoundTrip checks that a trace read without error reads back the same
// from each form the writers make of it.
func fuzzRoundTrip(t *testing.T, d *decoded) {
	want := canonical(&d.header, d.ops, d.syms)
	for _, f := range allFormats {
		data := encode(t, f, &d.header, d.ops, d.syms)
		back, err := decode(data, WithoutValidation())
		if err != nil {
			t.Fatalf("%v: reading back what was written: %v", f, err)
		}
		if got := canonical(&back.header, back.ops, back.syms); !bytes.Equal(got, want) {
			t.Fatalf("%v: round trip differs:\n%s", f, firstDiff(want, got))
		}
	}
}

func FuzzJSONL(f *testing.F) {
	for _, seed := range []uint64{1, 2} {
		h, ops, syms := randomTrace(seed, 20)
		f.Add(encode(f, JSONL, &h, ops, syms))
	}
	f.Add([]byte(`{"licorice_trace":1}` + "\n" + `{"op":"read","t":"T","obj":"o","field":"f","val":1e5}`))
	f.Add([]byte(`{"licorice_trace":1,"x":[{"a":"\ud83d\ude00"}]}` + "\n\n" + `{"op":"send","q":"q","e":"E","external":true,"ts":-0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, clean := fuzzDecode(t, data)
		if !clean {
			return
		}
		if d.format != JSONL {
			return // the other forms have their own fuzzers
		}
		fuzzRoundTrip(t, d)
	})
}

func FuzzLCT(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		h, ops, syms := randomTrace(seed, 30)
		f.Add(encode(f, LCT, &h, ops, syms))
	}
	f.Add(encode(f, LCT, &Header{}, nil, NewSymbols()))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Keep the magic so that the fuzzer explores the decoder, not the
		// format detection.
		if !bytes.HasPrefix(data, lctMagic) {
			data = append(append([]byte(nil), lctMagic...), data...)
		}
		d, clean := fuzzDecode(t, data)
		if clean {
			fuzzRoundTrip(t, d)
		}
	})
}

// FuzzLCTBlock fuzzes the payload of a block (string table and ops), which
// FuzzLCT rarely reaches since the zstd checksum rejects most mutations:
// the fuzzer's bytes are compressed into a well-formed block here.
func FuzzLCTBlock(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		h, ops, syms := randomTrace(seed, 30)
		addPayloadSeed(f, encode(f, LCT, &h, ops, syms))
	}
	f.Fuzz(func(t *testing.T, nops uint16, p []byte) {
		d, clean := fuzzDecode(t, payloadFile(nops, p))
		if clean {
			fuzzRoundTrip(t, d)
		}
	})
}

// addPayloadSeed adds the op count and payload of the first block of a
// .lct file to the seeds of a fuzzer of payloads.
func addPayloadSeed(f *testing.F, lct []byte) {
	nops, p := firstPayload(f, lct)
	f.Add(uint16(nops), p)
}

// payloadFile is a .lct file of one block: the fuzzer's payload p of nops
// ops (at least 1), compressed.
func payloadFile(nops uint16, p []byte) []byte {
	n := max(int(nops), 1)
	return lctFile(okHeader, block(n, p), end(uint64(n)))
}

// firstPayload returns the op count and payload of the first block of a
// .lct file.
func firstPayload(t testing.TB, data []byte) (int, []byte) {
	r := bytes.NewReader(data[len(lctMagic):])
	binary.ReadUvarint(r) // version
	n, _ := binary.ReadUvarint(r)
	r.Seek(int64(n), io.SeekCurrent)
	if tag, _ := r.ReadByte(); tag != lctTagBlock {
		t.Fatal("no block")
	}
	nops, _ := binary.ReadUvarint(r)
	binary.ReadUvarint(r) // raw size
	zlen, _ := binary.ReadUvarint(r)
	z := make([]byte, zlen)
	io.ReadFull(r, z)
	zd, _ := zstd.NewReader(nil)
	defer zd.Close()
	p, err := zd.DecodeAll(z, nil)
	if err != nil {
		t.Fatal(err)
	}
	return int(nops), p
}

// TestWriteFuzzSeeds writes the seed corpora under testdata/fuzz with
// -update: small valid traces of each form, so that the fuzzers start from
// inputs that reach deep into the decoders.
func TestWriteFuzzSeeds(t *testing.T) {
	if !golden.Update() {
		t.Skip("run with -update to rewrite the seed corpora")
	}
	write := func(fuzzer string, i int, data []byte) {
		dir := filepath.Join("testdata", "fuzz", fuzzer)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		h, ops, syms := randomTrace(uint64(100+i), 5+20*i)
		write("FuzzJSONL", i, encode(t, JSONL, &h, ops, syms))
		lct := encode(t, LCT, &h, ops, syms)
		write("FuzzLCT", i, lct)
		nops, p := firstPayload(t, lct)
		dir := filepath.Join("testdata", "fuzz", "FuzzLCTBlock")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\nuint16(%d)\n[]byte(%s)\n", nops, strconv.Quote(string(p)))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range validTraceFiles(t) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		write("FuzzJSONL", 10+i, data)
	}
}

// FuzzLCTFastPath checks that the fast path of the .lct decoder (fastOp)
// and the careful one (decodeOp alone) decode every block alike: the same
// ops, the same error at the same op. The seeds are blocks long enough for
// the fast path to decode most of their ops; TestLCTFastPathTaken checks
// that it does.
func FuzzLCTFastPath(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		h, ops, syms := randomTrace(seed, 200)
		addPayloadSeed(f, encode(f, LCT, &h, ops, syms))
	}
	h, ops, syms := benchOps(300)
	addPayloadSeed(f, encode(f, LCT, &h, ops, syms))
	f.Fuzz(func(t *testing.T, nops uint16, p []byte) {
		data := payloadFile(nops, p)
		fast, fastErr := decodePath(t, data, false)
		careful, carefulErr := decodePath(t, data, true)
		if fastErr != carefulErr {
			t.Fatalf("fast path error %q, careful %q", fastErr, carefulErr)
		}
		if len(fast) != len(careful) {
			t.Fatalf("fast path decoded %d ops, careful %d", len(fast), len(careful))
		}
		for i := range fast {
			if fast[i] != careful[i] {
				t.Fatalf("op %d: fast path %+v, careful %+v", i, fast[i], careful[i])
			}
		}
	})
}

// decodePath decodes a .lct file with or without the decoder's fast path,
// and returns its ops and the text of the error that ended it ("" at EOF).
// Both paths intern the same strings in the same order, so their ops can
// be compared with ==.
func decodePath(t *testing.T, data []byte, careful bool) ([]Op, string) {
	r, err := NewReader(bytes.NewReader(data), WithoutValidation())
	if err != nil {
		t.Fatal(err) // the header is a good one
	}
	defer r.Close()
	r.dec.(*lctDecoder).careful = careful
	var ops []Op
	for {
		var op Op
		err := r.Next(&op)
		if err == io.EOF {
			return ops, ""
		}
		if err != nil {
			return ops, err.Error()
		}
		ops = append(ops, op)
	}
}

func FuzzJSONLZstd(f *testing.F) {
	for _, seed := range []uint64{1, 2} {
		h, ops, syms := randomTrace(seed, 20)
		f.Add(encode(f, JSONLZstd, &h, ops, syms))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, clean := fuzzDecode(t, data)
		if !clean || d.format != JSONLZstd {
			return
		}
		fuzzRoundTrip(t, d)
	})
}

// FuzzValidator runs the validator on whatever ops a decoder makes of the
// input, rules broken or not: it must answer every op with nil or a
// LineError that says what is wrong, and never panic.
func FuzzValidator(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3} {
		h, ops, syms := randomTrace(seed, 30)
		f.Add(encode(f, JSONL, &h, ops, syms))
	}
	f.Add([]byte(`{"licorice_trace":1}
{"op":"end","t":"E1"}
{"op":"begin","t":"E1","thread":"L"}
{"op":"thread_begin","t":"L","kind":"looper"}
{"op":"attach","t":"L","q":"q"}
{"op":"send","t":"L","q":"q","e":"E1"}
{"op":"begin","t":"E1","thread":"L"}
{"op":"begin","t":"E1","thread":"L"}
{"op":"thread_end","t":"L"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, _ := fuzzDecode(t, data)
		if d == nil {
			return
		}
		v := NewValidator(d.syms)
		for i := range d.ops {
			if err := v.Check(&d.ops[i], i+2); err != nil {
				checkErr(t, err)
			}
		}
	})
}
