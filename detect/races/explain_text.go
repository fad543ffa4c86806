package races

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/internal/jsonout"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
)

// finish reads what the run found into an Explanation; the engine has
// finished if the search was not done before the end of the trace.
func (x *explainer) finish() (*Explanation, error) {
	if !x.done && len(x.unresolved) > 0 {
		x.resolved()
	}
	ex := &Explanation{A: x.name(x.a), B: x.name(x.b)}
	for _, id := range []traces.Sym{x.a, x.b} {
		if x.events[id] == nil {
			return nil, fmt.Errorf("event %s is not in the trace (no send of it)", x.name(id))
		}
	}
	src := x.src
	// The engine's answer and the search's must agree, but for the time
	// window: AsyncClock's run(E) of a removed event may miss predecessors
	// older than the window (asyncclock's documentation), where the rules
	// still order them.
	engine := src != nil && x.dstKnown && src.endEpoch != 0 && x.dstStart.Covers(src.endEpoch)
	ordered := x.target >= 0
	if engine != ordered {
		if x.window == 0 {
			return nil, fmt.Errorf("hb: AsyncClock and the rule search disagree on %s and %s; please report this trace", x.name(x.a), x.name(x.b))
		}
		if ordered {
			ex.Note = "AsyncClock's time-window approximation misses this order (the run of a removed event loses predecessors older than the window), so \"licorice races\" may report races between them"
		} else {
			ex.Note = "AsyncClock's time-window approximation orders them, but no chain of rules does: with --window 0 they are concurrent"
		}
	}
	if !ordered {
		ex.Concurrent = x.concurrency()
		return ex, nil
	}
	ex.Order = asyncclock.Before
	if src.id == x.b {
		ex.Order = asyncclock.After
	}
	for n := x.target; x.nodes.at(n).pred >= 0; n = x.nodes.at(n).pred {
		to, from := x.nodes.at(n), x.nodes.at(x.nodes.at(n).pred)
		ex.Steps = append(ex.Steps, Step{Rule: to.rule, From: x.point(from), To: x.point(to), Why: x.why(from, to)})
	}
	slices.Reverse(ex.Steps)
	return ex, nil
}

// point describes node n.
func (x *explainer) point(n *xNode) Point {
	p := Point{Line: int(n.line), Op: n.kind.String(), Task: x.name(n.task)}
	if n.ev != nil {
		p.Event = x.name(n.ev.id)
	}
	by := ""
	if n.task != traces.NoSym {
		by = " by " + x.task(n.task)
	}
	switch n.kind {
	case 0:
		p.Op, p.Task = "run", ""
		p.What = fmt.Sprintf("run(%s), which stands for %s: it was removed", x.name(n.aux), x.name(n.aux))
	case traces.Begin:
		p.What = fmt.Sprintf("begin of %s on %s", x.name(n.aux), x.thread(n.ev.th))
	case traces.End:
		p.What = "end of " + x.name(n.aux)
	case traces.Send:
		what := "send"
		if n.ev.external {
			what = "external send"
		}
		p.What = fmt.Sprintf("%s of %s to %s%s", what, x.name(n.aux), x.name(n.ev.q.id), by)
	case traces.ThreadBegin:
		p.What = "begin of thread " + x.name(n.aux)
	case traces.ThreadEnd:
		p.What = "end of thread " + x.name(n.aux)
	case traces.Fork:
		p.What = fmt.Sprintf("fork of thread %s%s", x.name(n.aux), by)
	case traces.Join:
		p.What = fmt.Sprintf("join of thread %s%s", x.name(n.aux), by)
	case traces.Signal, traces.Wait:
		p.What = fmt.Sprintf("%s on %s%s", n.kind, x.name(n.aux), by)
	default:
		p.What = n.kind.String() + by
	}
	return p
}

// task names a task: "event E3" or "thread T1".
func (x *explainer) task(id traces.Sym) string {
	if _, ok := x.threads[id]; ok {
		return "thread " + x.name(id)
	}
	return "event " + x.name(id)
}

