package asyncclock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// The benchmarks read generated traces from files written once (in .lct)
// under the system's temporary directory, so that generating them is not
// measured. BenchmarkRead measures the reader alone; BenchmarkRun the
// reader and the engine; BenchmarkEngine the engine alone (the CPU time
// of its steps, with the operations decoded in batches around them).
//
// The window is Config.WideWindow's unless BENCH_WIDE=0, which measures
// the looper-only window the engine uses by default.
//
// Sizes: BENCH_EVENTS (comma-separated, default "10000,100000"); 1000000
// is the target size of issue 3.
//
// Shapes: "app" is tracetest.App, a trace shaped like a real app's
// (thesis Table 4.1: loopers that keep up, a pool of long-lived workers, a
// few hundred events per second): the headline figures. "android" is
// tracetest.Android, wide and adversarial: random delays, thread churn,
// loopers that fall behind.

var benchShapes = []string{"app", "android"}

func benchSizes(b *testing.B) []int {
	s := os.Getenv("BENCH_EVENTS")
	if s == "" {
		s = "10000,100000"
	}
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("BENCH_EVENTS: %v", err)
		}
		ns = append(ns, n)
	}
	return ns
}

// benchWide reports whether the benchmarks turn on Config.WideWindow.
func benchWide() bool { return os.Getenv("BENCH_WIDE") != "0" }

func benchConfig(shape string, events int) tracetest.Config {
	if shape == "app" {
		return tracetest.App(events, 1)
	}
	return tracetest.Android(events, 1)
}

// benchFile returns the path of the trace file for shape and events,
// writing it if it is not there yet.
func benchFile(b *testing.B, shape string, events int) string {
	b.Helper()
	path, err := tracetest.File(context.Background(), filepath.Join(os.TempDir(), "licorice-bench"), benchConfig(shape, events))
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// cpuTime returns the CPU time the process has used (user and system):
// on a shared machine it says more than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakHeap samples the heap in use while a run goes on.
type peakHeap struct{ max uint64 }

func (p *peakHeap) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.max = max(p.max, ms.HeapInuse)
}

func BenchmarkRead(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			b.Run(fmt.Sprintf("%s/events=%d", shape, n), func(b *testing.B) {
				ops := 0
				cpu := cpuTime()
				for b.Loop() {
					r, err := traces.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					var op traces.Op
					for ops = 0; ; ops++ {
						err := r.Next(&op)
						if errors.Is(err, io.EOF) {
							break
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					r.Close()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/event")
				b.ReportMetric(float64(ops)/float64(n), "ops/event")
			})
		}
	}
}

// BenchmarkReadAhead measures the reader as Run drives it: traces.EachAhead
// with a visit that does nothing. Its cpu-ns/event is the reader's share
// of Run's CPU (and of the hand-over of batches); ns/event is as fast as
// Run could go with an engine that cost nothing.
func BenchmarkReadAhead(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			b.Run(fmt.Sprintf("%s/events=%d", shape, n), func(b *testing.B) {
				cpu := cpuTime()
				for b.Loop() {
					r, err := traces.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					if err := traces.EachAhead(context.Background(), r, func(*traces.Op) error { return nil }); err != nil {
						b.Fatal(err)
					}
					r.Close()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/event")
			})
		}
	}
}

func BenchmarkRun(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			for _, w := range []time.Duration{DefaultWindow, 0} {
				if w == 0 && n > 100_000 {
					continue // exact mode holds every event: measured up to 100k
				}
				b.Run(fmt.Sprintf("%s/events=%d/window=%v", shape, n, w), func(b *testing.B) {
					var st Stats
					var peak peakHeap
					cpu := cpuTime()
					for b.Loop() {
						r, err := traces.Open(path)
						if err != nil {
							b.Fatal(err)
						}
						e, err := Run(context.Background(), r, Config{Window: w, WideWindow: benchWide()}, func(op *traces.Op, e *Engine) error {
							if e.seq&0xffff == 0 {
								peak.sample()
							}
							return nil
						})
						if err != nil {
							b.Fatal(err)
						}
						r.Close()
						peak.sample()
						st = e.Stats()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
					b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/event")
					b.ReportMetric(float64(peak.max)/(1<<20), "peak-heap-MB")
					b.ReportMetric(float64(st.Chains), "chains")
					b.ReportMetric(float64(st.MaxTimeLen), "max-clock-len")
					b.ReportMetric(float64(st.MaxTracked), "max-tracked-events")
				})
			}
		}
	}
}

// BenchmarkEngine measures the engine alone, window on: operations are
// decoded in batches, and only the CPU time of stepping them counts
// (garbage the reader leaves may still be collected on the engine's time).
func BenchmarkEngine(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			b.Run(fmt.Sprintf("%s/events=%d/window=%v", shape, n, DefaultWindow), func(b *testing.B) {
				var st Stats
				var peak peakHeap
				var engine time.Duration
				batch := make([]traces.Op, 4096)
				lines := make([]int, len(batch))
				for b.Loop() {
					r, err := traces.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					e := New(r.Symbols(), Config{Window: DefaultWindow, WideWindow: benchWide()})
					for done := false; !done; {
						k := 0
						for ; k < len(batch); k++ {
							err := r.Next(&batch[k])
							if errors.Is(err, io.EOF) {
								done = true
								break
							}
							if err != nil {
								b.Fatal(err)
							}
							lines[k] = r.Line()
						}
						cpu := cpuTime()
						for i := range k {
							if err := e.Step(&batch[i], lines[i]); err != nil {
								b.Fatal(err)
							}
						}
						engine += cpuTime() - cpu
						if e.seq&0xffff < 4096 {
							peak.sample()
						}
					}
					if err := e.Finish(); err != nil {
						b.Fatal(err)
					}
					r.Close()
					st = e.Stats()
				}
				b.ReportMetric(float64(engine.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/event")
				b.ReportMetric(float64(peak.max)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(st.Chains), "chains")
				b.ReportMetric(float64(st.MaxTracked), "max-tracked-events")
			})
		}
	}
}

// BenchmarkReference measures the reference engine on tracetest.Small
// traces (the equivalence test's) and on small Android ones.
func BenchmarkReference(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  tracetest.Config
	}{
		{"small", tracetest.Small(1)},
		{"android/events=50", tracetest.Android(50, 1)},
		{"android/events=200", tracetest.Android(200, 1)},
	} {
		tt := tracetest.Generate(c.cfg)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := NewGraph(context.Background(), tt.Symbols, tt.Ops, nil, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tt.Ops)), "ops")
		})
	}
}
