package learn

import (
	"context"
	"errors"

	"github.com/licorice-dev/licorice/traces"
)

// Cut is a training trace with an error op, learned from up to it.
type Cut struct {
	Path string
	Line int    // the line of the error op
	Msg  string // its message
	// Whole: the trace could not be read again (standard input), so none
	// of it was learned from.
	Whole bool
}

// maxCauses bounds the tasks left out of a cut trace: the failing task
// and, up its causes, at most this many.
const maxCauses = 64

// correctInvocations streams a trace's invocations to visit, as a Sampler
// makes them (newSampler), with the line of the op that ended each, as
// long as the trace is a correct execution.
//
// A trace with an error op is not one. What ran before the error is a
// correct execution as far as it goes, except where the failure began:
// the failing task read or did something wrong, and so, perhaps, did the
// tasks that caused it — a Node.js callback reports the error its I/O
// met, which an earlier callback started on a bad value. So at the first
// error op, visit's work is undone (reset), and, if the trace can be read
// again (reopen, nil for standard input), it is read up to the error and
// every invocation is visited but those of the failing task and its
// causes: its sender, the sender of that, and so on, and for a thread,
// who forked it and whose signals it waited on (at most maxCauses). It
// returns the Cut, or nil for a correct trace.
func correctInvocations(ctx context.Context, r *traces.Reader, reopen func() (*traces.Reader, error),
	newSampler func() *Sampler, visit func(inv *Invocation, line int), reset func()) (*Cut, error) {
	s := newSampler()
	cs := newCauses()
	var cut *Cut
	var failing traces.Sym
	err := traces.Each(ctx, r, func(op *traces.Op) error {
		if op.Kind == traces.Error {
			cut = &Cut{Path: r.Name(), Line: r.Line(), Msg: r.Symbols().String(op.Name)}
			failing = op.Task
			return errStop
		}
		cs.step(op)
		if inv := s.Step(op); inv != nil {
			visit(inv, r.Line())
		}
		return nil
	})
	if cut == nil {
		return nil, err
	}
	reset()
	if reopen == nil {
		cut.Whole = true
		return cut, nil
	}
	leaveOut := cs.ancestors(failing)
	r2, err := reopen()
	if err != nil {
		return nil, err
	}
	defer r2.Close()
	s = newSampler()
	err = traces.Each(ctx, r2, func(op *traces.Op) error {
		if op.Kind == traces.Error {
			return errStop
		}
		if inv := s.Step(op); inv != nil && !leaveOut[inv.Task] {
			visit(inv, r2.Line())
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	return cut, nil
}

// errStop stops a pass at an error op.
var errStop = errors.New("stop at the error")

// causes records, as a trace is read, what caused each task: an event's
// sender, a thread's forker, and the last signaller of each handle a
// thread waited on (its first few waits).
type causes struct {
	sender    map[traces.Sym]traces.Sym
	forker    map[traces.Sym]traces.Sym
	signaller map[traces.Sym]traces.Sym
	waited    map[traces.Sym][]traces.Sym
}

func newCauses() *causes {
	return &causes{
		sender: make(map[traces.Sym]traces.Sym), forker: make(map[traces.Sym]traces.Sym),
		signaller: make(map[traces.Sym]traces.Sym), waited: make(map[traces.Sym][]traces.Sym),
	}
}

// maxWaited bounds the waits of a thread that count as its causes.
const maxWaited = 4

func (c *causes) step(op *traces.Op) {
	switch op.Kind {
	case traces.Send:
		if op.Task != traces.NoSym {
			c.sender[op.Event] = op.Task
		}
	case traces.Fork:
		c.forker[op.Thread] = op.Task
	case traces.Signal:
		c.signaller[op.Name] = op.Task
	case traces.Wait:
		if s, ok := c.signaller[op.Name]; ok && len(c.waited[op.Task]) < maxWaited {
			c.waited[op.Task] = append(c.waited[op.Task], s)
		}
	}
}

// ancestors returns task and the tasks that caused it, up to maxCauses.
func (c *causes) ancestors(task traces.Sym) map[traces.Sym]bool {
	out := map[traces.Sym]bool{}
	todo := []traces.Sym{task}
	for len(todo) > 0 && len(out) < maxCauses {
		t := todo[0]
		todo = todo[1:]
		if t == traces.NoSym || out[t] {
			continue
		}
		out[t] = true
		if s, ok := c.sender[t]; ok {
			todo = append(todo, s)
		}
		if f, ok := c.forker[t]; ok {
			todo = append(todo, f)
		}
		todo = append(todo, c.waited[t]...)
	}
	return out
}
