package traces_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// visit is what a visit saw: the ops, with the reader's Line and Count
// during each, and the error the loop returned.
type visit struct {
	ops    []traces.Op
	lines  []int
	counts []int
	err    string
}

type eachFunc func(context.Context, *traces.Reader, func(*traces.Op) error) error

// smallTrace is tracetest.Small(seed) with the given number of events, in
// format f.
func smallTrace(t *testing.T, seed int64, events int, f traces.Format) []byte {
	t.Helper()
	cfg := tracetest.Small(seed)
	cfg.Events = events
	var buf bytes.Buffer
	if _, err := tracetest.Write(context.Background(), &buf, f, cfg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lineVisit is a visit that is told the op's line and count.
type lineVisit func(op *traces.Op, line, count int) error

// eachLined is a loop whose visit is told each op's line and count.
type eachLined func(context.Context, *traces.Reader, lineVisit) error

// perOp is each, telling visit r's Line and Count during the visit.
func perOp(each eachFunc) eachLined {
	return func(ctx context.Context, r *traces.Reader, visit lineVisit) error {
		return each(ctx, r, func(op *traces.Op) error { return visit(op, r.Line(), r.Count()) })
	}
}

// chunked is EachChunkAhead visiting the ops of each chunk in turn, with
// the lines it hands over and the counts that r's Count (that of the
// chunk's last op) implies. It checks the chunks' sizes and r's Line.
func chunked(t *testing.T) eachLined {
	return func(ctx context.Context, r *traces.Reader, visit lineVisit) error {
		return traces.EachChunkAhead(ctx, r, func(ops []traces.Op, lines []int) error {
			if len(ops) == 0 || len(ops) > traces.ChunkLen || len(lines) != len(ops) {
				t.Fatalf("a chunk of %d ops and %d lines, want 1 to %d of each", len(ops), len(lines), traces.ChunkLen)
			}
			if r.Line() != lines[len(lines)-1] {
				t.Fatalf("Line %d during a chunk, want its last op's, %d", r.Line(), lines[len(lines)-1])
			}
			for i := range ops {
				if err := visit(&ops[i], lines[i], r.Count()-(len(ops)-1-i)); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// record reads data with each, stopping visit with an error after stopAt
// ops if stopAt > 0.
func record(t *testing.T, data []byte, each eachLined, stopAt int) visit {
	t.Helper()
	r, err := traces.NewReader(bytes.NewReader(data), traces.WithName("t"))
	if err != nil { // a bad header: neither loop runs
		return visit{err: "open: " + err.Error()}
	}
	defer r.Close()
	var v visit
	err = each(context.Background(), r, func(op *traces.Op, line, count int) error {
		v.ops = append(v.ops, *op)
		v.lines = append(v.lines, line)
		v.counts = append(v.counts, count)
		if len(v.ops) == stopAt {
			return errors.New("stop")
		}
		return nil
	})
	if err != nil {
		v.err = err.Error()
	}
	return v
}

func sameVisits(t *testing.T, want, got visit) {
	t.Helper()
	if got.err != want.err {
		t.Errorf("error %q, want %q (as Each)", got.err, want.err)
	}
	if len(got.ops) != len(want.ops) {
		t.Fatalf("%d ops visited, want %d (as Each)", len(got.ops), len(want.ops))
	}
	for i := range want.ops {
		if got.ops[i] != want.ops[i] || got.lines[i] != want.lines[i] || got.counts[i] != want.counts[i] {
			t.Fatalf("op %d: %+v at line %d, count %d; want %+v at line %d, count %d (as Each)",
				i, got.ops[i], got.lines[i], got.counts[i], want.ops[i], want.lines[i], want.counts[i])
		}
	}
}

// TestEachAheadAsEach checks that EachAhead and EachChunkAhead visit what
// Each visits, with the same lines and counts, and stop with the same
// error: on valid
// traces of sizes around its batches in every form and on one that goes
// round its ring, on every invalid trace of testdata (as JSONL and as
// .lct) and on a long .lct one, and when visit stops it.
func TestEachAheadAsEach(t *testing.T) {
	var inputs []struct {
		name string
		data []byte
	}
	for _, events := range []int{0, 1, 40, 300} {
		for _, f := range []traces.Format{traces.JSONL, traces.JSONLZstd, traces.LCT} {
			inputs = append(inputs, struct {
				name string
				data []byte
			}{f.String() + "/events=" + strconv.Itoa(events), smallTrace(t, int64(events)+1, events, f)})
		}
	}
	// 9000 events are about 70k ops: the batches go round the ring more
	// than twice, and the visitor hands them back in groups.
	inputs = append(inputs, struct {
		name string
		data []byte
	}{"lct/events=9000", smallTrace(t, 9001, 9000, traces.LCT)})
	// An op that breaks a rule deep in a long .lct trace, where the fast
	// path decodes it (the small invalid traces below fit in a block's
	// tail, which the fast path leaves to the full decoder).
	inputs = append(inputs, struct {
		name string
		data []byte
	}{"lct/ghost-at-20000", withGhost(t, smallTrace(t, 9, 5000, traces.JSONL), 20000)})
	bad, err := filepath.Glob(filepath.Join("testdata", "invalid", "*.jsonl"))
	if err != nil || len(bad) == 0 {
		t.Fatalf("no invalid traces: %v", err)
	}
	for _, p := range bad {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, struct {
			name string
			data []byte
		}{filepath.Base(p), data})
		if lct := asLCT(data); lct != nil { // the .lct fast path, then the validator's error
			inputs = append(inputs, struct {
				name string
				data []byte
			}{filepath.Base(p) + ".lct", lct})
		}
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			want := record(t, in.data, perOp(traces.Each), 0)
			sameVisits(t, want, record(t, in.data, perOp(traces.EachAhead), 0))
			sameVisits(t, want, record(t, in.data, chunked(t), 0))
			for _, stop := range []int{1, 15, 16, 17, 1023, 1024, 1025, len(want.ops) / 2} {
				if stop > 0 && stop <= len(want.ops) {
					stopped := record(t, in.data, perOp(traces.Each), stop)
					sameVisits(t, stopped, record(t, in.data, perOp(traces.EachAhead), stop))
					sameVisits(t, stopped, record(t, in.data, chunked(t), stop))
				}
			}
		})
	}
}

// toLCT returns the ops of a JSONL trace, read with opts, in .lct, with
// the op extra makes inserted after op at (if extra is not nil).
func toLCT(data []byte, at int, extra func(*traces.Symbols) traces.Op, opts ...traces.Option) ([]byte, error) {
	r, err := traces.NewReader(bytes.NewReader(data), opts...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	w, err := traces.NewWriter(&buf, traces.LCT, r.Header(), r.Symbols())
	if err != nil {
		return nil, err
	}
	var op traces.Op
	for n := 0; ; n++ {
		if err := r.Next(&op); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if err := w.Write(&op); err != nil {
			return nil, err
		}
		if n == at && extra != nil {
			inserted := extra(r.Symbols())
			if err := w.Write(&inserted); err != nil {
				return nil, err
			}
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// withGhost returns the ops of a valid JSONL trace in .lct, with a write
// by a task that never began inserted after op at.
func withGhost(t *testing.T, data []byte, at int) []byte {
	t.Helper()
	lct, err := toLCT(data, at, func(syms *traces.Symbols) traces.Op {
		return traces.Op{Kind: traces.Write, Task: syms.Intern("ghost"), Loc: traces.Location{Obj: syms.Intern("o"), Field: syms.Intern("f")}, Val: traces.Int(1)}
	})
	if err != nil {
		t.Fatal(err)
	}
	return lct
}

// asLCT returns the ops of a JSONL trace, read without validation, in
// .lct; nil if they cannot be read or written so.
func asLCT(data []byte) []byte {
	lct, err := toLCT(data, -1, nil, traces.WithoutValidation())
	if err != nil {
		return nil
	}
	return lct
}

// TestEachAheadSharesSymbols has visit use the reader's table while the
// reading goroutine interns into it (run it with -race; JSONL interns
// op by op), and checks that the strings of the ops are those Each gives.
func TestEachAheadSharesSymbols(t *testing.T) {
	data := smallTrace(t, 7, 2000, traces.JSONL)
	strs := func(each eachFunc) []string {
		r, err := traces.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		syms := r.Symbols()
		var out []string
		err = each(context.Background(), r, func(op *traces.Op) error {
			out = append(out, syms.String(op.Task)+" "+syms.String(op.Event)+" "+syms.String(op.Loc.Field))
			y := syms.Intern("visitor-" + strconv.Itoa(len(out)%100)) // new strings from this side too
			if got := syms.String(y); got != "visitor-"+strconv.Itoa(len(out)%100) {
				t.Fatalf("String(Intern(s)) = %q", got)
			}
			if int(y) >= syms.Len() {
				t.Fatalf("Sym %d issued, Len %d", y, syms.Len())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want, got := strs(traces.Each), strs(traces.EachAhead)
	if len(got) != len(want) {
		t.Fatalf("%d ops, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("op %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// TestEachAheadStopsWithContext checks that a cancelled context stops
// EachAhead with its error.
func TestEachAheadStopsWithContext(t *testing.T) {
	r, err := traces.NewReader(bytes.NewReader(smallTrace(t, 3, 500, traces.LCT)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = traces.EachAhead(ctx, r, func(*traces.Op) error {
		if n++; n == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n > 10+4096 {
		t.Errorf("visited %d ops after the cancel", n-10)
	}
}

// TestEachAheadShortTraceIsCheap checks that EachAhead makes its batches
// as it needs them: reading a short trace allocates far less than the
// whole ring (32 batches, about 4 MiB).
func TestEachAheadShortTraceIsCheap(t *testing.T) {
	data := smallTrace(t, 5, 40, traces.LCT)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := traces.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := traces.EachAhead(context.Background(), r, func(*traces.Op) error { return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("reading a 40-event trace ahead allocated %d bytes, want under 1 MiB", got)
	}
}

// WithProgress hears of every op read: all of them at the end of the
// trace, and those read so far when a reader stopped early is closed.
func TestProgressCountsOpsRead(t *testing.T) {
	for _, f := range []traces.Format{traces.JSONL, traces.LCT} {
		data := smallTrace(t, 3, 20_000, f)
		for _, stopAt := range []int{0, 10, 70_000} {
			reported := 0
			r, err := traces.NewReader(bytes.NewReader(data), traces.WithProgress(func(n int) { reported += n }))
			if err != nil {
				t.Fatal(err)
			}
			read := 0
			var op traces.Op
			for stopAt == 0 || read < stopAt {
				if err := r.Next(&op); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				read++
			}
			r.Close()
			if reported != read {
				t.Errorf("%v, stopped after %d ops: %d reported, %d read", f, stopAt, reported, read)
			}
		}
	}
}
