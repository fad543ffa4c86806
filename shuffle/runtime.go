package shuffle

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"time"

	"github.com/licorice-dev/licorice/traces"
	"gonum.org/v1/gonum/stat/distuv"
)

// Options configures one run.
type Options struct {
	// Seed makes the run: the same program, options and seed give the same
	// execution and the same trace, op for op.
	Seed int64
	// Actions is how many monkey actions (user input, system events) the
	// run performs; the run ends a grace period after the last one.
	// Default 100.
	Actions int
	// Shuffle delays the generation of half of the events the program
	// sends (thesis §5.3.4): the sender waits an exponentially distributed
	// time, cut short as soon as the target queue is empty.
	Shuffle bool
	// DelayMean is the mean of the shuffle delay. Default 10ms.
	DelayMean time.Duration
	// Reach is, in a shuffled run, the share of sends, and of the events
	// of looper threads, that are postponed far: the sender waits, or the
	// looper thread pauses before it begins the event, for a time drawn
	// log-uniformly between DelayMean and ReachMax, not cut short. The
	// first send of each handler in a run, and the first event to run
	// each handler, are postponed 10 times as often (at most half of the
	// time): initialization runs once, and its order with the events
	// around it is the one training misses most. It reorders events far
	// apart in time (a refresh 500 ms after a resume, output before the
	// first layout), which the short delays never do. Default 0.05;
	// negative: none.
	Reach float64
	// ReachMax is the longest far postponement. Default 1s.
	ReachMax time.Duration
	// ActionGap is the mean time between two monkey actions, beyond the
	// throttle (exponential). Default 250ms.
	ActionGap time.Duration
	// Throttle is the least time between two monkey actions (the
	// monkey's --throttle). Default 50ms; negative for none.
	Throttle time.Duration
	// Preempt is the probability that the scheduler reconsiders which task
	// runs after an operation. Default 0.05; 0 uses the default, a negative
	// value never preempts (tasks switch only when they block).
	Preempt float64
	// NoSource leaves out the source locations ("src") of operations:
	// smaller traces. On amd64 sources cost little (they are read from
	// the frame pointers); elsewhere, leaving them out makes recording
	// about twice as fast.
	NoSource bool
	// MaxOps stops a run that records more operations than this (a program
	// that never settles). Default 50 million.
	MaxOps int64
}

func (o *Options) defaults() {
	if o.Actions == 0 {
		o.Actions = 100
	}
	if o.DelayMean <= 0 {
		o.DelayMean = 10 * time.Millisecond
	}
	if o.Reach == 0 {
		o.Reach = 0.05
	}
	if o.ReachMax <= 0 {
		o.ReachMax = time.Second
	}
	if o.ActionGap <= 0 {
		o.ActionGap = 250 * time.Millisecond
	}
	if o.Throttle == 0 {
		o.Throttle = 50 * time.Millisecond
	} else if o.Throttle < 0 {
		o.Throttle = 0
	}
	if o.Preempt == 0 {
		o.Preempt = 0.05
	}
	if o.MaxOps <= 0 {
		o.MaxOps = 50_000_000
	}
}

// opCost is the virtual time every recorded operation of a task takes.
const opCost = time.Microsecond

// grace is how long a run goes on after the monkey's last action.
const grace = 2 * time.Second

// shuffleShare is the share of sends whose generation a shuffled run delays.
const shuffleShare = 0.5

// Result says how a run went.
type Result struct {
	Ops     int64         // operations recorded
	Events  int           // events sent
	Actions int           // monkey actions performed
	End     time.Duration // virtual time at the end
	// Switches counts how often the baton passed from one thread's
	// goroutine to another's: the main cost of a run besides recording.
	Switches int64
	// Crash is the message of the error op that ended the run ("" if the
	// run is a correct execution).
	Crash string
}

// Runtime is one simulated process: its threads, loopers, heap and the
// outside world that sends it input. All of its tasks run one at a time,
// on goroutines that hand a baton to each other at recorded operations, so
// the program needs no locks and a seed replays the run exactly.
//
// A Runtime is made by [Run]; app code receives it in its main function.
type Runtime struct {
	opts Options
	syms *traces.Symbols
	out  func(*traces.Op) error
	op   traces.Op

	now         time.Duration
	tasks       []*task // live threads, in order of creation
	all         []*task // every thread of the run
	readyBuf    []*task
	threadNames map[traces.Sym]int
	cur         *task // the task running, nil while the world acts
	timers      timerHeap
	seq         int64 // tie-breaker for timers

	sched, shuf, monkeyRand, appRand *rand.Rand
	shuffleDelay                     distuv.Exponential
	reach                            *rand.Rand          // far postponements (Options.Reach)
	firstSend, firstRun              map[traces.Sym]bool // handlers sent, and run, at least once
	untilPreempt                     int

	structs    map[reflect.Type]*structInfo
	tables     map[string]any // *Map[V] by name
	objTypes   map[traces.Sym]traces.Sym
	main       *Looper
	binder     *Looper
	mainThread *task
	monkey     monkey
	names      nameCache
	counter    struct{ event, obj, handle, lock int }

	ops      int64
	switches int64
	events   int
	over     bool   // no more scheduling: the run is ending
	crash    string // the error that ended the run
	err      error  // a failure of the runtime or the app's Go code
	ctx      context.Context
	finished chan struct{}
	killing  bool
}

