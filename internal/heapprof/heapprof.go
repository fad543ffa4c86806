package heapprof

import (
	"bytes"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync/atomic"
)

// Peak watches the live heap after each garbage collection and keeps the
// heap profile of the largest (see the package doc).
type Peak struct {
	gcs     chan struct{} // a collection ended
	stop    chan struct{}
	done    chan struct{}
	stopped atomic.Bool
	best    atomic.Uint64 // the live heap at the last profile taken
	prof    []byte        // written by run only, read by Stop after it
}

// Watch starts watching. Stop it when the work measured is over.
func Watch() *Peak {
	p := &Peak{gcs: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	p.arm()
	return p
}

// sentinel is an object nothing refers to, whose finalizer runs after
// the collection that finds it unreachable. It holds a pointer, so that
// it is not one of the tiny objects whose finalizers may never run.
type sentinel struct{ _ *byte }

// arm sets a sentinel for the next collection, which signals p and arms
// the next, until p is stopped.
func (p *Peak) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if p.stopped.Load() {
			return
		}
		select {
		case p.gcs <- struct{}{}:
		default: // one signal pending is enough
		}
		p.arm()
	})
}

func (p *Peak) run() {
	defer close(p.done)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		select {
		case <-p.stop:
			return
		case <-p.gcs:
		}
		metrics.Read(live)
		if live[0].Value.Kind() != metrics.KindUint64 {
			continue // a runtime without the metric: no peak is known
		}
		n, best := live[0].Value.Uint64(), p.best.Load()
		if n == 0 || n <= best+best/10 {
			continue
		}
		var b bytes.Buffer
		if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
			continue
		}
		p.prof = b.Bytes()
		p.best.Store(n)
	}
}

// Stop stops watching and returns the profile of the largest live heap
// seen and its size in bytes; nil and 0 if no collection ended while
// watching. Later calls return the same.
func (p *Peak) Stop() (profile []byte, live uint64) {
	if !p.stopped.Swap(true) {
		close(p.stop)
	}
	<-p.done
	return p.prof, p.best.Load()
}
