package droidracer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/licorice-dev/licorice/traces"
)

// Header returns the header of a trace imported from a DroidRacer log of
// the given app (which may be empty).
func Header(app string) *traces.Header {
	return &traces.Header{
		Version:  traces.Version,
		Platform: "android",
		App:      app,
		Extra:    []traces.ExtraField{{Key: "source", JSON: `"droidracer"`}},
	}
}

// Options select the optional parts of the mapping (docs/droidracer.md).
// The zero Options is the plain mapping.
type Options struct {
	// Lifecycle adds the orders of Android's activity lifecycle, as
	// DroidRacer's activity state machine has them: each lifecycle
	// callback of an activity instance after the one before it
	// (launch, resume, pause, stop, destroy, ...), as signals and waits.
	Lifecycle bool
}

// Import writes the log's trace to w as licorice operations, in log order;
// w's Syms must come from syms. Every op is checked with a
// [traces.Validator] before it is written: a line that cannot be mapped to
// a valid op is an error naming that line, and nothing after it is written.
// Import does not close w.
func (l *Log) Import(ctx context.Context, w *traces.Writer, syms *traces.Symbols) (*Summary, error) {
	return l.ImportWith(ctx, w, syms, Options{})
}

// ImportWith is Import with options.
func (l *Log) ImportWith(ctx context.Context, w *traces.Writer, syms *traces.Symbols, opts Options) (*Summary, error) {
	im := &importer{
		l: l, p: l.makePlan(opts), syms: syms, w: w, val: traces.NewValidator(syms),
		threads: map[int64]*thread{}, attached: map[string]bool{}, sent: map[int64]bool{}, called: map[int64]bool{}, senders: map[string]bool{},
		locks: map[string]*heldLock{}, taskLocks: map[string][]string{}, aliases: map[string]int{},
		exitAfter: map[int]threadKey{}, kw: keywordStats{}, unknown: keywordStats{},
		sum: &Summary{Log: l.Name, Lines: l.lines, Races: -1},
	}
	for i := range l.records {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		r := &l.records[i]
		im.cur = r
		out, attributed := im.out, im.attributed
		if err := im.record(i, r); err != nil {
			return nil, err
		}
		if k, ok := im.exitAfter[i]; ok {
			if th := im.threads[k.tid]; th.inc == k.inc && th.exit >= 0 {
				if err := im.closeThread(th, &l.records[th.exit]); err != nil {
					return nil, err
				}
			}
		}
		if r.known && !(r.kw == "TRIGGER-BROADCAST" && broadcastStates[r.str("state")] == "") {
			im.kw.add(r.kw, r, (im.out-out)-(im.attributed-attributed))
		}
	}
	if err := im.finish(); err != nil {
		return nil, err
	}
	return im.sum, nil
}

type importer struct {
	l    *Log
	p    *plan
	syms *traces.Symbols
	w    *traces.Writer
	val  *traces.Validator
	sum  *Summary

	cur        *record // the record being imported, for errors
	op         traces.Op
	out        int // ops written
	attributed int // of which accesses written at an ACCESS (counted under their own keyword)

	threads   map[int64]*thread
	attached  map[string]bool // queues attached
	sent      map[int64]bool  // messages sent
	called    map[int64]bool  // messages called
	senders   map[string]bool // the threads made up to send a message no POST sent
	locks     map[string]*heldLock
	taskLocks map[string][]string // task -> locks it holds, one entry per acquisition
	aliases   map[string]int      // lock -> aliases made of it
	exitAfter map[int]threadKey   // record -> thread whose deferred thread_end follows it

	kw, unknown keywordStats
	adj         [numAdj]Adjustment
}

type threadState uint8

const (
	notBegun threadState = iota
	forked
	running
	ended
)

