package shuffle

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

func TestIsShuffled(t *testing.T) {
	for _, f := range []float64{0, 0.1, 0.25, 1.0 / 3, 0.5, 0.9, 1} {
		for _, n := range []int{1, 2, 7, 10, 50} {
			got := 0
			for i := range n {
				if IsShuffled(i, f) {
					got++
				}
			}
			if want := int(math.Floor(float64(n)*f + 1e-9)); got != want {
				t.Errorf("f=%v n=%d: %d shuffled runs, want %d", f, n, got, want)
			}
		}
	}
	if IsShuffled(0, 0.5) || !IsShuffled(1, 0.5) {
		t.Error("with f=1/2, every second run should be shuffled, starting with run 1")
	}
}

// TestBatchParallelism checks that a batch writes the same bytes whether
// its runs go one at a time or two at a time.
func TestBatchParallelism(t *testing.T) {
	record := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		b := Batch{App: "sink", Main: runSink, Dir: t.TempDir(), Runs: 4, Actions: 30, Shuffled: 0.5, Seed: 9, Format: traces.JSONL}
		sums, err := b.Record(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != 4 || filepath.Base(sums[3].File) != "sink-003.jsonl" || !sums[1].Shuffled || sums[2].Seed != 11 {
			t.Fatalf("summaries %+v", sums)
		}
		return b.Dir
	}
	one, two := record(1), record(2)
	for i := range 4 {
		name := "sink-00" + string(rune('0'+i)) + ".jsonl"
		a, err1 := os.ReadFile(filepath.Join(one, name))
		b, err2 := os.ReadFile(filepath.Join(two, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between one and two runs at a time (%v, %v)", name, err1, err2)
		}
	}
}

func TestBatchErrors(t *testing.T) {
	for _, b := range []Batch{
		{App: "sink", Main: runSink, Dir: t.TempDir(), Runs: 0, Format: traces.JSONL},
		{App: "sink", Main: runSink, Dir: t.TempDir(), Runs: 1, Shuffled: 1.5, Format: traces.JSONL},
		{App: "sink", Main: runSink, Dir: filepath.Join(t.TempDir(), "a\x00b"), Runs: 1, Format: traces.JSONL},
	} {
		if _, err := b.Record(context.Background()); err == nil {
			t.Errorf("batch %+v: no error", b)
		}
	}
}
