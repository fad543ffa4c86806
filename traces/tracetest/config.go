package tracetest

// Config says what trace to generate: its size, its threads and queues,
// and what their tasks do. Start from a preset ([Small], [Android]) and
// change what you need. A zero count means none and a zero weight or
// fraction means never; values out of range are clamped (negative counts
// are zero, fractions are cut to [0, 1], there is always one looper, the
// main thread). The same Config yields the same trace, byte for byte.
type Config struct {
	Name string // recorded as the header's "run"
	Seed int64  // recorded as the header's "seed"

	// Size. Once Events events have been sent, or about Ops operations
	// emitted, nothing new is sent or forked: running tasks finish, queued
	// events run (some may stay pending), some threads end, and the trace
	// ends. Zero means no limit; if both are zero, nothing is sent. A
	// trace sized by Events alone also winds down at about four times its
	// expected number of operations, in case it rarely sends.
	Events int
	Ops    int

	// Threads and queues.
	Loopers       int // looper threads, the first is "main" (at least 1)
	LooperQueues  int // queues per looper: main serves this many, the others 1 to this many
	BinderQueues  int // binder queues
	BinderThreads int // binder threads serving each binder queue (at least 1 if there are binder queues)
	Workers       int // worker threads at the start (more are forked by tasks)
	MaxWorkers    int // live worker threads at most; forks beyond it are skipped

	// Tasks.
	EventActions  int // mean number of actions in an event's body
	WorkerActions int // mean number of actions in a worker thread's body
	Mix           Mix // what an action is

	// Sends.
	Send SendMix

	// Data.
	Classes  int // classes of objects (each with a few fields and statics)
	Objects  int // objects that tasks keep using (older ones are forgotten)
	Handlers int // distinct event handler names per class
	Locks    int // distinct locks (taken in a fixed order, so nesting never deadlocks)
	// ShortLocks keeps critical sections short: a lock is held for a few
	// actions at most, and a worker does not sleep while it holds one.
	// Without it a long-lived worker may hold a lock for much of its life,
	// and the loopers that need it stall.
	ShortLocks bool
	Handles    int // long-lived signal/wait handles (fresh ones are made as needed)

	// Time.
	OpMicros      int // mean virtual time an operation takes, in µs
	ExternalEvery int // mean virtual time between two external inputs, in ms (0: none)
	SleepMillis   int // mean time a worker sleeps between two of its actions, in ms (0: never)

	// Timers are periodic timers (an animation tick, a refresh, a poll):
	// timer i posts an event to looper queue i (modulo their number) as
	// soon as the queue is attached, with a delay of Send.Delays[i]
	// (modulo their number; MaxDelay if there are none), and each of its
	// events first posts the next one with the same delay, until the
	// generation winds down.
	Timers int

	// Optional parts of operations.
	Timestamps   float64 // fraction of operations with "ts"
	Sources      float64 // fraction of operations with "src"
	AbsentValues float64 // fraction of reads and writes whose value is not recorded
	Errors       bool    // a dereferenced null pointer is followed by an "error" operation
}

// Mix gives the relative weights of the actions a task's body is made of.
// Each action emits one or a few operations.
type Mix struct {
	Read   int // read a field (sometimes a dereference, a "use")
	Write  int // write a field (null, a reference, a number, a bool or a string)
	Alloc  int // allocate an object and store it in a field
	Guard  int // read a pointer, branch on it, use it if the branch allows
	Relate int // read two data and relate them (cmp or arith)
	Call   int // enter a nested handler, left after some of the remaining actions
	Lock   int // take a lock (nested locks are taken in order), released later
	Send   int // send one event or a burst of events to one queue
	Remove int // remove a pending event from a looper queue
	Signal int // signal a handle
	Wait   int // wait on a handle (workers block until it is signaled or a timeout)
	Fork   int // fork a worker thread
	Join   int // join a forked thread (blocks until it has ended)
}

