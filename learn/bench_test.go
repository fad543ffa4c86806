package learn

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// benchCorpus records the workload for an app: 50 traces of 1000
// monkey actions each, half shuffled (as `licorice record` does).
func benchCorpus(b *testing.B, app string) []string {
	b.Helper()
	return recorded(b, app, 50, 1000)
}

// BenchmarkLearn learns from 50 traces x 1000 actions of an app, with
// one worker per CPU; it reports operations per second and the peak heap.
func BenchmarkLearn(b *testing.B) {
	for _, app := range []string{"mytracks", "vlc", "firefox"} {
		b.Run(app, func(b *testing.B) {
			paths := benchCorpus(b, app)
			var ops int64
			for _, p := range paths {
				ops += countOps(b, p)
			}
			b.ResetTimer()
			var peak uint64
			cpu := cpuTime()
			for range b.N {
				stop := watchHeap(&peak)
				if _, err := Learn(context.Background(), paths, Options{}); err != nil {
					b.Fatal(err)
				}
				stop()
			}
			b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// BenchmarkLearnOneWorker is BenchmarkLearn/mytracks on one core: the
// cost per operation without parallelism.
func BenchmarkLearnOneWorker(b *testing.B) {
	paths := benchCorpus(b, "mytracks")
	var ops int64
	for _, p := range paths {
		ops += countOps(b, p)
	}
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		if _, err := Learn(context.Background(), paths, Options{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(ops)*float64(b.N)/(cpuTime()-cpu).Seconds(), "ops/cpu-s")
}

// watchHeap samples the heap in use until stop is called, keeping the
// largest value in *peak.
func watchHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
				sleepBriefly()
			}
		}
	}()
	return func() { close(done); <-finished }
}

func sleepBriefly() { <-time.After(100 * time.Millisecond) }

func countOps(b *testing.B, path string) int64 {
	b.Helper()
	r, err := traces.Open(path, traces.WithoutValidation())
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var op traces.Op
	var n int64
	for r.Next(&op) == nil {
		n++
	}
	return n
}

// cpuTime is the process's user and system CPU time so far: unlike wall
// time, it barely depends on what else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLearnLongTrace learns from one MyTracks trace of more and more
// actions: the peak heap must stay flat (it is bounded by handlers and
// candidate conditions, and by the trace's live objects, not its length).
func BenchmarkLearnLongTrace(b *testing.B) {
	for _, actions := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("actions=%d", actions), func(b *testing.B) {
			paths := recorded(b, "mytracks", 1, actions)
			ops := countOps(b, paths[0])
			runtime.GC()
			b.ResetTimer()
			var peak uint64
			for range b.N {
				stop := watchHeap(&peak)
				if _, err := Learn(context.Background(), paths, Options{Workers: 1}); err != nil {
					b.Fatal(err)
				}
				stop()
			}
			b.ReportMetric(float64(ops), "ops")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// BenchmarkSampler names the data of every invocation of a trace of the
// generator's app shape, read into memory first: the sampler alone, which
// each of learn's passes and detect's first pass run over every op. The
// longer trace shows the cost per op as the objects grow.
func BenchmarkSampler(b *testing.B) {
	for _, events := range []int{1000, 30000} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			var buf bytes.Buffer
			if err := tracetest.Generate(tracetest.App(events, 1)).Encode(&buf, traces.LCT); err != nil {
				b.Fatal(err)
			}
			syms := traces.NewSymbols()
			r, err := traces.NewReader(&buf, traces.WithSymbols(syms))
			if err != nil {
				b.Fatal(err)
			}
			var ops []traces.Op
			var op traces.Op
			for r.Next(&op) == nil {
				ops = append(ops, op)
			}
			b.ResetTimer()
			for range b.N {
				s := NewSampler(syms)
				for i := range ops {
					s.Step(&ops[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(ops))/float64(b.N), "ns/op-of-trace")
		})
	}
}
