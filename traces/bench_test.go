package traces

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// benchGen streams a valid, Android-like trace: three workers send events
// to a looper, which runs each through a handler that reads and writes the
// fields of recently allocated objects. Ids grow without bound (every event
// and object is new) as in a real trace, but the generator keeps only
// counters, and resets its Symbols as it goes, so its memory stays flat
// whatever the length.
type benchGen struct {
	rng      *rand.Rand
	syms     *Symbols
	pending  []Op // the current episode
	next0    int  // the next op of pending to return
	buf      []byte
	ts       float64
	events   int
	objects  int
	setUp    bool
	resetAt  int
	handlers []string
	fields   []string
	srcs     []string
}

func newBenchGen(seed uint64, syms *Symbols) *benchGen {
	g := &benchGen{rng: rand.New(rand.NewPCG(seed, 1)), syms: syms, resetAt: 1 << 12}
	for i := range 60 {
		g.handlers = append(g.handlers, fmt.Sprintf("com.example.app.Activity%d.onEvent%d", i%12, i))
	}
	for i := range 40 {
		g.fields = append(g.fields, fmt.Sprintf("field%d", i))
	}
	for i := range 200 {
		g.srcs = append(g.srcs, fmt.Sprintf("Activity%d.java:%d", i%12, 100+i*7))
	}
	return g
}

func (g *benchGen) id(prefix byte, n int) Sym {
	g.buf = strconv.AppendInt(append(g.buf[:0], prefix), int64(n), 10)
	return g.syms.InternBytes(g.buf)
}

func (g *benchGen) name(s string) Sym { return g.syms.Intern(s) }

func (g *benchGen) add(op Op) {
	g.ts += float64(g.rng.IntN(4))
	if g.rng.IntN(8) == 0 {
		g.ts += 0.25
	}
	op.TS, op.HasTS = g.ts, true
	if g.rng.IntN(10) < 3 {
		op.Src = g.name(g.srcs[g.rng.IntN(len(g.srcs))])
	}
	g.pending = append(g.pending, op)
}

// object returns one of the 500 objects allocated last.
func (g *benchGen) object() Sym {
	if g.objects == 0 {
		return g.name("app")
	}
	return g.id('o', g.objects-1-g.rng.IntN(min(g.objects, 500)))
}

func (g *benchGen) value() Value {
	switch r := g.rng.IntN(100); {
	case r < 70:
		return Int(int64(g.rng.IntN(1000)))
	case r < 80:
		return Ref(g.object())
	case r < 90:
		return Null()
	case r < 95:
		return Bool(g.rng.IntN(2) == 0)
	case r < 98:
		return Float(float64(g.rng.IntN(100000)) / 100)
	}
	return String(g.name(g.fields[g.rng.IntN(len(g.fields))] + " text"))
}