func (x *explainer) thread(th *xThread) string {
	if th == nil {
		return "?"
	}
	if th.name != traces.NoSym && th.name != th.id {
		return fmt.Sprintf("%s (%s)", x.name(th.id), x.name(th.name))
	}
	return x.name(th.id)
}

// sendDesc says how e was sent, in Table 3.1's terms.
func sendDesc(e *xEvent) string {
	var s string
	switch {
	case e.kind == traces.AtFront:
		s = "at the front"
	case e.kind == traces.AtTime:
		s = "at time " + strconv.FormatInt(e.time, 10)
	case e.time == 0:
		s = "a plain post"
	default:
		s = "delayed " + strconv.FormatInt(e.time, 10) + " ms"
	}
	if e.async {
		s += ", async"
	}
	return s
}

// why says in words why rule to.rule orders from before to.
func (x *explainer) why(from, to *xNode) string {
	e1, e2 := from.ev, to.ev
	switch to.rule {
	case asyncclock.PO:
		return fmt.Sprintf("%s does line %d before line %d (program order)", x.task(to.task), from.line, to.line)
	case asyncclock.Fork:
		return fmt.Sprintf("thread %s begins after it was forked", x.name(to.aux))
	case asyncclock.Join:
		return fmt.Sprintf("the join of thread %s waits for its end", x.name(to.aux))
	case asyncclock.Signal:
		return fmt.Sprintf("a wait on %s comes after every earlier signal of it", x.name(to.aux))
	case asyncclock.Send:
		if to.kind == 0 {
			return fmt.Sprintf("%s could only have run after it was sent", x.name(e2.id))
		}
		return fmt.Sprintf("%s begins after it was sent", x.name(e2.id))
	case asyncclock.LoopBegin:
		return fmt.Sprintf("thread %s did line %d before it began running %s", x.name(from.task), from.line, x.name(e2.id))
	case asyncclock.LoopEnd:
		return fmt.Sprintf("thread %s ends after every event it ran", x.name(to.task))
	case asyncclock.External:
		return "inputs from outside the program are sent one after the other"
	case asyncclock.Priority:
		return fmt.Sprintf("%s and %s are events of queue %s; %s was sent (line %d, %s) before %s (line %d, %s), and the queue runs it first (PRIORITY, docs/causality.md)",
			x.name(e1.id), x.name(e2.id), x.name(e2.q.id), x.name(e1.id), e1.sendLine, sendDesc(e1), x.name(e2.id), e2.sendLine, sendDesc(e2))
	case asyncclock.AtFront:
		return fmt.Sprintf("%s was sent at the front of queue %s (line %d) while %s waited in it (sent at line %d), so it runs first",
			x.name(e1.id), x.name(e2.q.id), e1.sendLine, x.name(e2.id), e2.sendLine)
	case asyncclock.Atomic:
		return fmt.Sprintf("events of looper %s never interleave: at line %d, %s knows that %s began (line %d), so %s has ended",
			x.thread(e1.th), to.line, x.task(to.task), x.name(e1.id), e1.beginLine, x.name(e1.id))
	case asyncclock.IPCHandle:
		return fmt.Sprintf("binder thread %s handles the transactions of queue %s from one process in order", x.thread(e1.th), x.name(e1.q.id))
	case asyncclock.IPCAsync:
		return fmt.Sprintf("binder thread %s handles the async transactions of one sender in order", x.thread(e1.th))
	case asyncclock.Window:
		switch to.kind {
		case traces.Wait:
			return fmt.Sprintf("approximation: the signal on %s came more than the time window before this wait on %s", x.name(from.aux), x.name(to.aux))
		case traces.ThreadBegin:
			return fmt.Sprintf("approximation: thread %s ended more than the time window before thread %s began", x.name(from.aux), x.name(to.aux))
		}
		return fmt.Sprintf("approximation: %s ended more than the time window before %s began on looper %s", x.name(e1.id), x.name(e2.id), x.thread(e2.th))
	}
	return to.rule.String()
}

