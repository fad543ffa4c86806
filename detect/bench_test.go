package detect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
)

// benchInput returns a spec learned from 30 runs of 500 actions of app
// and a 2000-action test run, written once under the system's temporary
// directory so that recording and learning are not measured.
func benchInput(b *testing.B, name string) (*learn.Spec, string) {
	b.Helper()
	app, ok := apps.Lookup(name)
	if !ok {
		b.Fatalf("no app %s", name)
	}
	dir := filepath.Join(os.TempDir(), "licorice-detect-bench", name)
	specPath := filepath.Join(dir, "spec.json")
	test := filepath.Join(dir, "test", name+"-000.lct")
	if _, err := os.Stat(test); err != nil {
		ctx := context.Background()
		train := shuffle.Batch{App: name, Main: app.Main, Dir: filepath.Join(dir, "train"), Runs: 30, Actions: 500, Shuffled: 0.5, Seed: 1, Format: traces.LCT, NoSource: true}
		sums, err := train.Record(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var paths []string
		for _, s := range sums {
			paths = append(paths, s.File)
		}
		res, err := learn.Learn(ctx, paths, learn.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := res.Spec.WriteFile(specPath); err != nil {
			b.Fatal(err)
		}
		tb := shuffle.Batch{App: name, Main: app.Main, Dir: filepath.Join(dir, "test"), Runs: 1, Actions: 2000, Seed: 7002, Format: traces.LCT}
		if _, err := tb.Record(ctx); err != nil {
			b.Fatal(err)
		}
	}
	sp, err := learn.ReadSpecFile(specPath)
	if err != nil {
		b.Fatal(err)
	}
	return sp, test
}

// BenchmarkDetect measures detection on one 2000-action trace of an app
// (issue 6: at most 2 s), reading, both passes, checks and reports, with
// AsyncClock's default window; Explain adds the hb explanation of each
// report's example.
func BenchmarkDetect(b *testing.B) {
	for _, name := range []string{"mytracks", "connectbot", "vlc", "firefox"} {
		sp, path := benchInput(b, name)
		for _, explain := range []int{0, DefaultExplain} {
			b.Run(fmt.Sprintf("%s/explain=%v", name, explain), func(b *testing.B) {
				var ops int64
				for b.Loop() {
					res, err := Detect(context.Background(), sp, []string{path}, Options{Window: asyncclock.DefaultWindow, Explain: explain})
					if err != nil {
						b.Fatal(err)
					}
					ops = res.Traces[0].Ops
				}
				b.ReportMetric(float64(ops), "ops/trace")
				b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			})
		}
	}
}

// BenchmarkPasses splits a MyTracks trace's cost: reading alone, the
// first pass (naming and realizing), and both passes with the checks.
func BenchmarkPasses(b *testing.B) {
	sp, path := benchInput(b, "mytracks")
	ctx := context.Background()
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if err := readTrace(ctx, source{name: path, file: path}, traces.NewSymbols(), nil, func(*traces.Op, int64, int) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("realize", func(b *testing.B) {
		for b.Loop() {
			syms := traces.NewSymbols()
			rl := newRealizer(sp, syms, newConds(), &TraceStats{})
			if err := readTrace(ctx, source{name: path, file: path}, syms, nil, func(op *traces.Op, pos int64, line int) error { rl.step(op, pos, line); return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("passes+checks", func(b *testing.B) {
		for b.Loop() {
			if _, err := passes(ctx, sp, source{name: path, file: path}, asyncclock.DefaultWindow); err != nil {
				b.Fatal(err)
			}
		}
	})
}
