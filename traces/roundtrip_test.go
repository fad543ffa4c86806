package traces

import (
	"bytes"
	"io"
	"strconv"
	"testing"
)

var allFormats = []Format{JSONL, JSONLZstd, LCT}

// encode writes a trace in format f.
func encode(t testing.TB, f Format, h *Header, ops []Op, syms *Symbols) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, f, h, syms)
	if err != nil {
		t.Fatalf("NewWriter(%v): %v", f, err)
	}
	for i := range ops {
		if err := w.Write(&ops[i]); err != nil {
			t.Fatalf("%v: Write(op %d %+v): %v", f, i, ops[i], err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%v: Close: %v", f, err)
	}
	return buf.Bytes()
}

// decoded is a trace read back whole.
type decoded struct {
	header Header
	format Format
	ops    []Op
	syms   *Symbols
}

func decode(data []byte, opts ...Option) (*decoded, error) {
	r, err := NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d := &decoded{header: *r.Header(), format: r.Format(), syms: r.Symbols()}
	for {
		var op Op
		err := r.Next(&op)
		if err == io.EOF {
			return d, nil
		}
		if err != nil {
			return d, err
		}
		d.ops = append(d.ops, op)
	}
}

func mustDecode(t testing.TB, data []byte, opts ...Option) *decoded {
	t.Helper()
	d, err := decode(data, opts...)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return d
}

// canonical is the canonical text of a trace.
func canonical(h *Header, ops []Op, syms *Symbols) []byte {
	b := AppendCanonicalHeader(nil, h)
	for i := range ops {
		b = AppendCanonical(b, &ops[i], syms)
	}
	return b
}

// remap returns op with its Syms moved from one table to another, so that
// ops decoded by different readers can be compared with ==.
func remap(op Op, from, to *Symbols) Op {
	m := func(y Sym) Sym { return to.Intern(from.String(y)) }
	op.Task, op.Thread, op.Event, op.Queue, op.Name = m(op.Task), m(op.Thread), m(op.Event), m(op.Queue), m(op.Name)
	op.Loc.Obj, op.Loc.Field, op.Loc2.Obj, op.Loc2.Field = m(op.Loc.Obj), m(op.Loc.Field), m(op.Loc2.Obj), m(op.Loc2.Field)
	op.Site, op.Type, op.Src = m(op.Site), m(op.Type), m(op.Src)
	switch op.Val.Kind() {
	case RefValue:
		op.Val = Ref(m(op.Val.Sym()))
	case StringValue:
		op.Val = String(m(op.Val.Sym()))
	}
	return op
}

func randomTrace(seed uint64, n int) (Header, []Op, *Symbols) {
	syms := NewSymbols()
	g := newRandOps(seed, syms)
	ops := make([]Op, n)
	var ts float64
	for i := range ops {
		g.op(&ops[i], &ts)
	}
	return g.header(), ops, syms
}

// TestRoundTripRandom writes random ops in every form and reads them back:
// the canonical text must be the one of the ops written, and the ops read
// from every form must be identical.
func TestRoundTripRandom(t *testing.T) {
	seeds, n := 40, 3000
	if testing.Short() {
		seeds = 8
	}
	for seed := range uint64(seeds) {
		h, ops, syms := randomTrace(seed, n)
		// The canonical header: Extra sorted and compacted.
		ch, err := canonicalHeader(&h)
		if err != nil {
			t.Fatal(err)
		}
		common := NewSymbols()
		var ref []Op
		for _, f := range allFormats {
			data := encode(t, f, &h, ops, syms)
			d := mustDecode(t, data, WithoutValidation())
			if d.format != f {
				t.Fatalf("seed %d: wrote %v, detected %v", seed, f, d.format)
			}
			got := canonical(&d.header, d.ops, d.syms)
			if wantC := canonical(ch, ops, syms); !bytes.Equal(got, wantC) {
				t.Fatalf("seed %d %v: canonical text differs:\n%s", seed, f, firstDiff(wantC, got))
			}
			if len(d.ops) != len(ops) {
				t.Fatalf("seed %d %v: %d ops, want %d", seed, f, len(d.ops), len(ops))
			}
			var these []Op
			for _, op := range d.ops {
				these = append(these, remap(op, d.syms, common))
			}
			if ref == nil {
				ref = these
				continue
			}
			for i := range these {
				if these[i] != ref[i] {
					t.Fatalf("seed %d: op %d read from %v is\n%+v\nfrom jsonl\n%+v", seed, i, f, these[i], ref[i])
				}
			}
		}
	}
}

// TestCanonicalThroughLCT: canonical JSONL -> .lct -> JSONL is the same
// bytes, and so is a trip through .jsonl.zst.
func TestCanonicalThroughLCT(t *testing.T) {
	h, ops, syms := randomTrace(99, 5000)
	text := encode(t, JSONL, &h, ops, syms)
	for _, f := range []Format{LCT, JSONLZstd} {
		d := mustDecode(t, text, WithoutValidation())
		mid := encode(t, f, &d.header, d.ops, d.syms)
		back := mustDecode(t, mid, WithoutValidation())
		got := encode(t, JSONL, &back.header, back.ops, back.syms)
		if !bytes.Equal(got, text) {
			t.Fatalf("jsonl -> %v -> jsonl differs:\n%s", f, firstDiff(text, got))
		}
	}
}

// TestLCTBlocks crosses block boundaries by op count and by size, and
// checks that line numbers stay those of the text form.
func TestLCTBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("large trace")
	}
	h, ops, syms := randomTrace(7, 3*lctBlockOps+17)
	// Big strings push blocks over their size target too.
	big := syms.Intern(string(bytes.Repeat([]byte("y"), 1<<20)))
	for i := 0; i < len(ops); i += 20000 {
		ops[i] = Op{Kind: Error, Task: syms.Intern("T"), Name: big}
	}
	data := encode(t, LCT, &h, ops, syms)
	want := canonical(&h, nil, syms)
	var got []byte
	forEachOp(t, data, func(i int, op *Op, r *Reader) {
		if i == 0 {
			got = AppendCanonicalHeader(nil, r.Header())
		}
		if r.Line() != i+2 {
			t.Fatalf("op %d: Line() = %d, want %d", i, r.Line(), i+2)
		}
		got = AppendCanonical(got, op, r.Symbols())
		want = AppendCanonical(want, &ops[i], syms)
	})
	if !bytes.Equal(got, want) {
		t.Fatalf("canonical text differs:\n%s", firstDiff(want, got))
	}
}

