package asyncclock

import (
	"fmt"
	"math/rand/v2"

	"github.com/licorice-dev/licorice/internal/msgqueue"
	"github.com/licorice-dev/licorice/traces"
)

// This file composes small random traces for the equivalence test: a
// little simulation of threads, loopers (with Android's queue order from
// internal/msgqueue), binder threads and the outside world. In chaos mode
// loopers run their pending events in any order, so the traces are valid
// but may contradict the causality model: both engines must then agree
// that they do.

type genConfig struct {
	seed    uint64
	ops     int  // about this many operations
	chaos   bool // loopers pick any pending event
	workers int
	loopers int
	binders int // binder threads (serving one binder queue), 0 for none
}

type gen struct {
	cfg     genConfig
	rng     *rand.Rand
	syms    *traces.Symbols
	ops     []traces.Op
	now     int64 // virtual time, ms
	threads []*gthread
	queues  []*gqueue
	ended   []*gthread // ended workers, not joined
	n       int        // names issued
	barrier msgqueue.ID
}

type gthread struct {
	id      traces.Sym
	kind    traces.ThreadKind
	begun   bool
	ended   bool
	queues  []*gqueue
	running *gev
}

type gqueue struct {
	id      traces.Sym
	binder  bool
	mq      msgqueue.Queue
	pending []*gev
	byID    map[msgqueue.ID]*gev
	bars    []msgqueue.ID
}

type gev struct {
	id  traces.Sym
	num msgqueue.ID
	q   *gqueue
}

func (g *gen) sym(prefix string) traces.Sym {
	g.n++
	return g.syms.Intern(fmt.Sprintf("%s%d", prefix, g.n))
}

func (g *gen) emit(op traces.Op) {
	op.TS, op.HasTS = float64(g.now), true
	g.ops = append(g.ops, op)
}

func generate(cfg genConfig) *trace {
	g := &gen{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.seed, 7)), syms: traces.NewSymbols()}
	for range cfg.loopers {
		th := &gthread{id: g.sym("L"), kind: traces.Looper}
		g.threads = append(g.threads, th)
		g.emit(traces.Op{Kind: traces.ThreadBegin, Task: th.id, ThreadKind: traces.Looper})
		th.begun = true
		for range 1 + g.rng.IntN(2) {
			q := &gqueue{id: g.sym("q"), byID: map[msgqueue.ID]*gev{}}
			g.queues = append(g.queues, q)
			th.queues = append(th.queues, q)
			g.emit(traces.Op{Kind: traces.Attach, Task: th.id, Queue: q.id})
		}
		if g.rng.IntN(2) == 0 { // a looper's own op before its events
			g.emit(traces.Op{Kind: traces.Write, Task: th.id, Loc: g.loc(), Val: traces.Int(1)})
		}
	}
	if cfg.binders > 0 {
		q := &gqueue{id: g.sym("bq"), binder: true}
		g.queues = append(g.queues, q)
		for range cfg.binders {
			th := &gthread{id: g.sym("B"), kind: traces.Binder, begun: true, queues: []*gqueue{q}}
			g.threads = append(g.threads, th)
			g.emit(traces.Op{Kind: traces.ThreadBegin, Task: th.id, ThreadKind: traces.Binder})
			g.emit(traces.Op{Kind: traces.Attach, Task: th.id, Queue: q.id})
		}
	}
	for range cfg.workers {
		th := &gthread{id: g.sym("W"), kind: traces.Worker, begun: true}
		g.threads = append(g.threads, th)
		g.emit(traces.Op{Kind: traces.ThreadBegin, Task: th.id})
	}
	for len(g.ops) < cfg.ops {
		g.step()
	}
	// Some threads end, and a worker joins them (LOOPEND, JOIN).
	var joiner *gthread
	for _, th := range g.threads {
		if th.begun && !th.ended && th.kind == traces.Worker {
			joiner = th
		}
	}
	for _, th := range g.threads {
		if th.begun && !th.ended && th.running == nil && th != joiner && g.rng.IntN(2) == 0 {
			g.emit(traces.Op{Kind: traces.ThreadEnd, Task: th.id})
			th.ended = true
			if joiner != nil {
				g.emit(traces.Op{Kind: traces.Join, Task: joiner.id, Thread: th.id})
			}
		}
	}
	lines := make([]int, len(g.ops))
	for i := range lines {
		lines[i] = i + 2
	}
	return &trace{syms: g.syms, ops: g.ops, lines: lines}
}

func (g *gen) loc() traces.Location {
	return traces.Location{Obj: g.syms.Intern("o"), Field: g.syms.Intern(fmt.Sprintf("f%d", g.rng.IntN(3)))}
}

func (g *gen) handle() traces.Sym { return g.syms.Intern(fmt.Sprintf("m%d", g.rng.IntN(3))) }

// step does one thing: an op of a running task, a begin, a send from
// outside, or the passing of time.
func (g *gen) step() {
	if g.rng.IntN(4) == 0 {
		g.now += int64(g.rng.IntN(3))
	}
	if g.rng.IntN(20) == 0 {
		g.send(traces.NoSym)
		return
	}
	th := g.threads[g.rng.IntN(len(g.threads))]
	switch {
	case th.ended || !th.begun:
		if !th.begun && th.kind == traces.Worker {
			g.emit(traces.Op{Kind: traces.ThreadBegin, Task: th.id})
			th.begun = true
		}
	case th.running != nil:
		g.act(th, th.running.id, true)
	case th.kind == traces.Worker:
		g.act(th, th.id, false)
	default:
		if g.rng.IntN(8) == 0 {
			g.act(th, th.id, false)
			return
		}
		g.begin(th)
	}
}

