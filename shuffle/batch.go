package shuffle

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/licorice-dev/licorice/internal/atomicfile"
	"github.com/licorice-dev/licorice/traces"
)

// Batch describes a set of recordings of one app: `licorice record`.
type Batch struct {
	App  string         // the app's name, for the header and the file names
	Main func(*Runtime) // the app
	Dir  string         // where the traces go (created if missing)

	Runs      int           // how many traces
	Actions   int           // monkey actions per run (Options.Actions)
	Shuffled  float64       // the fraction of runs that are shuffled, 0..1
	DelayMean time.Duration // Options.DelayMean (0: the default)
	Reach     float64       // Options.Reach (0: the default; negative: none)
	Seed      int64         // run i uses seed Seed+i
	Format    traces.Format
	NoSource  bool // Options.NoSource

	// Progress, if set, is called after each run with the number done.
	// It may be called from several goroutines.
	Progress func(done int)
}

// RunSummary is the outcome of one run of a batch.
type RunSummary struct {
	File     string // the trace's path
	Seed     int64
	Shuffled bool
	Result
}

// IsShuffled reports whether run i of a batch of fraction f is shuffled:
// the shuffled runs are spread evenly (with f = 1/2, every second run).
func IsShuffled(i int, f float64) bool {
	return math.Floor(float64(i+1)*f+1e-9) > math.Floor(float64(i)*f+1e-9)
}

// Record writes the batch's traces, DIR/APP-NNN.EXT, each whole or not at
// all, running as many runs at a time as there are CPUs. The traces are
// the same, byte for byte, for the same batch, whatever the parallelism.
// It returns the summaries in run order.
func (b *Batch) Record(ctx context.Context) ([]RunSummary, error) {
	if b.Runs <= 0 {
		return nil, fmt.Errorf("record: %d runs: want at least 1", b.Runs)
	}
	if b.Shuffled < 0 || b.Shuffled > 1 {
		return nil, fmt.Errorf("record: shuffled fraction %v: want a number from 0 to 1", b.Shuffled)
	}
	if err := os.MkdirAll(b.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	width := len(strconv.Itoa(b.Runs - 1))
	width = max(width, 3)
	sums := make([]RunSummary, b.Runs)
	errs := make([]error, b.Runs)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(runtime.GOMAXPROCS(0), b.Runs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				name := fmt.Sprintf("%s-%0*d.%s", b.App, width, i, b.Format)
				sums[i], errs[i] = b.recordOne(ctx, i, filepath.Join(b.Dir, name))
				if errs[i] != nil {
					cancel()
				}
				mu.Lock()
				done++
				n := done
				mu.Unlock()
				if b.Progress != nil {
					b.Progress(n)
				}
			}
		}()
	}
	for i := range b.Runs {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sums, nil
}

func (b *Batch) recordOne(ctx context.Context, i int, path string) (RunSummary, error) {
	opts := Options{
		Seed:      b.Seed + int64(i),
		Actions:   b.Actions,
		Shuffle:   IsShuffled(i, b.Shuffled),
		DelayMean: b.DelayMean,
		Reach:     b.Reach,
		NoSource:  b.NoSource,
	}
	opts.defaults()
	h := traces.Header{
		App: b.App,
		Run: fmt.Sprintf("run-%03d", i),
		Extra: []traces.ExtraField{
			{Key: "actions", JSON: strconv.Itoa(opts.Actions)},
		},
	}
	if opts.Shuffle {
		h.Extra = append(h.Extra, traces.ExtraField{Key: "delay_mean_ms", JSON: strconv.FormatFloat(float64(opts.DelayMean)/float64(time.Millisecond), 'g', -1, 64)},
			traces.ExtraField{Key: "reach", JSON: strconv.FormatFloat(max(opts.Reach, 0), 'g', -1, 64)})
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return RunSummary{}, err
	}
	defer f.Abort()
	res, err := Record(ctx, b.Main, opts, h, f, b.Format)
	if err != nil {
		return RunSummary{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return RunSummary{}, err
	}
	return RunSummary{File: path, Seed: opts.Seed, Shuffled: opts.Shuffle, Result: res}, nil
}