// thread is the import's view of one DroidRacer thread id.
type thread struct {
	tid     int64
	inc     int    // incarnation: 2 and up after the id was used again
	task    string // "t<tid>", or "t<tid>~<inc>"
	state   threadState
	event   string // the event it runs, "" if none
	call    *record
	nested  int    // nested CALLs flattened into event
	bracket string // the running native bracket of this id, "" if none
	looping bool   // a looper past its LOOP line or first CALL: its own ops between events form runs
	run     string // the running run of its own ops between two events, "" if none
	rw      []int  // access records waiting for their ACCESS
	exit    int    // record of a deferred THREADEXIT
}

type heldLock struct {
	base   string // the lock as the log names it
	holder string
	count  int
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func opSrc(id int64) string { return "droidracer:" + itoa(id) }
func rwSrc(id int64) string { return "droidracer:rw" + itoa(id) }

func threadTask(tid int64, inc int) string {
	if inc > 1 {
		return "t" + itoa(tid) + "~" + strconv.Itoa(inc)
	}
	return "t" + itoa(tid)
}

func eventName(msg int64) string { return "m" + itoa(msg) }

// note counts one adjustment, keeping the first example.
func (im *importer) note(k adjKind, r *record) {
	a := &im.adj[k]
	if a.Count == 0 {
		a.What = adjWhat[k]
		a.Example = Line{r.line, r.text}
	}
	a.Count++
}

// newOp starts the next op.
func (im *importer) newOp(kind traces.Kind, task, src string) *traces.Op {
	im.op.Reset()
	im.op.Kind = kind
	im.op.Task = im.syms.Intern(task)
	im.op.Src = im.syms.Intern(src)
	return &im.op
}

// write validates op and writes it.
func (im *importer) write(op *traces.Op) error {
	im.out++
	if err := im.val.Check(op, im.out+1); err != nil {
		msg := err.Error()
		var le *traces.LineError
		if errors.As(err, &le) {
			msg = le.Msg
		}
		return &traces.LineError{File: im.l.Name, Line: im.cur.line, Op: op.Kind, Task: im.syms.String(op.Task), Fatal: true,
			Msg: fmt.Sprintf("cannot map %q to a valid trace: %s", im.cur.text, msg)}
	}
	im.sum.Ops[op.Kind]++
	if err := im.w.Write(op); err != nil {
		var le *traces.LineError
		if errors.As(err, &le) {
			return &traces.LineError{File: im.l.Name, Line: im.cur.line, Op: op.Kind, Task: le.Task, Fatal: true,
				Msg: fmt.Sprintf("cannot map %q to a valid trace: %s", im.cur.text, le.Msg)}
		}
		return err
	}
	return nil
}

func (im *importer) emit(kind traces.Kind, task, src string) error {
	return im.write(im.newOp(kind, task, src))
}

func (im *importer) emitName(kind traces.Kind, task, src, name string) error {
	op := im.newOp(kind, task, src)
	op.Name = im.syms.Intern(name)
	return im.write(op)
}

// thread returns the state of a thread id, creating it.
func (im *importer) thread(tid int64) *thread {
	th := im.threads[tid]
	if th == nil {
		th = &thread{tid: tid, inc: 1, task: threadTask(tid, 1), exit: -1}
		im.threads[tid] = th
	}
	return th
}

// again starts a new incarnation of a thread id used after its thread ended.
func (im *importer) again(th *thread) {
	im.note(adjTidReused, im.cur)
	*th = thread{tid: th.tid, inc: th.inc + 1, exit: -1}
	th.task = threadTask(th.tid, th.inc)
}

// begin writes the thread_begin of th, and the attach of every queue the
// plan has it attach as it begins.
func (im *importer) begin(th *thread) error {
	if th.state == ended {
		im.again(th)
	}
	k := threadKey{th.tid, th.inc}
	op := im.newOp(traces.ThreadBegin, th.task, opSrc(im.cur.id))
	if im.p.looper[k] {
		op.ThreadKind = traces.Looper
		im.sum.Loopers++
	}
	th.state = running
	im.sum.Threads++
	if err := im.write(op); err != nil {
		return err
	}
	for _, q := range im.p.attachAtBegin[k] {
		if !im.p.idleQueue[q] {
			im.note(adjQueueAttachedEarly, im.cur)
		}
		if err := im.attach(th, q); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) attach(th *thread, q string) error {
	im.attached[q] = true
	op := im.newOp(traces.Attach, th.task, opSrc(im.cur.id))
	op.Queue = im.syms.Intern(q)
	return im.write(op)
}

// running returns thread tid, begun if it was not: for the thread's own
// ops (THREADEXIT, ATTACH-Q, LOOP), even from inside a native bracket.
func (im *importer) running(tid int64) (*thread, error) {
	th := im.thread(tid)
	if th.state != running {
		im.note(adjNoThreadInit, im.cur)
		if err := im.begin(th); err != nil {
			return nil, err
		}
	}
	return th, nil
}

// task returns the task that runs the ops of thread id tid now: its native
// bracket, the event it runs, or the thread itself. A thread seen for the
// first time without THREADINIT begins here.
func (im *importer) task(tid int64) (string, error) {
	th := im.thread(tid)
	if th.bracket != "" {
		return th.bracket, nil
	}
	if th.state != running {
		im.note(adjNoThreadInit, im.cur)
		if err := im.begin(th); err != nil {
			return "", err
		}
	}
	if th.event != "" {
		return th.event, nil
	}
	if th.looping {
		return im.openRun(th)
	}
	return th.task, nil
}

// openRun returns the run of looper th's own ops between two events,
// beginning one at the current record if none is running. DroidRacer orders
// nothing before such an op by program order (not the RET before it, not
// the ops before that), nor anything after it (no program order into a
// CALL): these are the looper's excursions between messages — the posts of
// input events and of idle handler runs. A short-lived thread per run keeps
// program order inside the run, and keeps our rule LOOPBEGIN from ordering
// them before every later event of the looper, which DroidRacer does not
// and Android does not either.
func (im *importer) openRun(th *thread) (string, error) {
	if th.run != "" {
		return th.run, nil
	}
	th.run = th.task + "@" + itoa(im.cur.id)
	im.sum.Runs++
	return th.run, im.emit(traces.ThreadBegin, th.run, opSrc(im.cur.id))
}

// startLooping marks looper tid as looping: from now on its own ops between
// events form runs.
func (im *importer) startLooping(tid int64) {
	if th := im.threads[tid]; th != nil && th.state == running && im.p.looper[threadKey{tid, th.inc}] {
		th.looping = true
	}
}

// closeRun ends th's run of own ops, if one is running, at record r.
func (im *importer) closeRun(th *thread, r *record) error {
	if th.run == "" {
		return nil
	}
	return im.endShortLived(th, &th.run, r)
}

// record imports record i.
func (im *importer) record(i int, r *record) error {
	if !r.known {
		im.unknown.add(r.kw, r, 0)
		return nil
	}
	if r.access {
		th := im.thread(r.tid())
		th.rw = append(th.rw, i)
		im.sum.AccessLines++
		return nil
	}
	im.sum.OpLines++
	tid := r.tid()
	switch r.kw {
	case "START", "INSTANCE-INTENT", "REMOVE_IDLE_HANDLER":
		return nil // nothing happens in the program; see docs/droidracer.md
	case "THREADINIT":
		th := im.thread(tid)
		if th.state == running {
			im.note(adjInitRunning, r)
			return nil
		}
		return im.begin(th)
	case "THREADEXIT":
		th, err := im.running(tid)
		if err != nil {
			return err
		}
		if th.exit >= 0 {
			return nil // exited already: its thread_end comes after its last op
		}
		k := threadKey{tid, th.inc}
		if last := im.p.lastRec[k]; last > i {
			im.note(adjExitDeferred, r)
			th.exit = i
			im.exitAfter[last] = k
			return nil
		}
		return im.closeThread(th, r)
	case "FORK":
		return im.fork(r)
	case "JOIN":
		t, err := im.task(tid)
		if err != nil {
			return err
		}
		child := im.threads[r.num("child-tid")]
		if child == nil || child.state != ended {
			im.note(adjJoinNotEnded, r)
			return nil
		}
		op := im.newOp(traces.Join, t, opSrc(r.id))
		op.Thread = im.syms.Intern(child.task)
		return im.write(op)
	case "ATTACH-Q", "LOOP":
		if r.kw == "LOOP" {
			im.startLooping(tid)
		}
		q, ok := im.p.attachAt[i]
		if !ok {
			return nil // attached when its looper began, or by an earlier line
		}
		th, err := im.running(tid)
		if err != nil {
			return err
		}
		return im.attach(th, q)
	case "NATIVE-ENTRY":
		th := im.thread(tid)
		if th.bracket != "" {
			im.note(adjEntryWithoutExit, r)
			if err := im.closeBracket(th, r); err != nil {
				return err
			}
		}
		th.bracket = th.task + "#" + itoa(r.id)
		im.sum.Brackets++
		return im.emitName(traces.ThreadBegin, th.bracket, opSrc(r.id), r.name)
	case "NATIVE-EXIT":
		th := im.thread(tid)
		if th.bracket == "" {
			im.note(adjExitWithoutEntry, r)
			return nil
		}
		return im.closeBracket(th, r)
	case "POST":
		return im.post(i, r)
	case "CALL":
		return im.call(r)
	case "RET":
		return im.ret(r)
	case "ACCESS":
		t, err := im.task(tid)
		if err != nil {
			return err
		}
		return im.flush(im.thread(tid), t)
	case "LOCK":
		return im.lock(r)
	case "UNLOCK":
		return im.unlock(r)
	case "ADD_IDLE_HANDLER":
		owner, ok := im.p.owner[i]
		if !ok {
			im.note(adjIdleUnknownQueue, r)
			return nil
		}
		t, err := im.task(owner)
		if err != nil {
			return err
		}
		return im.emitName(traces.Signal, t, opSrc(r.id), im.p.signals[i])
	case "TRIGGER-BROADCAST":
		if broadcastStates[r.str("state")] == "" {
			im.unknown.add(r.kw+" state:"+r.str("state"), r, 0)
			return nil
		}
	}
	return im.signalWait(i, r)
}

// signalWait imports the enables (signal) and triggers (wait) of all kinds.
func (im *importer) signalWait(i int, r *record) error {
	h, isSignal := im.p.signals[i]
	waits, isWait := im.p.waits[i]
	if !isSignal && !isWait {
		return nil
	}
	t, err := im.task(r.tid())
	if err != nil {
		return err
	}
	if isSignal {
		if err := im.emitName(traces.Signal, t, opSrc(r.id), h); err != nil {
			return err
		}
	}
	if !isWait {
		return nil
	}
	if len(waits) == 0 {
		if r.kw == "WAIT" {
			im.note(adjWaitWithoutNotify, r)
		} else {
			im.note(adjTriggerWithoutEnable, r)
		}
		waits = []string{handle("unmatched", r.id)}
	}
	for _, h := range waits {
		if err := im.emitName(traces.Wait, t, opSrc(r.id), h); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) fork(r *record) error {
	t, err := im.task(r.tid())
	if err != nil {
		return err
	}
	child := im.thread(r.num("child-tid"))
	switch child.state {
	case forked, running:
		im.note(adjForkAfterBegin, r)
		return nil
	case ended:
		im.again(child)
	}
	child.state = forked
	op := im.newOp(traces.Fork, t, opSrc(r.id))
	op.Thread = im.syms.Intern(child.task)
	return im.write(op)
}

// queueOf returns the queue of msg, and false if it cannot be sent to now:
// its looper is not the thread the id names now (the log posts to a looper
// that does not exist yet, or no longer). A looper that has not begun
// begins here, attaching the queues it attaches as it begins.
func (im *importer) queueOf(msg int64) (string, bool, error) {
	q := im.p.queue[msg]
	if im.attached[q] {
		return q, true, nil
	}
	owner := im.p.queueOwner[q]
	th := im.thread(owner.tid)
	if th.inc != owner.inc || th.state == ended {
		return q, false, nil
	}
	if _, err := im.running(owner.tid); err != nil {
		return q, false, err
	}
	return q, im.attached[q], nil
}

// send writes the send of msg by task.
func (im *importer) send(task string, msg int64, r *record) error {
	q, ok, err := im.queueOf(msg)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s:%d: internal error: queue %s of message %d cannot be sent to", im.l.Name, r.line, q, msg)
	}
	op := im.newOp(traces.Send, task, opSrc(r.id))
	op.Queue = im.syms.Intern(q)
	op.Event = im.syms.Intern(eventName(msg))
	// A looper posts between events what comes from outside the program
	// (the UI events DroidRacer injects), and its idle handler runs.
	if th := im.threads[r.tid()]; r.kw == "POST" && th != nil && th.run == task && !im.p.idleQueue[q] {
		op.External = true
	}
	if r.kw == "POST" {
		delay := r.num("delay")
		switch {
		case r.num("foq") == 1 || delay == -1:
			op.SendKind = traces.AtFront
		case r.num("atTime") == 1:
			op.SendKind, op.Time = traces.AtTime, delay
		case delay < 0:
			im.note(adjNegativeDelay, r)
		default:
			op.Time = delay
		}
	}
	im.sent[msg] = true
	return im.write(op)
}

func (im *importer) post(i int, r *record) error {
	msg := r.num("msg")
	if call, ok := im.p.nested[msg]; ok && im.p.postRec[msg] == i {
		t, err := im.task(r.tid())
		if err != nil {
			return err
		}
		return im.emitName(traces.Signal, t, opSrc(r.id), handle("nested", call))
	}
	if im.p.postRec[msg] != i || im.sent[msg] {
		im.note(adjPostRepeated, r)
		return nil
	}
	if _, ok := im.p.callTid[msg]; !ok {
		im.note(adjPostNeverCalled, r)
		return nil
	}
	if _, ok, err := im.queueOf(msg); err != nil || !ok {
		if err == nil {
			im.note(adjPostBeforeLooper, r)
		}
		return err
	}
	t, err := im.task(r.tid())
	if err != nil {
		return err
	}
	for _, w := range im.p.postWaits[i] {
		if err := im.emitName(traces.Wait, t, opSrc(w.trigger), w.handle); err != nil {
			return err
		}
	}
	if err := im.send(t, msg, r); err != nil {
		return err
	}
	for _, h := range im.p.postSignals[i] {
		if err := im.emitName(traces.Signal, t, opSrc(r.id), h); err != nil {
			return err
		}
	}
	return nil
}

func (im *importer) call(r *record) error {
	msg := r.num("msg")
	if im.called[msg] {
		im.note(adjCallRepeated, r)
		return nil
	}
	im.called[msg] = true
	if id, ok := im.p.nested[msg]; ok && id == r.id {
		t, err := im.task(r.tid())
		if err != nil {
			return err
		}
		im.note(adjNestedCall, r)
		im.thread(r.tid()).nested++
		return im.emitName(traces.Wait, t, opSrc(r.id), handle("nested", r.id))
	}
	th, err := im.running(r.tid())
	if err != nil {
		return err
	}
	if err := im.closeRun(th, r); err != nil {
		return err
	}
	th.looping = true
	if !im.sent[msg] {
		im.note(adjCallWithoutPost, r)
		// Named after the record; a log whose records repeat an id
		// gets one sender per record all the same.
		sender := "sender#" + itoa(r.id)
		for n := 2; im.senders[sender]; n++ {
			sender = "sender#" + itoa(r.id) + "." + strconv.Itoa(n)
		}
		im.senders[sender] = true
		if err := im.emit(traces.ThreadBegin, sender, opSrc(r.id)); err != nil {
			return err
		}
		if err := im.send(sender, msg, r); err != nil {
			return err
		}
		if err := im.emit(traces.ThreadEnd, sender, opSrc(r.id)); err != nil {
			return err
		}
	}
	ev := eventName(msg)
	op := im.newOp(traces.Begin, ev, opSrc(r.id))
	op.Thread = im.syms.Intern(th.task)
	th.event, th.call = ev, r
	im.sum.Events++
	return im.write(op)
}

func (im *importer) ret(r *record) error {
	th := im.thread(r.tid())
	if th.nested > 0 {
		th.nested--
		return nil
	}
	if th.event == "" || th.event != eventName(r.num("msg")) {
		im.note(adjRetNotRunning, r)
		return nil
	}
	return im.endEvent(th, r)
}

// endEvent ends the event th runs, closing what it left open.
func (im *importer) endEvent(th *thread, r *record) error {
	if len(th.rw) > 0 {
		im.note(adjAccessWithoutACCESS, r)
		if err := im.flush(th, th.event); err != nil {
			return err
		}
	}
	if err := im.release(th.event, r); err != nil {
		return err
	}
	for _, h := range im.p.endSignals[th.call.num("msg")] {
		if err := im.emitName(traces.Signal, th.event, opSrc(r.id), h); err != nil {
			return err
		}
	}
	ev := th.event
	th.event, th.nested = "", 0
	return im.emit(traces.End, ev, opSrc(r.id))
}

// flush writes the accesses th's ACCESS line closes, as ops of task.
func (im *importer) flush(th *thread, task string) error {
	for _, i := range th.rw {
		rw := &im.l.records[i]
		kind := traces.Read
		if rw.kw == "WRITE" || rw.kw == "WRITE-STATIC" {
			kind = traces.Write
		}
		op := im.newOp(kind, task, rwSrc(rw.id))
		loc := location(rw)
		op.Loc = traces.Location{Obj: im.syms.Intern(loc.Obj), Field: im.syms.Intern(loc.Field), Static: loc.Static}
		if err := im.write(op); err != nil {
			return err
		}
		im.attributed++
		im.kw.entry(rw.kw, rw).Ops++
	}
	th.rw = th.rw[:0]
	return nil
}

// closeBracket ends th's native bracket.
func (im *importer) closeBracket(th *thread, r *record) error {
	return im.endShortLived(th, &th.bracket, r)
}

// endShortLived ends *task, a short-lived thread of th (its native bracket
// or its run), at record r, with what it left open, and clears *task.
func (im *importer) endShortLived(th *thread, task *string, r *record) error {
	if len(th.rw) > 0 {
		im.note(adjAccessWithoutACCESS, r)
		if err := im.flush(th, *task); err != nil {
			return err
		}
	}
	if err := im.release(*task, r); err != nil {
		return err
	}
	t := *task
	*task = ""
	return im.emit(traces.ThreadEnd, t, opSrc(r.id))
}

// closeThread ends thread th at its THREADEXIT exit.
func (im *importer) closeThread(th *thread, exit *record) error {
	cur := im.cur
	im.cur = exit
	defer func() { im.cur = cur }()
	if th.event != "" {
		im.note(adjEventEndedAtExit, exit)
		if err := im.endEvent(th, exit); err != nil {
			return err
		}
	}
	if err := im.closeRun(th, exit); err != nil {
		return err
	}
	if len(th.rw) > 0 {
		im.note(adjAccessWithoutACCESS, exit)
		if err := im.flush(th, th.task); err != nil {
			return err
		}
	}
	if err := im.release(th.task, exit); err != nil {
		return err
	}
	th.state, th.exit = ended, -1
	return im.emit(traces.ThreadEnd, th.task, opSrc(exit.id))
}

// release unlocks every lock task still holds, newest first.
func (im *importer) release(task string, r *record) error {
	held := im.taskLocks[task]
	for j := len(held) - 1; j >= 0; j-- {
		im.note(adjLockReleasedAtEnd, r)
		if err := im.unlockName(task, held[j], r); err != nil {
			return err
		}
	}
	delete(im.taskLocks, task)
	return nil
}

func (im *importer) lock(r *record) error {
	t, err := im.task(r.tid())
	if err != nil {
		return err
	}
	name := r.obj
	// Re-entering a lock the task holds under an alias takes the alias.
	for _, l := range im.taskLocks[t] {
		if im.locks[l].base == r.obj {
			name = l
		}
	}
	if h := im.locks[name]; h != nil && h.holder != t {
		im.note(adjLockHeldByOther, r)
		im.aliases[r.obj]++
		name = r.obj + "/" + strconv.Itoa(im.aliases[r.obj]+1)
	}
	h := im.locks[name]
	if h == nil {
		h = &heldLock{base: r.obj, holder: t}
		im.locks[name] = h
	}
	h.count++
	im.taskLocks[t] = append(im.taskLocks[t], name)
	op := im.newOp(traces.Lock, t, opSrc(r.id))
	op.Name = im.syms.Intern(name)
	return im.write(op)
}

func (im *importer) unlock(r *record) error {
	t, err := im.task(r.tid())
	if err != nil {
		return err
	}
	held := im.taskLocks[t]
	for j := len(held) - 1; j >= 0; j-- {
		if name := held[j]; im.locks[name].base == r.obj {
			im.taskLocks[t] = slices.Delete(held, j, j+1)
			return im.unlockName(t, name, r)
		}
	}
	im.note(adjUnlockNotHeld, r)
	return nil
}

// unlockName writes the unlock of lock name by task; the caller updates
// taskLocks.
func (im *importer) unlockName(task, name string, r *record) error {
	h := im.locks[name]
	if h.count--; h.count == 0 {
		delete(im.locks, name)
	}
	op := im.newOp(traces.Unlock, task, opSrc(r.id))
	op.Name = im.syms.Intern(name)
	return im.write(op)
}

// finish writes what the log leaves pending at its end and completes the
// summary.
func (im *importer) finish() error {
	tids := make([]int64, 0, len(im.threads))
	for tid := range im.threads {
		tids = append(tids, tid)
	}
	slices.Sort(tids)
	for _, tid := range tids {
		th := im.threads[tid]
		if len(th.rw) > 0 {
			last := &im.l.records[th.rw[len(th.rw)-1]]
			im.cur = last
			im.note(adjAccessWithoutACCESS, last)
			t, err := im.task(tid)
			if err != nil {
				return err
			}
			if err := im.flush(th, t); err != nil {
				return err
			}
		}
		if th.event != "" {
			im.note(adjEventRunningAtEnd, th.call)
		}
	}
	for _, i := range im.l.reused {
		im.note(adjAddressReused, &im.l.records[i])
	}
	if n := im.l.methodLines; n > 0 {
		im.adj[adjMethodLines] = Adjustment{What: adjWhat[adjMethodLines], Count: n, Example: im.l.methodFirst}
	}
	if len(im.l.other) > 0 {
		im.adj[adjStrayLines] = Adjustment{What: adjWhat[adjStrayLines], Count: len(im.l.other), Example: im.l.other[0]}
	}
	s := im.sum
	for _, a := range im.adj {
		if a.Count > 0 {
			s.Adjustments = append(s.Adjustments, a)
		}
	}
	s.Keywords, s.Unknown = im.kw.sorted(), im.unknown.sorted()
	if rep := im.l.Report; rep != nil {
		s.Races, s.Unreadable = len(rep.Races), len(rep.Unrecognized)
	}
	return nil
}