// Run executes the program main with the given options and sends every
// operation of the trace, in order, to out (the op is reused: out must
// copy what it keeps). main runs on the main looper thread before it
// starts looping; it sets the app up (objects, threads, activities) and
// declares the monkey's actions.
//
// Run returns when the run ends: a grace period after the last monkey
// action, when nothing can happen any more, after a crash (an error op:
// Result.Crash), or when ctx is done. An error from out, a panic in the
// app's Go code or a runaway run is returned as an error.
func Run(ctx context.Context, main func(rt *Runtime), opts Options, syms *traces.Symbols, out func(*traces.Op) error) (Result, error) {
	opts.defaults()
	seed := uint64(opts.Seed)
	rt := &Runtime{
		opts:        opts,
		syms:        syms,
		out:         out,
		sched:       rand.New(rand.NewPCG(seed, 1)),
		shuf:        rand.New(rand.NewPCG(seed, 2)),
		monkeyRand:  rand.New(rand.NewPCG(seed, 3)),
		appRand:     rand.New(rand.NewPCG(seed, 4)),
		reach:       rand.New(rand.NewPCG(seed, 6)),
		firstSend:   make(map[traces.Sym]bool),
		firstRun:    make(map[traces.Sym]bool),
		ctx:         ctx,
		finished:    make(chan struct{}),
		threadNames: make(map[traces.Sym]int),
		objTypes:    make(map[traces.Sym]traces.Sym),
	}
	rt.shuffleDelay = distuv.Exponential{Rate: 1 / float64(opts.DelayMean), Src: rand.NewPCG(seed, 5)}
	rt.names.init(syms)
	rt.resetPreempt()
	rt.start(main)
	<-rt.finished
	rt.killAll()
	res := Result{Ops: rt.ops, Events: rt.events, Actions: rt.monkey.done, End: rt.now, Crash: rt.crash, Switches: rt.switches}
	if rt.err == nil && ctx.Err() != nil {
		rt.err = ctx.Err()
	}
	return res, rt.err
}

// start creates the main looper and the binder pool and hands the baton to
// the main thread.
func (rt *Runtime) start(main func(rt *Runtime)) {
	rt.main = rt.newLooper("main", false)
	mt := rt.newTask("main", traces.Looper)
	mt.looper = rt.main
	rt.mainThread = mt
	rt.binder = rt.newLooper("binder", true)
	// The process's binder threads exist from its start; they are set up
	// here, before anything can be sent to them.
	for i := 1; i <= binderThreads; i++ {
		bt := rt.newTask("binder-"+strconv.Itoa(i), traces.Binder)
		bt.looper = rt.binder
		rt.emitThreadStart(bt)
		bt.state = waitingMessage
		rt.spawn(bt, bt.loop)
	}
	mt.state = ready
	rt.spawn(mt, func() {
		rt.emitThreadStart(mt)
		onCreate := rt.names.intern("Application.onCreate")
		if mt.protect(func() { mt.callHandler(onCreate, traces.NoSym, func() { main(rt) }) }) {
			return
		}
		rt.monkey.start(rt)
		mt.loop()
	})
	rt.cur = mt
	mt.wake <- struct{}{}
}

// binderThreads is the size of the process's binder pool.
const binderThreads = 2

// Now returns the virtual time since the process started (Android's
// uptime).
func (rt *Runtime) Now() time.Duration { return rt.now }

// Rand returns the app's random source: deterministic per seed, separate
// from the scheduler's and the monkey's.
func (rt *Runtime) Rand() *rand.Rand { return rt.appRand }

// Runtime returns rt itself, so that a *Runtime can be passed where any
// heap object can (see [New]).
func (rt *Runtime) Runtime() *Runtime { return rt }

// Main returns the main (UI) looper.
func (rt *Runtime) Main() *Looper { return rt.main }

// Assert records an error op and crashes the run if cond is false: app
// code states what a correct execution guarantees (a "wrong result").
//
//go:noinline
func (rt *Runtime) Assert(cond bool, format string, args ...any) {
	if !cond {
		rt.crashAt(fmt.Sprintf(format, args...), appCaller())
	}
}

