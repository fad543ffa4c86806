package traces

import (
	"context"
	"io"
)

const (
	// aheadBatch is how many ops the reading goroutine of EachAhead hands
	// over at a time: few enough that a batch (about 140 KiB) stays in
	// the second-level cache between the two goroutines.
	aheadBatch = 1 << 10
	// aheadBatches is how many batches are in flight: the reading
	// goroutine fills one while the visitor visits another.
	aheadBatches = 4
)

// batch is ops read ahead, with their lines, and the error that ended the
// reading if it ended after them.
type batch struct {
	ops   []Op
	lines []int
	err   error
}

// EachAhead is [Each] with the reading (decoding, interning, validation,
// progress reports) done by another goroutine, a few thousand ops ahead of
// visit, so that a trace is read on one core while it is analysed on
// another. visit sees the same ops, in the same order, and the same first
// error, as with Each; during it, r's Line and Count describe the op
// visited, and r's Symbols may be used from visit, except for Reset. r
// is read only by EachAhead's own goroutine until it returns, and then
// may have read ahead of the last op visited: do not call r.Next after
// it, other than to see that the trace is done.
func EachAhead(ctx context.Context, r *Reader, visit func(op *Op) error) error {
	unshare := r.syms.share()
	defer unshare()
	r.visited = true
	full := make(chan *batch, aheadBatches)
	free := make(chan *batch, aheadBatches)
	done := make(chan struct{})
	for range aheadBatches {
		free <- &batch{ops: make([]Op, aheadBatch), lines: make([]int, aheadBatch)}
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		readAhead(r, free, full, done)
	}()
	defer func() {
		close(done)
		<-stopped
	}()
	for n := 0; ; {
		var b *batch
		select {
		case b = <-full:
		case <-ctx.Done():
			return ctx.Err()
		}
		for i := range b.ops {
			if n%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			n++
			r.visitedLine, r.visitedCount = b.lines[i], n
			if err := visit(&b.ops[i]); err != nil {
				return err
			}
		}
		if b.err != nil {
			if b.err == io.EOF {
				return nil
			}
			r.visitedLine = b.lines[len(b.ops)] // the line of the op that failed, after the last one read
			return b.err
		}
		free <- b
	}
}

// readAhead reads r into the batches it takes from free and hands them to
// full, until the reading ends (the batch that says how is the last) or
// done is closed.
func readAhead(r *Reader, free <-chan *batch, full chan<- *batch, done <-chan struct{}) {
	for {
		var b *batch
		select {
		case b = <-free:
		case <-done:
			return
		}
		ops, lines := b.ops[:aheadBatch], b.lines[:aheadBatch]
		k := 0
		for ; k < aheadBatch; k++ {
			if err := r.Next(&ops[k]); err != nil {
				b.err = err
				lines[k] = r.dec.lineNumber()
				break
			}
			lines[k] = r.dec.lineNumber()
		}
		b.ops = ops[:k]
		select {
		case full <- b:
		case <-done:
			return
		}
		if b.err != nil {
			return
		}
	}
}
