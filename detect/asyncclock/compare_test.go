package asyncclock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// trace is a trace held in memory for tests.
type trace struct {
	syms  *traces.Symbols
	ops   []traces.Op
	lines []int
}

// generated is the trace tracetest generates for cfg, each op on its line
// of the text form.
func generated(cfg tracetest.Config) *trace {
	tt := tracetest.Generate(cfg)
	tr := &trace{syms: tt.Symbols, ops: tt.Ops, lines: make([]int, len(tt.Ops))}
	for i := range tr.lines {
		tr.lines[i] = i + 2
	}
	return tr
}

// parseTrace reads a JSONL trace (header line optional), validating it.
func parseTrace(t testing.TB, text string) *trace {
	t.Helper()
	tr, err := readTrace(text)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func readTrace(text string) (*trace, error) {
	text = strings.TrimLeft(text, "\n")
	if !strings.HasPrefix(text, `{"licorice_trace"`) {
		text = `{"licorice_trace":1}` + "\n" + text
	}
	r, err := traces.NewReader(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	tr := &trace{syms: r.Symbols()}
	var op traces.Op
	for {
		err := r.Next(&op)
		if errors.Is(err, io.EOF) {
			return tr, nil
		}
		if err != nil {
			return nil, err
		}
		tr.ops = append(tr.ops, op)
		tr.lines = append(tr.lines, r.Line())
	}
}

// text prints tr as a JSONL trace.
func (tr *trace) text() string {
	b := traces.AppendCanonicalHeader(nil, &traces.Header{Version: traces.Version})
	for i := range tr.ops {
		b = traces.AppendCanonical(b, &tr.ops[i], tr.syms)
	}
	return string(b)
}

// engineRun is what the AsyncClock engine computed for a trace.
type engineRun struct {
	e      *Engine
	times  []Time
	epochs []Epoch
	err    error
}

func runEngine(tr *trace, cfg Config) *engineRun { return runEngineKeeping(tr, cfg, true) }

// runEngineLean is runEngine as Run works, without Config.KeepEvents: the
// engine reclaims events (and recycles them) as soon as nothing needs
// them. A thread releases its ended events two at a time rather than 64,
// so that short traces go through that too.
func runEngineLean(tr *trace, cfg Config) *engineRun { return runEngineKeeping(tr, cfg, false) }

func runEngineKeeping(tr *trace, cfg Config, keep bool) *engineRun {
	cfg.KeepEvents = keep
	if cfg.GCEvery == 0 {
		cfg.GCEvery = 3 // collect often, so that collection is tested too
	}
	r := &engineRun{e: New(tr.syms, cfg)}
	if !keep {
		r.e.recentBatch = 2
	}
	for i := range tr.ops {
		if err := r.e.Step(&tr.ops[i], tr.lines[i]); err != nil {
			r.err = err
			return r
		}
		r.times = append(r.times, r.e.Time())
		r.epochs = append(r.epochs, r.e.Epoch())
	}
	r.err = r.e.Finish()
	return r
}

// before is the engine's answer to "op a happens before op b".
func (r *engineRun) before(a, b int) bool {
	return a < b && r.times[b].Covers(r.epochs[a])
}

// compare runs both engines on tr and returns nil if they agree: on
// whether tr is consistent, and if it is, on every pair of operations and
// every pair of events; and then, with the engine reclaiming events as Run
// does (runEngineLean), on consistency and every pair of operations (the
// events reclaimed can no longer be asked about).
func compare(tr *trace, cfg Config) error {
	window := cfg.Window
	g, gerr := NewGraphConfig(context.Background(), tr.syms, tr.ops, tr.lines, cfg)
	var ce *ConflictError
	if gerr != nil && !errors.As(gerr, &ce) {
		return fmt.Errorf("reference engine: %v", gerr)
	}
	r := runEngine(tr, cfg)
	if err := sameOpOrder(tr, g, gerr, r); err != nil || gerr != nil {
		return err
	}
	if err := sameOpOrder(tr, g, gerr, runEngineLean(tr, cfg)); err != nil {
		return fmt.Errorf("without KeepEvents: %w", err)
	}
	ids := g.Events()
	for _, a := range ids {
		for _, b := range ids {
			if a == b {
				continue
			}
			if _, ok := g.Run(a); ok && window > 0 {
				continue // with the window, run(E) may miss predecessors that had become old
			}
			if _, ok := g.Run(b); ok && window > 0 {
				continue
			}
			want := g.Order(a, b)
			got, err := r.e.Order(a, b)
			if err != nil {
				return fmt.Errorf("asyncclock: %v", err)
			}
			if want != got {
				sa, fa, _ := g.EventNodes(a)
				sb, fb, _ := g.EventNodes(b)
				_, _ = sa, fb
				return fmt.Errorf("events: the reference says %s is %v %s, asyncclock says %v%s",
					tr.syms.String(a), want, tr.syms.String(b), got, why(g, fa, sb))
			}
		}
	}
	return nil
}

// sameOpOrder returns nil if r, the engine's run of tr, agrees with the
// reference's graph g (or its error gerr) on whether tr is consistent
// and, if it is, on every pair of operations.
func sameOpOrder(tr *trace, g *Graph, gerr error, r *engineRun) error {
	var ce *ConflictError
	if r.err != nil && !errors.As(r.err, &ce) {
		return fmt.Errorf("asyncclock: %v", r.err)
	}
	switch {
	case gerr != nil && r.err == nil:
		return fmt.Errorf("the reference finds the trace inconsistent (%v), asyncclock does not", gerr)
	case gerr == nil && r.err != nil:
		return fmt.Errorf("asyncclock finds the trace inconsistent (%v), the reference does not", r.err)
	case gerr != nil:
		return nil
	}
	n := len(tr.ops)
	for b := range n {
		for a := range n {
			if a == b {
				continue
			}
			want, got := g.Before(Node(a), Node(b)), r.before(a, b)
			if want != got {
				return fmt.Errorf("ops: the reference says %s ≺ %s is %v, asyncclock says %v (times %v and %v)%s",
					g.Describe(Node(a)), g.Describe(Node(b)), want, got, r.epochs[a], r.times[b], why(g, Node(a), Node(b)))
			}
		}
	}
	return nil
}

func why(g *Graph, a, b Node) string {
	if a < 0 || b < 0 || !g.Before(a, b) {
		return ""
	}
	var s strings.Builder
	s.WriteString("\nreference chain:")
	for _, st := range g.Explain(a, b) {
		fmt.Fprintf(&s, "\n  %s -%s-> %s", g.Describe(st.From), st.Rule, g.Describe(st.To))
	}
	return s.String()
}
