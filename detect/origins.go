package detect

import (
	"context"
	"errors"

	"github.com/licorice-dev/licorice/traces"
)

// originRec is what an explanation says of an event (a Link): how it was
// sent and from where, the thread it ran on and the first handler it
// called. The second pass does not keep it for every event (a million
// of them in a long trace); readOrigins reads the trace once more for
// the few that reports name.
type originRec struct {
	send     opBy // Task NoSym: sent from outside the program
	time     int64
	thread   traces.Sym
	handler  traces.Sym
	kind     traces.SendKind
	external bool
}

// wantOrigins adds to want the events that origins(task) names: task and
// its senders, up to maxOrigins links, through the forks of threads.
func (t *tracker) wantOrigins(task traces.Sym, want map[traces.Sym]*originRec) {
	seen := map[traces.Sym]bool{}
	for n := 0; n < maxOrigins && task != traces.NoSym && !seen[task]; n++ {
		seen[task] = true
		if ev := t.events.get(task); ev != nil {
			if want[task] == nil {
				want[task] = &originRec{}
			}
			task = ev.sender
		} else {
			task = t.forks[task].task // NoSym if not forked
		}
	}
}

// errOriginsRead stops readOrigins once every event it wants has ended.
var errOriginsRead = errors.New("origins read")

// readOrigins reads trace src once more, with the symbols of its passes,
// and fills in the records of want as the second pass would have made
// them (its sends, begins and calls, following the handlers alike).
func (t *tracker) readOrigins(ctx context.Context, src source, want map[traces.Sym]*originRec) error {
	h := newHandlerStacks()
	left := len(want) // not yet ended
	err := readTrace(ctx, src, t.syms, nil, func(op *traces.Op, _ int64, line int) error {
		switch op.Kind {
		case traces.Send:
			if r := want[op.Event]; r != nil {
				r.send = opBy{task: op.Task, handler: h.of(op.Task), line: line, src: op.Src}
				if op.External {
					r.send = opBy{line: line, src: op.Src}
				}
				r.time, r.kind, r.external = op.Time, op.SendKind, op.External
			}
		case traces.Begin:
			if t.events.get(op.Task) != nil {
				h.begin(op.Task)
			}
			if r := want[op.Task]; r != nil {
				r.thread = op.Thread
			}
		case traces.Call:
			if h.call(op.Task, op.Name) {
				if r := want[op.Task]; r != nil {
					r.handler = op.Name
				}
			}
		case traces.Ret:
			h.ret(op.Task)
		case traces.End:
			h.end(op.Task)
			if want[op.Task] != nil {
				if left--; left == 0 {
					return errOriginsRead
				}
			}
		}
		return nil
	})
	if errors.Is(err, errOriginsRead) {
		return nil
	}
	return err
}