// SendMix says how events are sent.
type SendMix struct {
	AtFront   float64 // fraction of sends to looper queues that go at the front
	AtTime    float64 // fraction that go at an absolute time
	Async     float64 // fraction of sends that are asynchronous
	ZeroDelay float64 // fraction of delayed sends with delay 0 (a plain post)
	MaxDelay  int     // delays and at-time offsets are drawn from 1..MaxDelay ms
	// Delays, if not empty, are the only nonzero delays of delayed sends
	// (each as likely), barriers' messages included, as in a program
	// whose few postDelayed calls each use a constant. At-time offsets
	// still come from MaxDelay.
	Delays  []int
	Burst   int     // a send action sends 1..Burst events to the same queue
	Barrier float64 // fraction of send actions to a looper queue that first place a sync barrier
	Binder  float64 // fraction of sends that go to a binder queue
	Self    float64 // fraction of an event's sends that go to its own looper's queues
	// External sends: ExternalTask is the fraction made by the input
	// thread (with "t"); the others come from outside (no "t").
	ExternalTask float64
}

// Small is a preset for equivalence and property tests: a trace of a few
// hundred events with two loopers (main serving two queues), a binder
// queue with two threads, a few workers, and every send kind, barriers,
// removes and signal handoffs at high rates, so that every rule of the
// causality model has many instances even in a short trace.
func Small(seed int64) Config {
	return Config{
		Name:          "small",
		Seed:          seed,
		Events:        150,
		Loopers:       2,
		LooperQueues:  2,
		BinderQueues:  1,
		BinderThreads: 2,
		Workers:       2,
		MaxWorkers:    4,
		EventActions:  4,
		WorkerActions: 8,
		Mix: Mix{
			Read: 4, Write: 3, Alloc: 1, Guard: 1, Relate: 1, Call: 1, Lock: 2,
			Send: 6, Remove: 2, Signal: 2, Wait: 2, Fork: 1, Join: 1,
		},
		Send: SendMix{
			AtFront: 0.2, AtTime: 0.25, Async: 0.4, ZeroDelay: 0.4, MaxDelay: 3,
			Burst: 3, Barrier: 0.15, Binder: 0.15, Self: 0.6, ExternalTask: 0.5,
		},
		Classes:       3,
		Objects:       8,
		Handlers:      3,
		Locks:         3,
		Handles:       3,
		OpMicros:      200,
		ExternalEvery: 5,
		SleepMillis:   1,
		Timestamps:    1,
		Sources:       0.5,
		AbsentValues:  0.1,
	}
}

// Android is a preset for benchmarks: an app-like trace of the given
// number of events, about 20 memory accesses per event, three loopers
// (main serving two queues), a binder queue with four threads, workers
// forked and joined now and then, and external input. Sends are mostly
// plain posts, as in real apps.
func Android(events int, seed int64) Config {
	return Config{
		Name:          "android",
		Seed:          seed,
		Events:        events,
		Loopers:       3,
		LooperQueues:  2,
		BinderQueues:  1,
		BinderThreads: 4,
		Workers:       4,
		MaxWorkers:    12,
		EventActions:  22,
		WorkerActions: 40,
		Mix: Mix{
			Read: 240, Write: 100, Alloc: 16, Guard: 32, Relate: 16, Call: 24, Lock: 8,
			Send: 12, Remove: 1, Signal: 8, Wait: 8, Fork: 2, Join: 2,
		},
		Send: SendMix{
			AtFront: 0.02, AtTime: 0.1, Async: 0.15, ZeroDelay: 0.6, MaxDelay: 100,
			Burst: 2, Barrier: 0.03, Binder: 0.1, Self: 0.7, ExternalTask: 0.5,
		},
		Classes:       20,
		Objects:       200,
		Handlers:      5,
		Locks:         4,
		Handles:       8,
		OpMicros:      40,
		ExternalEvery: 20,
		SleepMillis:   2,
		Timestamps:    1,
		Sources:       0.3,
		AbsentValues:  0.02,
	}
}

