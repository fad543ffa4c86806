package learn

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// workerCount is how many traces to read at once: n, or GOMAXPROCS if
// n <= 0, and never more than the traces.
func workerCount(n, traces int) int {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, traces))
}

// forEachTrace calls do for every trace index, workers at a time; do gets
// the index of the worker running it (0..workers-1), so callers can keep
// state per worker. A failure cancels the rest. The error returned is the
// first failing trace's in input order (not a cancellation it caused), so
// it does not depend on scheduling. progress, if set, is called after each
// trace with the number done.
func forEachTrace(ctx context.Context, traces, workers int, progress func(done int), do func(ctx context.Context, worker, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, traces)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if errs[i] = do(ctx, w, i); errs[i] != nil {
					cancel()
				}
				mu.Lock()
				done++
				n := done
				mu.Unlock()
				if progress != nil {
					progress(n)
				}
			}
		}()
	}
	for i := range traces {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return ctx.Err()
}
