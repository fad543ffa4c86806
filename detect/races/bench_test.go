package races

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
	"testing"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// The benchmarks read generated traces (about 20 accesses per event) from
// .lct files written once under the system's temporary directory: shape
// "app" is tracetest.App, shaped like a real app's trace; "android" is
// tracetest.Android, its adversarial counterpart where nearly every access
// races. BenchmarkEngine runs the bare AsyncClock engine over a trace,
// BenchmarkDetect the race detector (engine included): the difference is
// the detector's overhead. BenchmarkExplain runs `hb` on the first and the
// last event of the main looper.
//
// Sizes: BENCH_EVENTS (comma-separated, default "10000,100000"); the issue's
// range is 10000 to 1000000. Shapes: BENCH_SHAPES (default "app,android").

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

func benchShapes() []string {
	s := os.Getenv("BENCH_SHAPES")
	if s == "" {
		s = "app,android"
	}
	return strings.Split(s, ",")
}

// benchFile returns the path of the trace of shape and n events, writing
// it if it is not there yet.
func benchFile(b *testing.B, shape string, n int) string {
	b.Helper()
	cfg := tracetest.App(n, 1)
	if shape == "android" {
		cfg = tracetest.Android(n, 1)
	}
	path, err := tracetest.File(context.Background(), filepath.Join(os.TempDir(), "licorice-bench"), cfg)
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// peakHeap samples the heap in use while a run goes on.
type peakHeap struct{ max uint64 }

func (p *peakHeap) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.max = max(p.max, ms.HeapInuse)
}

// benchRun streams the trace at path through the step function stepper
// makes for its reader, sampling the heap.
func benchRun(b *testing.B, path string, peak *peakHeap, stepper func(*traces.Reader) func(*traces.Op, int) error) {
	r, err := traces.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	step := stepper(r)
	var op traces.Op
	for n := 1; ; n++ {
		if err := r.Next(&op); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			b.Fatal(err)
		}
		if err := step(&op, r.Line()); err != nil {
			b.Fatal(err)
		}
		if n&0xffff == 0 {
			peak.sample()
		}
	}
	peak.sample()
}

func BenchmarkEngine(b *testing.B) {
	for _, shape := range benchShapes() {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			b.Run(fmt.Sprintf("%s/events=%d", shape, n), func(b *testing.B) {
				var peak peakHeap
				for b.Loop() {
					benchRun(b, path, &peak, func(r *traces.Reader) func(*traces.Op, int) error {
						return asyncclock.New(r.Symbols(), asyncclock.Config{Window: asyncclock.DefaultWindow}).Step
					})
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
				b.ReportMetric(float64(peak.max)/(1<<20), "peak-heap-MB")
			})
		}
	}
}

func BenchmarkDetect(b *testing.B) {
	for _, shape := range benchShapes() {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			for _, v := range []struct {
				name string
				cfg  Config
			}{
				{"summary", Config{PerGroup: -1}},      // counts only: the detection's own cost
				{"per-group=10", Config{PerGroup: 10}}, // licorice races' default
				{"all", Config{All: true, PerGroup: 10}},
			} {
				if v.cfg.All && n > 10_000 || v.cfg.PerGroup > 0 && n > 100_000 {
					continue // every pair, every group listed: too much memory on big racy traces
				}
				b.Run(fmt.Sprintf("%s/events=%d/%s", shape, n, v.name), func(b *testing.B) {
					var peak peakHeap
					var rep *Report
					cfg := v.cfg
					cfg.Window = asyncclock.DefaultWindow
					for b.Loop() {
						var d *Detector
						benchRun(b, path, &peak, func(r *traces.Reader) func(*traces.Op, int) error {
							d = NewDetector(r.Symbols(), cfg)
							return d.Step
						})
						var err error
						if rep, err = d.Finish(); err != nil {
							b.Fatal(err)
						}
						peak.sample()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
					b.ReportMetric(float64(peak.max)/(1<<20), "peak-heap-MB")
					var races, listed, groups int
					for _, ks := range rep.Summary.Kinds {
						races += ks.Races
						listed += ks.Listed
						groups += ks.Groups
					}
					b.ReportMetric(float64(races), "races")
					b.ReportMetric(float64(listed), "listed")
					b.ReportMetric(float64(groups), "groups")
				})
			}
		}
	}
}

func BenchmarkExplain(b *testing.B) {
	for _, shape := range benchShapes() {
		for _, n := range benchSizes(b) {
			path := benchFile(b, shape, n)
			b.Run(fmt.Sprintf("%s/events=%d", shape, n), func(b *testing.B) {
				// The first and the last event the main looper ran: a chain
				// across the whole trace, the search's worst case.
				a, z := firstLast(b, path, "main")
				var ex *Explanation
				for b.Loop() {
					r, err := traces.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					ex, err = Explain(context.Background(), r, a, z, asyncclock.DefaultWindow)
					r.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
				b.ReportMetric(float64(len(ex.Steps)), "steps")
			})
		}
	}
}

// firstLast returns the first and the last event thread th ran.
func firstLast(b *testing.B, path, th string) (first, last string) {
	r, err := traces.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var op traces.Op
	for {
		if err := r.Next(&op); err != nil {
			if errors.Is(err, io.EOF) {
				return first, last
			}
			b.Fatal(err)
		}
		if op.Kind == traces.Begin && r.Symbols().String(op.Thread) == th {
			if first == "" {
				first = r.Symbols().String(op.Task)
			}
			last = r.Symbols().String(op.Task)
		}
	}
}