// episode queues a worker's send and the looper's run of the event.
func (g *benchGen) episode() {
	main, q := g.name("main"), g.name("mainq")
	if !g.setUp {
		g.setUp = true
		g.add(Op{Kind: ThreadBegin, Task: main, ThreadKind: Looper, Name: main})
		g.add(Op{Kind: Attach, Task: main, Queue: q})
		for w := 1; w <= 3; w++ {
			g.add(Op{Kind: Fork, Task: main, Thread: g.id('W', w)})
			g.add(Op{Kind: ThreadBegin, Task: g.id('W', w)})
		}
	}
	w := g.id('W', 1+g.rng.IntN(3))
	if g.rng.IntN(4) == 0 {
		l := g.name("lock")
		g.add(Op{Kind: Lock, Task: w, Name: l})
		g.add(Op{Kind: Write, Task: w, Loc: Location{Obj: g.object(), Field: g.name(g.fields[0])}, Val: g.value()})
		g.add(Op{Kind: Unlock, Task: w, Name: l})
	}
	g.events++
	e := g.id('E', g.events)
	send := Op{Kind: Send, Task: w, Queue: q, Event: e}
	switch r := g.rng.IntN(20); {
	case r == 0:
		send.Task, send.External = NoSym, true
	case r == 1:
		send.SendKind = AtFront
	case r < 5:
		send.Time = int64(g.rng.IntN(500))
		send.Async = r == 2
	}
	g.add(send)
	if g.rng.IntN(20) == 0 {
		g.add(Op{Kind: Remove, Task: w, Event: e})
		return
	}
	g.add(Op{Kind: Begin, Task: e, Thread: main})
	h := g.name(g.handlers[g.rng.IntN(len(g.handlers))])
	g.add(Op{Kind: Call, Task: e, Name: h})
	for range 5 + g.rng.IntN(20) {
		loc := Location{Obj: g.object(), Field: g.name(g.fields[g.rng.IntN(len(g.fields))])}
		switch r := g.rng.IntN(100); {
		case r < 45:
			g.add(Op{Kind: Read, Task: e, Loc: loc, Val: g.value(), Deref: r < 10})
		case r < 80:
			g.add(Op{Kind: Write, Task: e, Loc: loc, Val: g.value()})
		case r < 88:
			obj := g.id('o', g.objects)
			g.objects++
			g.add(Op{Kind: Alloc, Task: e, Loc: Location{Obj: obj}, Site: g.name(g.srcs[g.rng.IntN(30)]), Type: g.name(g.fields[g.rng.IntN(20)] + "Type")})
		case r < 93:
			g.add(Op{Kind: Relate, Task: e, Loc: loc, Loc2: Location{Obj: g.object(), Field: loc.Field}, Via: ViaCmp})
		case r < 98:
			g.add(Op{Kind: Branch, Task: e, Loc: loc, Cond: CondNonNull, Taken: true, PC: int64(g.rng.IntN(5000)), Target: int64(g.rng.IntN(5000))})
		default:
			g.add(Op{Kind: Signal, Task: e, Name: g.id('m', g.events)})
		}
	}
	g.add(Op{Kind: Ret, Task: e, Name: h})
	g.add(Op{Kind: End, Task: e})
}

// next fills op with the next op; the Syms it holds are valid until the
// next call (the generator may reset its table).
func (g *benchGen) next(op *Op) {
	if g.next0 == len(g.pending) {
		if g.syms.Len() > g.resetAt {
			g.syms.Reset()
		}
		g.pending, g.next0 = g.pending[:0], 0
		g.episode()
	}
	*op = g.pending[g.next0]
	g.next0++
}

// benchOps generates n ops into one table (no reset).
func benchOps(n int) (Header, []Op, *Symbols) {
	syms := NewSymbols()
	g := newBenchGen(1, syms)
	g.resetAt = 1 << 62
	ops := make([]Op, n)
	for i := range ops {
		g.next(&ops[i])
	}
	return Header{Platform: "android", App: "bench", Run: "bench-1", Shuffled: true, Seed: 1, HasSeed: true}, ops, syms
}

const benchN = 1_000_000

var benchCache struct {
	h    Header
	ops  []Op
	syms *Symbols
	data map[Format][]byte
}

func benchTrace(b *testing.B) (Header, []Op, *Symbols, map[Format][]byte) {
	if benchCache.ops == nil {
		h, ops, syms := benchOps(benchN)
		benchCache.h, benchCache.ops, benchCache.syms = h, ops, syms
		benchCache.data = make(map[Format][]byte)
		for _, f := range allFormats {
			benchCache.data[f] = encode(b, f, &h, ops, syms)
		}
	}
	c := &benchCache
	return c.h, c.ops, c.syms, c.data
}

// BenchmarkDecode reads a 1M-op trace in each form, without validation
// (the decoder alone) and with it (what analyses get by default).
func BenchmarkDecode(b *testing.B) {
	for _, validate := range []bool{false, true} {
		for _, f := range allFormats {
			name := f.String()
			if validate {
				name += "/validate"
			}
			b.Run(name, func(b *testing.B) {
				_, _, _, data := benchTrace(b)
				opts := []Option{WithoutValidation()}
				if validate {
					opts = nil
				}
				b.SetBytes(int64(len(data[f])))
				b.ReportAllocs()
				start, cpu := time.Now(), cpuTime()
				for b.Loop() {
					r, err := NewReader(bytes.NewReader(data[f]), opts...)
					if err != nil {
						b.Fatal(err)
					}
					var op Op
					for {
						if err := r.Next(&op); err != nil {
							if err != io.EOF {
								b.Fatal(err)
							}
							break
						}
					}
					if r.Count() != benchN {
						b.Fatalf("read %d ops", r.Count())
					}
					r.Close()
				}
				reportRates(b, start, cpu)
				b.ReportMetric(float64(len(data[f]))/benchN, "file-B/op")
			})
		}
	}
}

