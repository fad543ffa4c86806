package eval

import (
	"context"
	"fmt"

	"github.com/licorice-dev/licorice/traces"
)

// Orders is how far a set of training traces varies the order of an
// app's handlers: for each trace, the handlers in the order their first
// event began (the first handler each event calls); a pair of handlers is
// seen both ways if in one trace the first event of one began first and
// in another the other's. Initialization orders are what training misses
// most (a refresh 500 ms after the first load), and what a shuffler that
// reaches far should vary.
type Orders struct {
	Pairs    int // pairs of handlers that ran together in some trace
	BothWays int // of those, the pairs seen in both orders
	seen     map[[2]string]bool
}

// BothWaysSeen reports whether the first events of handlers a and b ran
// in both orders.
func (o *Orders) BothWaysSeen(a, b string) bool {
	return o.seen[[2]string{a, b}] && o.seen[[2]string{b, a}]
}

// CountOrders reads the traces and counts the orders of their handlers'
// first events.
func CountOrders(ctx context.Context, paths []string) (*Orders, error) {
	o := &Orders{seen: make(map[[2]string]bool)}
	for _, path := range paths {
		first, err := firstHandlers(ctx, path)
		if err != nil {
			return nil, err
		}
		for i, a := range first {
			for _, b := range first[i+1:] {
				o.seen[[2]string{a, b}] = true
			}
		}
	}
	for k := range o.seen {
		if k[0] < k[1] {
			o.Pairs++
			if o.seen[[2]string{k[1], k[0]}] {
				o.BothWays++
			}
		} else if !o.seen[[2]string{k[1], k[0]}] {
			o.Pairs++
		}
	}
	return o, nil
}

// firstHandlers returns the handlers of a trace's events in the order
// their first event began.
func firstHandlers(ctx context.Context, path string) ([]string, error) {
	r, err := traces.Open(path)
	if err != nil {
		return nil, fmt.Errorf("orders: %w", err)
	}
	defer r.Close()
	syms := r.Symbols()
	began := make(map[traces.Sym]bool) // events that began and called nothing yet
	done := make(map[traces.Sym]bool)  // handlers listed
	var out []string
	err = traces.Each(ctx, r, func(op *traces.Op) error {
		switch op.Kind {
		case traces.Begin:
			began[op.Task] = true
		case traces.Call:
			if began[op.Task] {
				delete(began, op.Task)
				if !done[op.Name] {
					done[op.Name] = true
					out = append(out, syms.String(op.Name))
				}
			}
		case traces.End:
			delete(began, op.Task)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("orders: %w", err)
	}
	return out, nil
}
