package parallel

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// Workers returns how many goroutines to run over items: n, or GOMAXPROCS
// if n <= 0, never more than the items and at least 1.
func Workers(n, items int) int {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, items))
}

// ForEach calls do for every index in [0, items), on Workers(workers,
// items) goroutines; do gets the number of the goroutine running it
// (0..Workers-1), so callers can keep state per worker. A failure cancels
// the context do gets, and no further index starts. The error returned is
// the failure of the smallest index (not a cancellation it caused), so it
// does not depend on scheduling; else the context's error. progress, if
// not nil, is called after each index with the number done (from one
// goroutine at a time, in increasing order).
func ForEach(ctx context.Context, items, workers int, progress func(done int), do func(ctx context.Context, worker, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, items)
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := range Workers(workers, items) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if errs[i] = do(ctx, w, i); errs[i] != nil {
					cancel()
				}
				mu.Lock()
				done++
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < items && ctx.Err() == nil; i++ {
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