// concurrency explains why src and dst (or a and b) are not ordered.
func (x *explainer) concurrency() *Concurrency {
	first, second := x.src, x.dst
	if first == nil {
		first, second = x.events[x.a], x.events[x.b]
	}
	c := &Concurrency{First: x.name(first.id), Second: x.name(second.id)}
	for _, e := range []*xEvent{first, second} {
		if e.status == asyncclock.Pending {
			c.Unrun = fmt.Sprintf("%s never ran: it was still pending when the trace ended, and a pending event is ordered with nothing", x.name(e.id))
		}
	}
	for _, e := range []*xEvent{first, second} {
		c.Reasons = append(c.Reasons, x.sentHow(e))
	}
	if c.Unrun != "" {
		return c
	}
	c.Reasons = append(c.Reasons, x.relation(first, second)...)
	// The earliest events the first happens before.
	for _, i := range x.firstBegins {
		if n := x.nodes.at(i); n.ev != second && len(c.Successors) < 3 {
			c.Successors = append(c.Successors, x.ref(n.ev))
		}
	}
	// The latest events that happen before the second.
	if x.dstKnown {
		for i := len(x.recent) - 1; i >= 0 && len(c.Predecessors) < 3; i-- {
			if e := x.recent[i]; e != first && e.endEpoch != 0 && x.dstStart.Covers(e.endEpoch) {
				c.Predecessors = append(c.Predecessors, x.ref(e))
			}
		}
	}
	return c
}

func (x *explainer) ref(e *xEvent) EventRef {
	r := EventRef{ID: x.name(e.id), Handler: x.name(e.handler), BeginLine: e.beginLine, EndLine: e.endLine}
	if e.th != nil {
		r.Thread = x.thread(e.th)
	}
	return r
}

func (x *explainer) sentHow(e *xEvent) string {
	from := "by " + x.task(e.sender)
	if e.sender == traces.NoSym {
		from = "from outside the program"
	} else if e.external {
		from += " (an external input)"
	}
	id := x.name(e.id)
	if e.handler != traces.NoSym {
		id += " (" + x.name(e.handler) + ")"
	}
	return fmt.Sprintf("%s was sent at line %d %s to queue %s (%s)", id, e.sendLine, from, x.name(e.q.id), sendDesc(e))
}

