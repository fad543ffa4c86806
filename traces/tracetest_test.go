package traces_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

var forms = []traces.Format{traces.JSONL, traces.JSONLZstd, traces.LCT}

// readCanonical reads a trace, validating it, and returns its canonical text.
func readCanonical(t testing.TB, data []byte) []byte {
	t.Helper()
	r, err := traces.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b := traces.AppendCanonicalHeader(nil, r.Header())
	var op traces.Op
	for {
		if err := r.Next(&op); err != nil {
			if err == io.EOF {
				return b
			}
			t.Fatal(err)
		}
		b = traces.AppendCanonical(b, &op, r.Symbols())
	}
}

// TestRoundTripTracetest: valid, model-consistent traces of the generator
// read back in every form as valid traces with the same canonical text.
func TestRoundTripTracetest(t *testing.T) {
	cfgs := []tracetest.Config{tracetest.Android(300, 1)}
	seeds := 30
	if testing.Short() {
		seeds = 5
	}
	for seed := range seeds {
		cfgs = append(cfgs, tracetest.Small(int64(seed)))
	}
	for _, cfg := range cfgs {
		tr := tracetest.Generate(cfg)
		want := traces.AppendCanonicalHeader(nil, &tr.Header)
		for i := range tr.Ops {
			want = traces.AppendCanonical(want, &tr.Ops[i], tr.Symbols)
		}
		for _, f := range forms {
			var buf bytes.Buffer
			if err := tr.Encode(&buf, f); err != nil {
				t.Fatalf("%s seed %d: encode %v: %v", cfg.Name, cfg.Seed, f, err)
			}
			if got := readCanonical(t, buf.Bytes()); !bytes.Equal(got, want) {
				t.Fatalf("%s seed %d: %v does not read back the same text", cfg.Name, cfg.Seed, f)
			}
		}
	}
}

// BenchmarkTracetestDecode reads a 1M-op trace of the tracetest generator
// (the Android preset) in each form, without validation.
func BenchmarkTracetestDecode(b *testing.B) {
	cfg := tracetest.Android(0, 1)
	cfg.Ops = 1_000_000
	data := map[traces.Format][]byte{}
	for _, f := range forms {
		var buf bytes.Buffer
		if _, err := tracetest.Write(context.Background(), &buf, f, cfg); err != nil {
			b.Fatal(err)
		}
		data[f] = buf.Bytes()
	}
	for _, f := range forms {
		b.Run(f.String(), func(b *testing.B) {
			n := 0
			start := time.Now()
			for b.Loop() {
				r, err := traces.NewReader(bytes.NewReader(data[f]), traces.WithoutValidation())
				if err != nil {
					b.Fatal(err)
				}
				var op traces.Op
				for r.Next(&op) == nil {
				}
				n = r.Count()
				r.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/time.Since(start).Seconds(), "ops/s")
			b.ReportMetric(float64(len(data[f]))/float64(n), "file-B/op")
			b.ReportMetric(100*float64(len(data[f]))/float64(len(data[traces.JSONL])), "%-of-jsonl")
		})
	}
}
