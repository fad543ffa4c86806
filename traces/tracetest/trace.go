package tracetest

import (
	"context"
	"fmt"
	"io"

	"github.com/licorice-dev/licorice/traces"
)

// Trace is a generated trace held in memory, for tests.
type Trace struct {
	Header  traces.Header
	Symbols *traces.Symbols
	Ops     []traces.Op // in trace order; Ops[i] is on line i+2 of the text form
}

// Generate returns the whole trace that cfg describes.
func Generate(cfg Config) *Trace {
	g := NewGenerator(cfg)
	t := &Trace{Header: *g.Header(), Symbols: g.Symbols()}
	var op traces.Op
	for g.Next(&op) {
		t.Ops = append(t.Ops, op)
	}
	return t
}

// Encode writes t to w in format f.
func (t *Trace) Encode(w io.Writer, f traces.Format) error {
	tw, err := traces.NewWriter(w, f, &t.Header, t.Symbols)
	if err != nil {
		return err
	}
	for i := range t.Ops {
		if err := tw.Write(&t.Ops[i]); err != nil {
			return fmt.Errorf("op %d: %w", i+1, err)
		}
	}
	return tw.Close()
}

// symbolLimit is how many strings Write lets the symbol table hold before
// it empties it.
const symbolLimit = 1 << 16

// Write streams the trace that cfg describes to w in format f, in bounded
// memory whatever its size, and returns the number of operations written.
// It stops early with ctx's error if ctx is done.
func Write(ctx context.Context, w io.Writer, f traces.Format, cfg Config) (int64, error) {
	return write(ctx, w, f, cfg, symbolLimit)
}

func write(ctx context.Context, w io.Writer, f traces.Format, cfg Config, limit int) (int64, error) {
	g := NewGenerator(cfg)
	g.RecycleSymbols(limit)
	tw, err := traces.NewWriter(w, f, g.Header(), g.Symbols())
	if err != nil {
		return 0, err
	}
	var op traces.Op
	for g.Next(&op) {
		if err := tw.Write(&op); err != nil {
			return g.Count() - 1, fmt.Errorf("write op %d: %w", g.Count(), err)
		}
		if g.Count()%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return g.Count(), err
			}
		}
	}
	return g.Count(), tw.Close()
}