// TestLCTSymbolsReset: a reader whose table is reset between ops (as
// `traces stat` does) still decodes every op right.
func TestLCTSymbolsReset(t *testing.T) {
	n := 2 * lctBlockOps
	if testing.Short() {
		n = lctBlockOps/8 + 1
	}
	h, ops, syms := randomTrace(3, n)
	data := encode(t, LCT, &h, ops, syms)
	for _, every := range []int{1, 7, 1000} {
		var syms2 *Symbols
		forEachOp(t, data, func(i int, op *Op, r *Reader) {
			got := AppendCanonical(nil, op, r.Symbols())
			want := AppendCanonical(nil, &ops[i], syms)
			if !bytes.Equal(got, want) {
				t.Fatalf("reset every %d, op %d: got %s want %s", every, i, got, want)
			}
			if i%every == 0 {
				r.Symbols().Reset()
			}
			syms2 = r.Symbols()
		})
		if n := syms2.Len(); n > 12*every+1 {
			t.Errorf("reset every %d: table holds %d strings at the end", every, n)
		}
	}
}

// TestWriterSymbolsReset: a writer whose table is reset between ops writes
// each op with the strings its Syms had when it was written.
func TestWriterSymbolsReset(t *testing.T) {
	syms := NewSymbols()
	h := Header{}
	var want []byte
	var buf bytes.Buffer
	w, err := NewWriter(&buf, LCT, &h, syms)
	if err != nil {
		t.Fatal(err)
	}
	want = AppendCanonicalHeader(want, &Header{Version: Version})
	for i, name := range []string{"a", "b", "c", "d"} {
		op := Op{Kind: Call, Task: syms.Intern("T" + name), Name: syms.Intern("h" + name)}
		want = AppendCanonical(want, &op, syms)
		if err := w.Write(&op); err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			syms.Reset()
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d := mustDecode(t, buf.Bytes(), WithoutValidation())
	if got := canonical(&d.header, d.ops, d.syms); !bytes.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// forEachOp reads a trace without validation and calls f with each op.
func forEachOp(t testing.TB, data []byte, f func(i int, op *Op, r *Reader)) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), WithoutValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var op Op
	for i := 0; ; i++ {
		if err := r.Next(&op); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			return
		}
		f(i, &op, r)
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(want, got []byte) string {
	wl, gl := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + strconv.Itoa(i+1) + ":\n want " + string(w) + "\n  got " + string(g)
		}
	}
	return "(no difference)"
}