// relation says what the rules make of two events that are not ordered.
func (x *explainer) relation(first, second *xEvent) []string {
	var out []string
	for _, e := range []*xEvent{first, second} {
		if e.status == asyncclock.Removed {
			out = append(out, fmt.Sprintf("%s was removed at line %d before it ran: run(%s) stands for its begin and end", x.name(e.id), e.removeLine, x.name(e.id)))
		}
	}
	switch {
	case first.endLine == 0 && first.status != asyncclock.Removed:
		out = append(out, fmt.Sprintf("%s never finished: it was still running when the trace ended", x.name(first.id)))
	case second.beginLine != 0 && first.endLine != 0 && second.beginLine < first.endLine:
		out = append(out, fmt.Sprintf("%s began (line %d) before %s ended (line %d): they overlap, on different threads",
			x.name(second.id), second.beginLine, x.name(first.id), first.endLine))
	}
	switch {
	case first.q == second.q && !first.q.binder:
		p, q := first, second // p sent first
		if q.sendLine < p.sendLine {
			p, q = q, p
		}
		switch {
		case !x.sendsOrdered(p, q):
			out = append(out, fmt.Sprintf("Both are events of queue %s, but nothing orders the send of %s (line %d) before the send of %s (line %d): PRIORITY (FIFO) orders two events of a queue only when one's send happens before the other's",
				x.name(p.q.id), x.name(p.id), p.sendLine, x.name(q.id), q.sendLine))
		case !table31(p, q):
			out = append(out, fmt.Sprintf("Both are events of queue %s and %s was sent first, but the queue's order (PRIORITY, docs/causality.md) does not run %s (%s) before %s (%s) sent after it",
				x.name(p.q.id), x.name(p.id), x.name(p.id), sendDesc(p), x.name(q.id), sendDesc(q)))
		}
		if q.kind == traces.AtFront && q == first {
			out = append(out, fmt.Sprintf("%s was sent at the front of queue %s after %s was sent, but ATFRONT orders it first only if its send happens before %s's begin, which it does not",
				x.name(q.id), x.name(q.q.id), x.name(p.id), x.name(p.id)))
		}
	case first.q == second.q && first.th != nil && first.th == second.th:
		why := "one of them was sent from outside the program and the other by the app"
		if first.external == second.external {
			why = fmt.Sprintf("%s is async and %s sync", x.name(first.id), x.name(second.id))
			if first.sendLine > second.sendLine {
				why = fmt.Sprintf("%s was sent after %s", x.name(first.id), x.name(second.id))
			}
		}
		out = append(out, fmt.Sprintf("Both are transactions of binder queue %s handled by %s, but IPCHANDLE does not order them: %s",
			x.name(first.q.id), x.thread(first.th), why))
	case first.q == second.q && first.th != nil && second.th != nil:
		out = append(out, fmt.Sprintf("Both are transactions of binder queue %s, handled by different binder threads (%s, %s), which run them at the same time",
			x.name(first.q.id), x.thread(first.th), x.thread(second.th)))
	case first.th != nil && first.th == second.th:
		out = append(out, fmt.Sprintf("Both ran on thread %s but come from different queues (%s, %s): nothing but what happens before their sends orders them",
			x.thread(first.th), x.name(first.q.id), x.name(second.q.id)))
	case first.th != nil && second.th != nil:
		out = append(out, fmt.Sprintf("They ran on different threads (%s, %s): only sends, signals, forks and joins between them could order them",
			x.thread(first.th), x.thread(second.th)))
	}
	return out
}

// sendsOrdered reports whether the send of first happens before the send
// of second (a and b keep the time of their sends).
func (x *explainer) sendsOrdered(first, second *xEvent) bool {
	return second.sendTime.Covers(first.sendEpoch)
}

// WriteText prints the explanation for people.
func (ex *Explanation) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	switch ex.Order {
	case asyncclock.Before, asyncclock.After:
		first, second := ex.A, ex.B
		if ex.Order == asyncclock.After {
			first, second = ex.B, ex.A
		}
		fmt.Fprintf(bw, "%s happens before %s.\n", first, second)
		from, to := ex.Steps[0].From, ex.Steps[len(ex.Steps)-1].To
		fmt.Fprintf(bw, "Why: %s from the %s of %s (line %d) to the %s of %s (line %d):\n",
			plural(len(ex.Steps), "rule application"), finishWord(from), first, from.Line, startWord(to), second, to.Line)
		if ex.Note != "" {
			fmt.Fprintf(bw, "Note: %s.\n", ex.Note)
		}
		for i, s := range ex.Steps {
			fmt.Fprintf(bw, "  %d. %s: line %d %s → line %d %s\n", i+1, s.Rule, s.From.Line, s.From.What, s.To.Line, s.To.What)
			fmt.Fprintf(bw, "     %s.\n", s.Why)
		}
	default:
		c := ex.Concurrent
		fmt.Fprintf(bw, "%s and %s are concurrent: neither one's end happens before the other's begin.\n", ex.A, ex.B)
		if c.Unrun != "" {
			fmt.Fprintf(bw, "  %s.\n", c.Unrun)
		}
		for _, r := range c.Reasons {
			fmt.Fprintf(bw, "  %s.\n", r)
		}
		if len(c.Successors) > 0 {
			fmt.Fprintf(bw, "%s happens before %s\n", c.First, refs(c.Successors))
		}
		if len(c.Predecessors) > 0 {
			fmt.Fprintf(bw, "%s happens after %s\n", c.Second, refs(c.Predecessors))
		}
		if ex.Note != "" {
			fmt.Fprintf(bw, "Note: %s.\n", ex.Note)
		}
		if c.Unrun == "" {
			fmt.Fprintf(bw, "A chain from %s to %s would need one of the events after %s to come before one of those before %s.\n",
				c.First, c.Second, c.First, c.Second)
		}
	}
	return bw.Flush()
}

