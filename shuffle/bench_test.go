package shuffle

import (
	"context"
	"io"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

type benchObj struct {
	Object
	n Int
	p Ptr[benchObj]
}

// BenchmarkOps measures the cost of recording: one run of a program whose
// main thread does b.N field accesses, written as .lct to io.Discard.
// ns/op is the time of one recorded operation.
func BenchmarkOps(b *testing.B) {
	for _, c := range []struct {
		name     string
		noSource bool
		format   traces.Format
	}{{"lct", false, traces.LCT}, {"lct-nosrc", true, traces.LCT}, {"jsonl", false, traces.JSONL}} {
		b.Run(c.name, func(b *testing.B) {
			n := b.N
			b.ResetTimer()
			res, err := Record(context.Background(), func(rt *Runtime) {
				o := New(rt, &benchObj{})
				for i := range n / 2 {
					o.n.Set(int64(i))
					o.p.Get()
				}
			}, Options{Seed: 1, Actions: 1, NoSource: c.noSource}, traces.Header{}, io.Discard, c.format)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(res.Ops)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
