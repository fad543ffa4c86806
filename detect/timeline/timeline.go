package timeline

import (
	"context"
	"slices"

	"github.com/licorice-dev/licorice/traces"
)

// Request asks for the neighbourhood of two operations of a trace: an op
// of each of two tasks (events, or threads for ops outside any event).
type Request struct {
	Tasks [2]string
	Lines [2]int
}

// Window is what a picture of one request shows.
type Window struct {
	Lanes  []Lane  // the threads, in the order they first appear in the trace
	Boxes  []Box   // in trace order of their begin
	Arrows []Arrow // sends, forks and signal handoffs between what is drawn
	// Pair are the indexes in Boxes of the two tasks' boxes.
	Pair [2]int
	// Gaps are where events between those drawn are left out (the two
	// tasks are far apart in the trace).
	Gaps []Gap
}

// Gap is a run of events left out: after line Line, Events of them.
type Gap struct {
	Line   int
	Events int
}

// Lane is a thread.
type Lane struct {
	Thread string
	Name   string // its name, if the trace gives one
	Looper bool   // it runs events
}

// Box is an event on its thread, or (Op) one op of a thread outside any
// event.
type Box struct {
	Task    string
	Lane    int
	Handler string // the first handler it called
	Begin   int    // lines
	End     int    // 0: still running when the trace ended
	Op      bool
}

// Arrow is an order the trace shows between two of its points: a send
// (From to the box To), a fork (From to the new thread's first op) or a
// signal handoff (From to the wait, At). From's lane is -1 for an event
// sent from outside the program.
type Arrow struct {
	Kind     string // "send", "fork" or "signal"
	FromLane int
	FromLine int
	ToBox    int // send: the box of the event sent; otherwise -1
	ToLane   int
	ToLine   int
}

// Around is how many events before and after each of the two a window
// draws.
const Around = 4

// event is what a pass keeps about each event.
type event struct {
	task, thread, handler traces.Sym
	begin, end            int
	sender                traces.Sym // NoSym: sent from outside
	sendLine              int
}

type handoff struct {
	kind           string
	from, to       traces.Sym // tasks
	fromLine, line int
}

