package asyncclock

import (
	"fmt"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces/tracetest"
)

// benchTrace returns the ops of tracetest's Android trace of n events.
func benchTrace(b *testing.B, n int) *tracetest.Trace {
	b.Helper()
	return tracetest.Generate(tracetest.Android(n, 1))
}

func BenchmarkEngine(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		tt := benchTrace(b, n)
		for _, w := range []time.Duration{DefaultWindow, 0} {
			b.Run(fmt.Sprintf("events=%d/window=%v", n, w), func(b *testing.B) {
				var st Stats
				for b.Loop() {
					e := New(tt.Symbols, Config{Window: w})
					for i := range tt.Ops {
						if err := e.Step(&tt.Ops[i], i+2); err != nil {
							b.Fatal(err)
						}
					}
					if err := e.Finish(); err != nil {
						b.Fatal(err)
					}
					st = e.Stats()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
				b.ReportMetric(float64(len(tt.Ops))/float64(n), "ops/event")
				b.ReportMetric(float64(st.Chains), "chains")
				b.ReportMetric(float64(st.MaxTimeLen), "maxVC")
				b.ReportMetric(float64(st.Tracked), "tracked")
			})
		}
	}
}
