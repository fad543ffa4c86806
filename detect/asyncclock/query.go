package asyncclock

import (
	"context"
	"fmt"
	"slices"

	"github.com/licorice-dev/licorice/traces"
)

// Finish ends the run: it resolves the time of removed events no later
// event needed (so that they can be queried). Steps after Finish fail.
func (e *Engine) Finish() error {
	if e.err != nil {
		return e.err
	}
	if e.finished {
		return nil
	}
	e.finished = true
	var removed []*event
	for _, q := range e.queueOrder {
		for _, ev := range q.pending {
			if ev.status == evRemoved {
				removed = append(removed, ev)
			}
		}
	}
	slices.SortFunc(removed, func(a, b *event) int { return int(a.sendSeq - b.sendSeq) })
	w := walk{e: e, mode: final}
	for _, ev := range removed {
		if ev.status == evRemoved {
			if err := e.resolve(ev, &w); err != nil {
				return err
			}
		}
	}
	return nil
}

// Order is how two events are ordered.
type Order int8

const (
	Concurrent Order = iota // neither happens before the other
	Before                  // the first happens before the second
	After                   // the second happens before the first
)

func (o Order) String() string {
	switch o {
	case Before:
		return "before"
	case After:
		return "after"
	}
	return "concurrent"
}

// EventStatus is where an event is in its life.
type EventStatus uint8

const (
	Pending EventStatus = iota + 1 // sent, not begun (or never run)
	Running                        // begun, not ended
	Ended                          // ran to its end
	Removed                        // removed before it ran
)

func (s EventStatus) String() string {
	switch s {
	case Pending:
		return "pending"
	case Running:
		return "running"
	case Ended:
		return "ended"
	case Removed:
		return "removed"
	}
	return "invalid"
}

// EventInfo is what the engine knows of an event.
type EventInfo struct {
	Status EventStatus
	// Chain is the event's chain, once it began (or, removed, once its
	// time is resolved).
	Chain Chain
	// Begin is the time of its begin; for a removed event, of run(E),
	// once resolved.
	Begin Time
	// End is the epoch of its end (of run(E) for a removed event); 0 until
	// it finished.
	End Epoch
	// EndTime is the time at its end while its metadata is held.
	EndTime Time
	// SendLine, BeginLine and EndLine are the lines of its operations (0
	// for those it has not done).
	SendLine, BeginLine, EndLine int
}

// started reports whether the event has a begin (or a resolved run).
func (i *EventInfo) started() bool { return i.Chain != 0 }

// Precedes reports whether the event happens before event b: whether its
// end happens before b's begin.
func (i EventInfo) Precedes(b EventInfo) bool {
	return i.End != 0 && b.started() && b.Begin.Covers(i.End)
}

// Event returns what the engine knows of event id, if it is tracked: sent
// and not yet reclaimed (with Config.KeepEvents, every event sent).
func (e *Engine) Event(id traces.Sym) (EventInfo, bool) {
	ev := e.events.get(id)
	if ev == nil {
		return EventInfo{}, false
	}
	info := EventInfo{SendLine: ev.sendLine, BeginLine: ev.beginLine, EndLine: ev.endLine}
	switch ev.status {
	case evPending:
		info.Status = Pending
	case evRunning:
		info.Status = Running
	case evEnded:
		info.Status = Ended
	default:
		info.Status = Removed
	}
	if ev.status == evRunning || ev.finished() {
		info.Chain, info.Begin = ev.chain, ev.begin
	}
	if ev.finished() {
		info.End = ev.endEpoch()
		info.EndTime = ev.end
	}
	return info, true
}

// Resolutions counts the removed events whose time the engine has
// resolved and the events it has reclaimed, so far: a caller that waits
// for some to be resolved or forgotten (Event) need not look again until
// the count changes.
func (e *Engine) Resolutions() int64 { return e.stats.Resolved + e.stats.Reclaimed }

// Order says how events a and b are ordered (docs/causality.md,
// "Queries"): a happens before b if a's end happens before b's begin. A
// pending event, and a removed one whose time is not resolved yet, is
// ordered with nothing. Both must be tracked.
func (e *Engine) Order(a, b traces.Sym) (Order, error) {
	ia, ok := e.Event(a)
	if !ok {
		return 0, fmt.Errorf("event %s is not tracked", e.name(a))
	}
	ib, ok := e.Event(b)
	if !ok {
		return 0, fmt.Errorf("event %s is not tracked", e.name(b))
	}
	switch {
	case ia.Precedes(ib):
		return Before, nil
	case ib.Precedes(ia):
		return After, nil
	}
	return Concurrent, nil
}

// Run streams the trace r reads through a new engine, calling visit (if
// not nil) after each operation with the engine, which gives the
// operation's time. It stops at the first error: the reader's, the
// engine's (a *ConflictError for a trace that contradicts the model), or
// visit's. It returns the engine, finished, for queries about events.
func Run(ctx context.Context, r *traces.Reader, cfg Config, visit func(op *traces.Op, e *Engine) error) (*Engine, error) {
	e := New(r.Symbols(), cfg)
	e.SetFile(r.Name())
	err := traces.EachChunkAhead(ctx, r, func(ops []traces.Op, lines []int) error {
		lines = lines[:len(ops)]
		for i := range ops {
			if err := e.Step(&ops[i], lines[i]); err != nil {
				return err
			}
			if visit != nil {
				if err := visit(&ops[i], e); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return e, err
	}
	return e, e.Finish()
}
