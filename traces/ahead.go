package traces

import (
	"context"
	"io"
)

const (
	// aheadBatch is how many ops the reading goroutine of EachAhead hands
	// over at a time (about 130 KiB, with their lines).
	aheadBatch = 1 << 10
	// aheadBatches is how many batches are in flight: the reading
	// goroutine fills some while the visitor visits others. The reader
	// works in bursts: the first op of a .lct block (up to 64Ki ops)
	// costs the block's decompression and the interning of its strings,
	// about a third of the reading, in one go. A ring of 32Ki ops gives
	// the visitor enough to work on through a burst.
	aheadBatches = 32
	// aheadReturn is how many visited batches the visitor hands back to
	// the reading goroutine at a time. Each hand-back wakes the reading
	// goroutine if it is parked, and it then fills them all in one go:
	// waking a parked goroutine on the other core takes tens to hundreds
	// of microseconds (more on a busy host), which the visitor, holding
	// the rest of the ring, does not wait for. Handing back one batch at
	// a time woke the reader for every batch, and the wake-ups held it up
	// until the visitor ran dry (docs/performance.md, the eighth round
	// of "Happens-before engines").
	aheadReturn = 8
)

// ChunkLen is the most ops [EachChunkAhead] hands its visitor at a time,
// and how far ahead of them it asks the CPU for the next ones. The
// reading goroutine wrote the ops on the other core, up to a ring (4 MB)
// earlier: the first read of every op missed the visitor's caches, and
// the hardware's prefetching does not follow a visitor that does much
// else between ops.
const ChunkLen = 16

// batch is ops read ahead, with their lines, and the error that ended the
// reading if it ended after them.
type batch struct {
	ops   []Op
	lines []int
	err   error
}

// EachAhead is [Each] with the reading (decoding, interning, validation,
// progress reports) done by another goroutine, up to about 32k ops ahead
// of visit, so that a trace is read on one core while it is analysed on
// another. visit sees the same ops, in the same order, and the same first
// error, as with Each; during it, r's Line and Count describe the op
// visited, and r's Symbols may be used from visit, except for Reset. r
// is read only by EachAhead's own goroutine until it returns, and then
// may have read ahead of the last op visited: do not call r.Next after
// it, other than to see that the trace is done.
func EachAhead(ctx context.Context, r *Reader, visit func(op *Op) error) error {
	return EachChunkAhead(ctx, r, func(ops []Op, lines []int) error {
		first := r.visitedCount - len(ops) // the count before the chunk
		for i := range ops {
			r.visitedLine, r.visitedCount = lines[i], first+i+1
			if err := visit(&ops[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// EachChunkAhead is [EachAhead] for a visitor that takes the ops a few at
// a time (at most ChunkLen), with their lines: it costs the visitor one
// call per chunk instead of one per op, and asks the CPU for the next
// chunk's ops while visit works on this one. During visit, r's Line and
// Count describe the chunk's last op.
func EachChunkAhead(ctx context.Context, r *Reader, visit func(ops []Op, lines []int) error) error {
	n := 0
	return eachBatchAhead(ctx, r, func(b *batch) error {
		ops, lines := b.ops, b.lines[:len(b.ops)]
		for lo := 0; lo < len(ops); lo += ChunkLen {
			hi := min(lo+ChunkLen, len(ops))
			if next := ops[hi:min(hi+ChunkLen, len(ops))]; len(next) > 0 {
				prefetchOps(&next[0], len(next))
			}
			r.visitedLine, r.visitedCount = lines[hi-1], n+hi
			if err := visit(ops[lo:hi:hi], lines[lo:hi:hi]); err != nil {
				return err
			}
		}
		n += len(ops)
		return nil
	})
}

// eachBatchAhead runs readAhead on r on another goroutine and calls visit
// with each batch it reads, in order, until the reading ends (nil at the
// end of the trace, or the reader's error after visiting the ops read
// before it), visit fails or ctx is done.
func eachBatchAhead(ctx context.Context, r *Reader, visit func(b *batch) error) error {
	unshare := r.syms.share()
	defer unshare()
	r.visited = true
	full := make(chan *batch, aheadBatches)
	free := make(chan *batch, aheadBatches)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		readAhead(r, free, full, done)
	}()
	defer func() {
		close(done)
		<-stopped
	}()
	var held []*batch // visited, to be handed back
	giveBack := func() {
		for _, b := range held {
			free <- b // never blocks: free has room for every batch
		}
		held = held[:0]
	}
	for {
		if err := ctx.Err(); err != nil { // once a batch: every aheadBatch ops
			return err
		}
		var b *batch
		select {
		case b = <-full:
		default:
			giveBack() // about to wait: the reader must not wait too
			select {
			case b = <-full:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if err := visit(b); err != nil {
			return err
		}
		if b.err != nil {
			if b.err == io.EOF {
				return nil
			}
			r.visitedLine = b.lines[len(b.ops)] // the line of the op that failed, after the last one read
			return b.err
		}
		if held = append(held, b); len(held) == aheadReturn {
			giveBack()
		}
	}
}

// readAhead reads r into the batches it takes from free and hands them to
// full, until the reading ends (the batch that says how is the last) or
// done is closed. It makes the batches as it needs them, up to
// aheadBatches, so that a short trace costs one or two.
func readAhead(r *Reader, free <-chan *batch, full chan<- *batch, done <-chan struct{}) {
	made := 0
	for {
		var b *batch
		select {
		case b = <-free:
		default:
			if made < aheadBatches {
				b = &batch{ops: make([]Op, aheadBatch), lines: make([]int, aheadBatch)}
				made++
				break
			}
			select {
			case b = <-free:
			case <-done:
				return
			}
		}
		k, err := r.fill(b.ops[:aheadBatch], b.lines[:aheadBatch])
		b.ops, b.err = b.ops[:k], err
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
