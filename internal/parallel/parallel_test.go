package parallel

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestWorkers(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	tests := []struct{ n, items, want int }{
		{4, 10, 4}, {4, 2, 2}, {0, 1000, procs}, {-1, 1000, procs}, {3, 0, 1},
	}
	for _, tt := range tests {
		if got := Workers(tt.n, tt.items); got != tt.want {
			t.Errorf("Workers(%d, %d) = %d, want %d", tt.n, tt.items, got, tt.want)
		}
	}
}

func TestForEach(t *testing.T) {
	for _, workers := range []int{1, 3, 0} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			const n = 100
			var seen [n]atomic.Int32
			var progress []int
			busy := make([]atomic.Int32, Workers(workers, n))
			err := ForEach(context.Background(), n, workers, func(done int) {
				progress = append(progress, done) // ForEach serializes the calls
			}, func(_ context.Context, w, i int) error {
				if busy[w].Add(1) != 1 {
					t.Errorf("worker %d runs two items at once", w)
				}
				seen[i].Add(1)
				busy[w].Add(-1)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Errorf("item %d done %d times", i, seen[i].Load())
				}
			}
			for i, d := range progress {
				if d != i+1 {
					t.Fatalf("progress %v: not 1, 2, ..., %d", progress, n)
				}
			}
			if len(progress) != n {
				t.Errorf("progress called %d times, want %d", len(progress), n)
			}
		})
	}
}

func TestForEachNone(t *testing.T) {
	if err := ForEach(context.Background(), 0, 4, nil, func(context.Context, int, int) error {
		t.Error("called with no items")
		return nil
	}); err != nil {
		t.Error(err)
	}
}

// The error is that of the smallest failing index, whatever the order in
// which the workers ran, and a failure stops the loop.
func TestForEachFirstError(t *testing.T) {
	for range 20 {
		var started atomic.Int32
		err := ForEach(context.Background(), 1000, 4, nil, func(ctx context.Context, _, i int) error {
			started.Add(1)
			switch i {
			case 3, 5:
				return fmt.Errorf("item %d failed", i)
			}
			<-ctx.Done() // the others wait for the cancellation
			return fmt.Errorf("item %d: %w", i, ctx.Err())
		})
		if err == nil || err.Error() != "item 3 failed" {
			t.Fatalf("err = %v, want item 3's", err)
		}
		if s := started.Load(); s > 20 {
			t.Errorf("%d items started after the failure cancelled the loop", s)
		}
	}
}

func TestForEachCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := ForEach(ctx, 10, 2, nil, func(ctx context.Context, _, i int) error { return ctx.Err() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
