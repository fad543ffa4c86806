package apps

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/traces"
)

// BenchmarkRecord records one run of 1000 monkey actions of every app, as
// `licorice record` does (shuffled, .lct), to io.Discard. ns/op is the
// time of one run; ops/s the operations recorded per second.
func BenchmarkRecord(b *testing.B) {
	for _, app := range All() {
		b.Run(app.Name, func(b *testing.B) {
			var ops, switches int64
			for i := 0; b.Loop(); i++ {
				opts := shuffle.Options{Seed: int64(i), Actions: 1000, Shuffle: i%2 == 1, NoSource: os.Getenv("NOSRC") != ""}
				res, err := shuffle.Record(context.Background(), app.Main, opts, traces.Header{App: app.Name}, io.Discard, traces.LCT)
				if err != nil {
					b.Fatal(err)
				}
				ops += res.Ops
				switches += res.Switches
			}
			b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(ops)/float64(b.N), "ops/run")
			b.ReportMetric(float64(switches)/float64(b.N), "switches/run")
		})
	}
}

// BenchmarkBatch is `licorice record --runs 50 --actions 1000` for every
// app: 50 traces (half shuffled, .lct) written to a temporary directory,
// as many runs at a time as there are CPUs. ns/op is the time of the 50.
func BenchmarkBatch(b *testing.B) {
	for _, app := range All() {
		b.Run(app.Name, func(b *testing.B) {
			for b.Loop() {
				batch := shuffle.Batch{App: app.Name, Main: app.Main, Dir: b.TempDir(),
					Runs: 50, Actions: 1000, Shuffled: 0.5, Seed: 1, Format: traces.LCT}
				if _, err := batch.Record(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