// App is a preset for benchmarks shaped like the traces of thesis Table
// 4.1 (20 Android apps under Monkey): a given number of events at a few
// hundred per second of trace time, about 20 memory accesses each, on
// loopers that keep up with their input, so that queues stay short and
// no backlog builds up however long the trace. Six loopers (main serving
// two queues), a binder queue with four threads, a pool of sixteen
// long-lived workers that wait for work and post results back
// (AsyncTask-style handoffs), user input at a human rate (every 150 ms),
// three periodic timers (16, 100 and 300 ms), and posts that are mostly
// plain, with the few distinct delays a program's postDelayed calls use.
// docs/performance.md says how each figure was chosen. [Android] is the
// wide, adversarial counterpart: random delays and loopers that fall
// behind.
func App(events int, seed int64) Config {
	return Config{
		Name:          "app",
		Seed:          seed,
		Events:        events,
		Loopers:       6,
		LooperQueues:  2,
		BinderQueues:  1,
		BinderThreads: 4,
		Workers:       16,
		MaxWorkers:    16,
		EventActions:  22,
		WorkerActions: 3000,
		Mix: Mix{
			Read: 240, Write: 100, Alloc: 16, Guard: 32, Relate: 16, Call: 24, Lock: 8,
			Send: 8, Remove: 1, Signal: 8, Wait: 8, Fork: 1, Join: 0,
		},
		Send: SendMix{
			AtFront: 0.01, AtTime: 0.02, Async: 0.05, ZeroDelay: 0.8, MaxDelay: 1000,
			Delays: []int{16, 100, 300, 1000}, Burst: 2, Barrier: 0.01, Binder: 0.05, Self: 0.7,
			ExternalTask: 0.5,
		},
		Classes:       20,
		Objects:       200,
		Handlers:      5,
		Locks:         4,
		ShortLocks:    true,
		Handles:       8,
		OpMicros:      50,
		ExternalEvery: 150,
		SleepMillis:   100,
		Timers:        3,
		Timestamps:    1,
		Sources:       0.3,
		AbsentValues:  0.02,
	}
}

// normalized returns c with every value in range.
func (c Config) normalized() Config {
	counts := []*int{
		&c.Events, &c.Ops, &c.Loopers, &c.LooperQueues, &c.BinderQueues, &c.BinderThreads,
		&c.Workers, &c.MaxWorkers, &c.EventActions, &c.WorkerActions, &c.Classes, &c.Objects,
		&c.Handlers, &c.Locks, &c.Handles, &c.OpMicros, &c.ExternalEvery, &c.SleepMillis,
		&c.Send.MaxDelay, &c.Send.Burst, &c.Timers,
		&c.Mix.Read, &c.Mix.Write, &c.Mix.Alloc, &c.Mix.Guard, &c.Mix.Relate, &c.Mix.Call,
		&c.Mix.Lock, &c.Mix.Send, &c.Mix.Remove, &c.Mix.Signal, &c.Mix.Wait, &c.Mix.Fork, &c.Mix.Join,
	}
	for _, p := range counts {
		*p = max(*p, 0)
	}
	// Upper bounds keep names and tables small; they are far above any
	// useful shape.
	c.Loopers = min(max(c.Loopers, 1), 256)
	c.LooperQueues = min(max(c.LooperQueues, 1), 16)
	c.BinderQueues = min(c.BinderQueues, 16)
	c.BinderThreads = min(c.BinderThreads, 64)
	if c.BinderQueues > 0 {
		c.BinderThreads = max(c.BinderThreads, 1)
	}
	c.Workers = min(c.Workers, 1024)
	c.MaxWorkers = min(max(c.MaxWorkers, c.Workers), 1024)
	c.Classes = min(max(c.Classes, 1), 1<<10)
	c.Objects = min(max(c.Objects, 1), 1<<16)
	c.Handlers = min(max(c.Handlers, 1), 1<<10)
	c.Locks = min(c.Locks, 1<<10)
	c.Handles = min(c.Handles, 1<<10)
	c.EventActions = min(c.EventActions, 1<<16)
	c.WorkerActions = min(c.WorkerActions, 1<<16)
	c.Send.MaxDelay = min(max(c.Send.MaxDelay, 1), 1<<30)
	c.Send.Burst = min(max(c.Send.Burst, 1), 64)
	delays := make([]int, 0, len(c.Send.Delays)) // a copy: the caller's slice stays theirs
	for _, d := range c.Send.Delays {
		delays = append(delays, min(max(d, 1), 1<<30))
	}
	c.Send.Delays = delays
	c.Timers = min(c.Timers, 1<<10)
	c.OpMicros = min(c.OpMicros, 1<<20)
	c.ExternalEvery = min(c.ExternalEvery, 1<<20)
	c.SleepMillis = min(c.SleepMillis, 1<<20)
	fractions := []*float64{
		&c.Send.AtFront, &c.Send.AtTime, &c.Send.Async, &c.Send.ZeroDelay, &c.Send.Barrier,
		&c.Send.Binder, &c.Send.Self, &c.Send.ExternalTask,
		&c.Timestamps, &c.Sources, &c.AbsentValues,
	}
	for _, p := range fractions {
		if !(*p >= 0) { // also NaN
			*p = 0
		}
		*p = min(*p, 1)
	}
	return c
}
