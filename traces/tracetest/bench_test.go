package tracetest

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

// BenchmarkNext measures the streaming generator: one iteration is one
// operation of an endless trace.
func BenchmarkNext(b *testing.B) {
	small := Small(1)
	small.Events = 1 << 30
	for _, bc := range []struct {
		name string
		cfg  Config
	}{{"android", Android(1<<30, 1)}, {"small", small}} {
		b.Run(bc.name, func(b *testing.B) {
			g := NewGenerator(bc.cfg)
			g.RecycleSymbols(symbolLimit)
			var op traces.Op
			b.ReportAllocs()
			for b.Loop() {
				g.Next(&op)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkWrite measures streaming a whole Android trace of 10k events
// (about 360k operations) in each form.
func BenchmarkWrite(b *testing.B) {
	cfg := Android(10_000, 1)
	for _, f := range []traces.Format{traces.JSONL, traces.JSONLZstd, traces.LCT} {
		b.Run(f.String(), func(b *testing.B) {
			var ops int64
			for b.Loop() {
				n, err := Write(context.Background(), io.Discard, f, cfg)
				if err != nil {
					b.Fatal(err)
				}
				ops += n
			}
			b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkMeasure measures the coverage count of Small traces of a few
// sizes (it is quadratic in the number of events).
func BenchmarkMeasure(b *testing.B) {
	for _, events := range []int{150, 1500} {
		cfg := Small(1)
		cfg.Events = events
		tr := Generate(cfg)
		b.Run(fmt.Sprint(events), func(b *testing.B) {
			for b.Loop() {
				Measure(tr.Ops)
			}
			b.ReportMetric(float64(len(tr.Ops)*b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
