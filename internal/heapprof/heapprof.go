package heapprof

import (
	"bytes"
	"math"
	"runtime"
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
	best    atomic.Uint64 // the bytes in use in the last profile taken (estimated as pprof does)
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
	var recs []runtime.MemProfileRecord
	for {
		select {
		case <-p.stop:
			return
		case <-p.gcs:
		}
		// What the profile would show now: the runtime publishes a
		// collection's figures once its sweep is done, so right after a
		// collection they may still be those of the one before.
		recs = memProfile(recs)
		n := inUse(recs, runtime.MemProfileRate)
		best := p.best.Load()
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

// inUse estimates the bytes in use that records count, sampled one
// allocation per rate bytes on average: each record's bytes scaled up by
// how likely an allocation of its average size was to be sampled, as
// pprof does.
func inUse(recs []runtime.MemProfileRecord, rate int) uint64 {
	var n float64
	for i := range recs {
		r := &recs[i]
		b := float64(r.InUseBytes())
		if b <= 0 || r.AllocObjects == 0 {
			continue
		}
		if rate > 1 {
			avg := float64(r.AllocBytes) / float64(r.AllocObjects)
			b /= 1 - math.Exp(-avg/float64(rate))
		}
		n += b
	}
	return uint64(n)
}

// memProfile returns the heap profile's records, in recs if it has room.
func memProfile(recs []runtime.MemProfileRecord) []runtime.MemProfileRecord {
	for {
		n, ok := runtime.MemProfile(recs[:cap(recs)], true)
		if ok {
			return recs[:n]
		}
		recs = make([]runtime.MemProfileRecord, n+n/4+16)
	}
}

// Stop stops watching and returns the profile of the largest heap in use
// seen and the bytes in use it counts (estimated from its samples). If
// no collection ended while watching, it collects and returns what the
// heap holds then. Later calls return the same.
func (p *Peak) Stop() (profile []byte, inUseBytes uint64) {
	if !p.stopped.Swap(true) {
		close(p.stop)
		<-p.done
		if p.prof == nil {
			runtime.GC()
			var b bytes.Buffer
			if err := pprof.Lookup("heap").WriteTo(&b, 0); err == nil {
				p.prof = b.Bytes()
				p.best.Store(inUse(memProfile(nil), runtime.MemProfileRate))
			}
		}
	}
	<-p.done
	return p.prof, p.best.Load()
}