// Crash records an error op with msg and ends the run the way an uncaught
// exception ends an Android process: the running task's locks and handler
// calls are unwound and nothing else runs.
//
//go:noinline
func (rt *Runtime) Crash(msg string) { rt.crashAt(msg, appCaller()) }

// crashAt is Crash by the app's call c.
func (rt *Runtime) crashAt(msg string, c caller) {
	t := rt.running("Crash")
	op := rt.newOp(traces.Error, t)
	op.Name = rt.syms.Intern(msg)
	op.Src = rt.srcAt(c)
	rt.emit(op)
	if rt.crash == "" {
		rt.crash = msg
	}
	rt.over = true
	panic(crashed{})
}

// crashed unwinds a task's stack after an error op.
type crashed struct{}

// running returns the running task; calling a task operation from the
// world (an action) is a programming error of the app.
func (rt *Runtime) running(what string) *task {
	if rt.cur == nil {
		panic("shuffle: " + what + " called outside any task: monkey actions may only send events")
	}
	return rt.cur
}

// newOp resets the shared op for an operation of task t (nil: the world).
func (rt *Runtime) newOp(k traces.Kind, t *task) *traces.Op {
	op := &rt.op
	op.Reset()
	op.Kind = k
	if t != nil {
		op.Task = t.taskID()
	}
	return op
}

// emit records op, stamped with the virtual time. A task's operation is
// followed by step.
func (rt *Runtime) emit(op *traces.Op) {
	if rt.err != nil || rt.killing {
		return
	}
	op.TS, op.HasTS = float64(rt.now)/float64(time.Millisecond), true
	if err := rt.out(op); err != nil && rt.err == nil {
		rt.err = fmt.Errorf("write trace: %w", err)
		rt.over = true
	}
	rt.ops++
	if rt.ops >= rt.opts.MaxOps && rt.err == nil {
		rt.err = fmt.Errorf("run exceeded %d operations: stopped", rt.opts.MaxOps)
		rt.over = true
	}
}

// step is the end of a task's operation: time passes, due timers fire, and
// the scheduler may preempt the task.
func (rt *Runtime) step() {
	if rt.crash != "" || rt.killing {
		return // unwinding after a crash, or ending: no time passes, no switches
	}
	rt.now += opCost
	if len(rt.timers) > 0 && rt.timers[0].at <= rt.now {
		rt.fireTimers()
	}
	if rt.over {
		rt.cur.switchAway()
		return
	}
	if rt.untilPreempt--; rt.untilPreempt <= 0 {
		rt.resetPreempt()
		rt.cur.switchAway()
	}
}

// resetPreempt draws the number of operations until the next preemption
// point (geometric with parameter opts.Preempt).
func (rt *Runtime) resetPreempt() {
	p := rt.opts.Preempt
	if p < 0 {
		rt.untilPreempt = math.MaxInt
		return
	}
	if p >= 1 {
		rt.untilPreempt = 1
		return
	}
	// Inverse transform: the number of trials up to the first success.
	n := math.Ceil(math.Log(1-rt.sched.Float64()) / math.Log1p(-p))
	rt.untilPreempt = max(1, int(min(n, 1<<20)))
}

// fail ends the run with an error of the runtime or the app's Go code.
func (rt *Runtime) fail(err error) {
	if rt.err == nil {
		rt.err = err
	}
	rt.over = true
}

// nextID returns prefix+n as a symbol.
func (rt *Runtime) nextID(prefix string, n *int) traces.Sym {
	*n++
	var buf [24]byte
	b := append(buf[:0], prefix...)
	b = strconv.AppendInt(b, int64(*n), 10)
	return rt.syms.InternBytes(b)
}

// farPostpone reports whether a shuffled run postpones a send or an
// event of handler h far, and for how long: log-uniformly between
// DelayMean and ReachMax (Options.Reach). seen holds the handlers whose
// sends (or events) came before: the first is postponed more often.
func (rt *Runtime) farPostpone(seen map[traces.Sym]bool, h traces.Sym) (time.Duration, bool) {
	if !rt.opts.Shuffle || rt.opts.Reach <= 0 {
		return 0, false
	}
	p := rt.opts.Reach
	if h != traces.NoSym && !seen[h] {
		seen[h] = true
		p = min(10*p, 0.5)
	}
	if rt.reach.Float64() >= p {
		return 0, false
	}
	lo, hi := math.Log(float64(rt.opts.DelayMean)), math.Log(float64(max(rt.opts.ReachMax, rt.opts.DelayMean)))
	return time.Duration(math.Exp(lo + rt.reach.Float64()*(hi-lo))), true
}