// Extract reads the trace at path (named name in errors) once and
// returns a window for each request, in order.
func Extract(ctx context.Context, path, name string, reqs []Request) ([]Window, error) {
	syms := traces.NewSymbols()
	r, err := traces.Open(path, traces.WithSymbols(syms), traces.WithName(name))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var (
		events   []event
		byTask   = map[traces.Sym]int{} // event -> index, once begun
		sent     = map[traces.Sym]event{}
		threads  []traces.Sym
		started  = map[traces.Sym]bool{} // threads
		names    = map[traces.Sym]traces.Sym{}
		loopers  = map[traces.Sym]bool{}
		handoffs []handoff
		signals  = map[traces.Sym]handoff{} // handle -> last signal
		// pendingFork: a forked thread that has not run yet -> its fork.
		pendingFork = map[traces.Sym]int{}
	)
	addThread := func(t traces.Sym) {
		if !started[t] && t != traces.NoSym {
			started[t] = true
			threads = append(threads, t)
		}
	}
	err = traces.EachChunkAhead(ctx, r, func(ops []traces.Op, lines []int) error {
		for i := range ops {
			op, line := &ops[i], lines[i]
			switch op.Kind {
			case traces.ThreadBegin:
				addThread(op.Task)
				if op.Name != traces.NoSym {
					names[op.Task] = op.Name
				}
			case traces.Send:
				sent[op.Event] = event{task: op.Event, sendLine: line, sender: op.Task} // NoSym from outside
			case traces.Begin:
				e, ok := sent[op.Task]
				if !ok {
					e = event{task: op.Task, sender: traces.NoSym}
				}
				delete(sent, op.Task)
				e.thread, e.begin = op.Thread, line
				addThread(op.Thread)
				loopers[op.Thread] = true
				byTask[op.Task] = len(events)
				events = append(events, e)
			case traces.End:
				if i, ok := byTask[op.Task]; ok {
					events[i].end = line
				}
			case traces.Call:
				if i, ok := byTask[op.Task]; ok && events[i].handler == traces.NoSym && events[i].end == 0 {
					events[i].handler = op.Name
				}
			case traces.Fork:
				addThread(op.Thread)
				pendingFork[op.Thread] = len(handoffs)
				handoffs = append(handoffs, handoff{kind: "fork", from: op.Task, to: op.Thread, fromLine: line})
				continue
			case traces.Signal:
				signals[op.Name] = handoff{kind: "signal", from: op.Task, fromLine: line}
			case traces.Wait:
				if s, ok := signals[op.Name]; ok {
					s.to, s.line = op.Task, line
					handoffs = append(handoffs, s)
				}
			}
			// A fork's arrow ends at the new thread's first op.
			if len(pendingFork) > 0 {
				if j, ok := pendingFork[op.Task]; ok {
					handoffs[j].line = line
					delete(pendingFork, op.Task)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err // it names the trace and the line
	}
	x := &index{syms: syms, events: events, byTask: byTask, threads: threads, names: names, loopers: loopers, handoffs: handoffs}
	out := make([]Window, len(reqs))
	for k, req := range reqs {
		out[k] = x.window(req)
	}
	return out, nil
}

// index is what a pass over a trace keeps for its windows.
type index struct {
	syms     *traces.Symbols
	events   []event            // in the order they began
	byTask   map[traces.Sym]int // event -> its index in events
	threads  []traces.Sym       // in the order the trace starts them
	names    map[traces.Sym]traces.Sym
	loopers  map[traces.Sym]bool
	handoffs []handoff
}

// threadOf returns the thread an event ran on, or task itself (a thread).
func (x *index) threadOf(task traces.Sym) traces.Sym {
	if i, ok := x.byTask[task]; ok {
		return x.events[i].thread
	}
	return task
}

// window lays out what req asks for.
func (x *index) window(req Request) Window {
	syms, events, byTask, threadOf := x.syms, x.events, x.byTask, x.threadOf
	var w Window
	// placed is a box and the task it draws.
	type placed struct {
		box  Box
		task traces.Sym
	}
	// The events drawn: Around on each side of each of the two.
	keep := map[int]bool{}
	var ops []placed // the tasks that are threads: one op each
	centre := func(task string, line int) {
		sym, ok := syms.Lookup(task)
		if !ok {
			return
		}
		i, isEvent := byTask[sym]
		if !isEvent {
			// A thread's op: the events around its line.
			i, _ = slices.BinarySearchFunc(events, line, func(e event, l int) int { return e.begin - l })
			ops = append(ops, placed{Box{Task: task, Begin: line, End: line, Op: true}, sym})
		} else {
			keep[i] = true
		}
		for j := max(0, i-Around); j < min(len(events), i+Around+1); j++ {
			keep[j] = true
		}
	}
	centre(req.Tasks[0], req.Lines[0])
	centre(req.Tasks[1], req.Lines[1])
	idx := make([]int, 0, len(keep))
	for i := range keep {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for n := 1; n < len(idx); n++ {
		if k := idx[n] - idx[n-1] - 1; k > 0 {
			w.Gaps = append(w.Gaps, Gap{Line: events[idx[n]].begin - 1, Events: k})
		}
	}
	used := map[traces.Sym]bool{} // the threads drawn
	var all []placed
	for _, i := range idx {
		e := events[i]
		used[e.thread] = true
		all = append(all, placed{Box{Task: syms.String(e.task), Handler: syms.String(e.handler), Begin: e.begin, End: e.end}, e.task})
	}
	for _, p := range ops {
		used[p.task] = true
		all = append(all, p)
	}
	if len(all) == 0 {
		return Window{Pair: [2]int{-1, -1}}
	}
	slices.SortStableFunc(all, func(a, b placed) int { return a.box.Begin - b.box.Begin })
	lo, hi := all[0].box.Begin, 0 // the lines drawn
	for _, p := range all {
		hi = max(hi, p.box.Begin, p.box.End)
	}
	// Lanes in the order of the trace's threads.
	laneOf := map[traces.Sym]int{}
	for _, t := range x.threads {
		if used[t] {
			laneOf[t] = len(w.Lanes)
			w.Lanes = append(w.Lanes, Lane{Thread: syms.String(t), Name: syms.String(x.names[t]), Looper: x.loopers[t]})
		}
	}
	w.Pair = [2]int{-1, -1}
	boxed := map[traces.Sym]bool{} // the events drawn
	for n, p := range all {
		b := p.box
		b.Lane = laneOf[threadOf(p.task)]
		w.Boxes = append(w.Boxes, b)
		if !b.Op {
			boxed[p.task] = true
		}
		for k := range 2 {
			if b.Task == req.Tasks[k] && w.Pair[k] < 0 && (!b.Op || b.Begin == req.Lines[k]) {
				w.Pair[k] = n
			}
		}
	}
	// Sends to the events drawn, from a lane drawn (or from outside).
	for n, p := range all {
		if p.box.Op {
			continue
		}
		e := events[byTask[p.task]]
		a := Arrow{Kind: "send", FromLane: -1, FromLine: e.sendLine, ToBox: n, ToLane: w.Boxes[n].Lane, ToLine: e.begin}
		if e.sender != traces.NoSym {
			l, ok := laneOf[threadOf(e.sender)]
			if !ok || e.sendLine < lo {
				continue
			}
			a.FromLane = l
		} else if e.sendLine < lo {
			a.FromLine = lo
		}
		w.Arrows = append(w.Arrows, a)
	}
	// Forks and signal handoffs between what is drawn: an event drawn, or
	// a thread's own code on a lane drawn.
	drawn := func(task traces.Sym) (int, bool) {
		if _, isEvent := byTask[task]; isEvent && !boxed[task] {
			return 0, false
		}
		l, ok := laneOf[threadOf(task)]
		return l, ok
	}
	for _, h := range x.handoffs {
		if h.fromLine < lo || h.line > hi || h.line == 0 {
			continue
		}
		fl, ok1 := drawn(h.from)
		tl, ok2 := drawn(h.to)
		if ok1 && ok2 && fl != tl {
			w.Arrows = append(w.Arrows, Arrow{Kind: h.kind, FromLane: fl, FromLine: h.fromLine, ToBox: -1, ToLane: tl, ToLine: h.line})
		}
	}
	return w
}