func refs(rs []EventRef) string {
	var parts []string
	for _, r := range rs {
		s := r.ID
		var about []string
		if r.Handler != "" {
			about = append(about, r.Handler)
		}
		if r.Thread != "" {
			about = append(about, "on "+r.Thread)
		}
		if r.BeginLine > 0 {
			about = append(about, fmt.Sprintf("lines %d-%d", r.BeginLine, r.EndLine))
		}
		if len(about) > 0 {
			s += " (" + strings.Join(about, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ") + "."
}

// WriteJSON prints the explanation for machines (docs/json.md).
func (ex *Explanation) WriteJSON(w io.Writer) error {
	type jsonPoint struct {
		Line  int    `json:"line"`
		Op    string `json:"op"`
		Task  string `json:"task,omitempty"`
		Event string `json:"event,omitempty"`
		What  string `json:"what"`
	}
	type jsonStep struct {
		Rule string    `json:"rule"`
		From jsonPoint `json:"from"`
		To   jsonPoint `json:"to"`
		Why  string    `json:"why"`
	}
	type jsonEvent struct {
		ID        string `json:"id"`
		Handler   string `json:"handler,omitempty"`
		Thread    string `json:"thread,omitempty"`
		BeginLine int    `json:"begin_line,omitempty"`
		EndLine   int    `json:"end_line,omitempty"`
	}
	type jsonConcurrency struct {
		First        string      `json:"first"`
		Second       string      `json:"second"`
		Unrun        string      `json:"unrun,omitempty"`
		Reasons      []string    `json:"reasons"`
		Successors   []jsonEvent `json:"successors"`
		Predecessors []jsonEvent `json:"predecessors"`
	}
	doc := struct {
		Version    int              `json:"licorice_hb"`
		Trace      string           `json:"trace"`
		A          string           `json:"a"`
		B          string           `json:"b"`
		Order      string           `json:"order"`
		WindowMS   int64            `json:"window_ms"`
		Note       string           `json:"note,omitempty"`
		Steps      []jsonStep       `json:"steps,omitempty"`
		Concurrent *jsonConcurrency `json:"concurrent,omitempty"`
	}{Version: HBVersion, Trace: ex.Trace, A: ex.A, B: ex.B, Order: ex.Order.String(), WindowMS: ex.Window.Milliseconds(), Note: ex.Note}
	point := func(p Point) jsonPoint { return jsonPoint(p) }
	for _, s := range ex.Steps {
		doc.Steps = append(doc.Steps, jsonStep{Rule: s.Rule.String(), From: point(s.From), To: point(s.To), Why: s.Why})
	}
	events := func(rs []EventRef) []jsonEvent {
		out := []jsonEvent{}
		for _, r := range rs {
			out = append(out, jsonEvent(r))
		}
		return out
	}
	if c := ex.Concurrent; c != nil {
		doc.Concurrent = &jsonConcurrency{First: c.First, Second: c.Second, Unrun: c.Unrun, Reasons: c.Reasons,
			Successors: events(c.Successors), Predecessors: events(c.Predecessors)}
	}
	return jsonout.Write(w, doc)
}

func finishWord(p Point) string {
	if p.Op == "run" {
		return "run"
	}
	return "end"
}

func startWord(p Point) string {
	if p.Op == "run" {
		return "run"
	}
	return "begin"
}