// reportRates reports ops per second of wall-clock time and of CPU time
// (all threads: GC included) since start.
func reportRates(b *testing.B, start time.Time, cpu time.Duration) {
	ops := float64(benchN) * float64(b.N)
	b.ReportMetric(ops/time.Since(start).Seconds(), "ops/s")
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(ops/used.Seconds(), "ops/cpu-s")
	}
}

// BenchmarkDecodeKnownStrings reads the .lct trace into a table that
// already holds its strings, as when one table is shared by many traces of
// one program: the decoder's own speed, without adding new strings.
func BenchmarkDecodeKnownStrings(b *testing.B) {
	_, _, _, data := benchTrace(b)
	syms := NewSymbols()
	if _, err := decode(data[LCT], WithoutValidation(), WithSymbols(syms)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start, cpu := time.Now(), cpuTime()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data[LCT]), WithoutValidation(), WithSymbols(syms))
		if err != nil {
			b.Fatal(err)
		}
		var op Op
		for r.Next(&op) == nil {
		}
		if r.Count() != benchN {
			b.Fatalf("read %d ops", r.Count())
		}
		r.Close()
	}
	reportRates(b, start, cpu)
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkEncode writes a 1M-op trace in each form.
func BenchmarkEncode(b *testing.B) {
	for _, f := range allFormats {
		b.Run(f.String(), func(b *testing.B) {
			h, ops, syms, data := benchTrace(b)
			b.ReportAllocs()
			var cw countWriter
			start, cpu := time.Now(), cpuTime()
			for b.Loop() {
				cw.n = 0
				w, err := NewWriter(&cw, f, &h, syms)
				if err != nil {
					b.Fatal(err)
				}
				for i := range ops {
					if err := w.Write(&ops[i]); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			reportRates(b, start, cpu)
			b.ReportMetric(float64(cw.n)/benchN, "file-B/op")
			b.ReportMetric(100*float64(cw.n)/float64(len(data[JSONL])), "%-of-jsonl")
		})
	}
}

// streamTrace writes an n-op .lct trace into a pipe from a goroutine, so
// that no more than a block of it is ever in memory.
func streamTrace(n int) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		syms := NewSymbols()
		g := newBenchGen(2, syms)
		w, err := NewWriter(pw, LCT, &Header{}, syms)
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		var op Op
		for range n {
			g.next(&op)
			if err := w.Write(&op); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		pw.CloseWithError(w.Close())
	}()
	return pr
}

// statPeakHeap summarizes a streamed n-op trace and returns the largest
// live heap seen while it ran (after a collection, every 65536 ops; the
// generator's memory is in it too, and is flat as well).
func statPeakHeap(t testing.TB, n int) (uint64, *Summary) {
	src := streamTrace(n)
	defer src.Close()
	runtime.GC()
	var peak uint64
	var ms runtime.MemStats
	r, err := NewReader(src, WithoutValidation(), WithProgress(func(int) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return peak, s
}

// TestStatMemoryFlat: the memory Summarize needs does not grow with the
// trace (every event and object id in these traces is new). Its symbol
// table reaches its largest size (symsResetAt strings) after about 650k
// ops of this generator; from then on the heap must stay put.
func TestStatMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 3M generated ops")
	}
	small, s1 := statPeakHeap(t, 1_000_000)
	large, s2 := statPeakHeap(t, 2_000_000)
	if s1.Ops != 1_000_000 || s2.Ops != 2_000_000 {
		t.Fatalf("summarized %d and %d ops", s1.Ops, s2.Ops)
	}
	t.Logf("peak live heap: %d KiB at 1M ops, %d KiB at 2M", small>>10, large>>10)
	if large > small+small/10+1<<20 {
		t.Errorf("peak live heap grew from %d KiB at 1M ops to %d KiB at 2M", small>>10, large>>10)
	}
}

// BenchmarkStatMemory reports the peak heap of `traces stat` at 100k, 1M
// and 10M ops: it should not grow.
func BenchmarkStatMemory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				peak, _ = statPeakHeap(b, n)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-heap-MiB")
		})
	}
}