func (g *gen) begin(th *gthread) {
	var ev *gev
	switch {
	case th.kind == traces.Binder:
		q := th.queues[0]
		if len(q.pending) == 0 {
			return
		}
		ev = q.pending[0] // FIFO
		if g.cfg.chaos {
			ev = q.pending[g.rng.IntN(len(q.pending))]
		}
	case g.cfg.chaos:
		var cands []*gev
		for _, q := range th.queues {
			cands = append(cands, q.pending...)
		}
		if len(cands) == 0 {
			return
		}
		ev = cands[g.rng.IntN(len(cands))]
		ev.q.mq.Remove(ev.num)
	default:
		q := th.queues[g.rng.IntN(len(th.queues))]
		if len(q.bars) > 0 && g.rng.IntN(3) == 0 {
			q.mq.RemoveBarrier(q.bars[0])
			q.bars = q.bars[1:]
		}
		id, ok, wake := q.mq.Next(g.now)
		if !ok {
			if wake > g.now && g.rng.IntN(2) == 0 {
				g.now = wake
			}
			return
		}
		ev = q.byID[id]
	}
	g.unpend(ev)
	th.running = ev
	g.emit(traces.Op{Kind: traces.Begin, Task: ev.id, Thread: th.id})
}

func (g *gen) unpend(ev *gev) {
	q := ev.q
	for i, x := range q.pending {
		if x == ev {
			q.pending = append(q.pending[:i], q.pending[i+1:]...)
			return
		}
	}
}

// act emits one op of task t (thread th's own task, or its running event).
func (g *gen) act(th *gthread, t traces.Sym, inEvent bool) {
	switch r := g.rng.IntN(20); {
	case r < 4:
		g.emit(traces.Op{Kind: traces.Write, Task: t, Loc: g.loc(), Val: traces.Int(int64(g.rng.IntN(9)))})
	case r < 6:
		g.emit(traces.Op{Kind: traces.Read, Task: t, Loc: g.loc(), Val: traces.Int(0)})
	case r < 10:
		g.send(t)
	case r < 11:
		g.emit(traces.Op{Kind: traces.Signal, Task: t, Name: g.handle()})
	case r < 13:
		g.emit(traces.Op{Kind: traces.Wait, Task: t, Name: g.handle()})
	case r < 14:
		var cands []*gev
		for _, q := range g.queues {
			if !q.binder {
				cands = append(cands, q.pending...)
			}
		}
		if len(cands) > 0 {
			ev := cands[g.rng.IntN(len(cands))]
			g.unpend(ev)
			ev.q.mq.Remove(ev.num)
			g.emit(traces.Op{Kind: traces.Remove, Task: t, Event: ev.id})
		}
	case r < 15:
		if len(g.threads) < 12 {
			w := &gthread{id: g.sym("W"), kind: traces.Worker}
			g.threads = append(g.threads, w)
			g.emit(traces.Op{Kind: traces.Fork, Task: t, Thread: w.id})
		}
	case r < 16:
		if len(g.ended) > 0 {
			w := g.ended[0]
			g.ended = g.ended[1:]
			g.emit(traces.Op{Kind: traces.Join, Task: t, Thread: w.id})
		}
	default:
		if inEvent {
			g.emit(traces.Op{Kind: traces.End, Task: t})
			th.running = nil
		} else if th.kind == traces.Worker && g.rng.IntN(3) == 0 {
			g.emit(traces.Op{Kind: traces.ThreadEnd, Task: t})
			th.ended = true
			g.ended = append(g.ended, th)
		}
	}
}

// send sends a new event from task t (NoSym: from outside).
func (g *gen) send(t traces.Sym) {
	q := g.queues[g.rng.IntN(len(g.queues))]
	ev := &gev{id: g.sym("E"), q: q}
	g.n++
	ev.num = msgqueue.ID(g.n)
	op := traces.Op{Kind: traces.Send, Task: t, Queue: q.id, Event: ev.id}
	op.External = t == traces.NoSym || g.rng.IntN(8) == 0
	op.Async = g.rng.IntN(3) == 0
	if !q.binder {
		switch r := g.rng.IntN(10); {
		case r < 2:
			op.SendKind = traces.AtFront
			q.mq.PostAtFront(ev.num, op.Async)
		case r < 4:
			op.SendKind = traces.AtTime
			op.Time = g.now + int64(g.rng.IntN(3))
			q.mq.Post(ev.num, op.Time, op.Async)
		default:
			if g.rng.IntN(2) == 0 {
				op.Time = int64(g.rng.IntN(3))
			}
			q.mq.Post(ev.num, g.now+op.Time, op.Async)
		}
		if g.rng.IntN(10) == 0 {
			g.barrier++
			q.mq.PostBarrier(g.barrier+1<<40, g.now)
			q.bars = append(q.bars, g.barrier+1<<40)
		}
		q.byID[ev.num] = ev
	}
	q.pending = append(q.pending, ev)
	g.emit(op)
}
