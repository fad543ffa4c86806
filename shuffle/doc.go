// Package shuffle is a deterministic event-loop runtime with Android's
// Looper / Handler / MessageQueue semantics that records exact traces of
// the programs it runs, with random user input ("monkey") and schedule
// shuffling (thesis §5.3.4). licorice learns from many such correct,
// shuffled executions; shuffle/apps holds the benchmark apps.
//
// # Running a program
//
// [Run] (or [Record], which writes a trace file) executes a program: a
// main function that runs on the main looper thread before it starts
// looping, sets the app up and declares the monkey's actions. The program
// is ordinary Go code that uses the runtime's types:
//
//   - threads: [Runtime.Go] (a worker thread), [Thread.Join],
//     [Runtime.Sleep] (virtual time: nothing sleeps for real),
//     [Runtime.StartLooper] (a HandlerThread);
//   - queues: [Looper.Post], PostDelayed, PostAtTime, PostAtFront,
//     PostAsync, [Message.Remove], sync barriers, [Looper.Quit], all in the
//     order of internal/msgqueue (Android's MessageQueue);
//   - synchronization: [Mutex], [Cond] (wait/notify), [Handle]
//     (signal/wait: listener registration and invocation, enabling);
//   - the system: [Runtime.StartActivity] (the activity life cycle,
//     driven by binder transactions), [Runtime.CallSystem] (a service
//     that answers on a binder thread), the [World] that sends external
//     events, and [Action]s for the monkey;
//   - the heap: structs that embed [Object], made with [New], whose direct
//     fields of the types [Int], [Float], [Bool], [String] and [Ptr] are
//     recorded; [Array], [PtrArray], [Map] and database tables ([Table]);
//     static fields ([Static]); [Runtime.Assert] and [Runtime.Crash] for
//     failures.
//
// All tasks run one at a time, each on its own goroutine; the running one
// hands the baton to the next only at a recorded operation. Which task
// runs next is chosen by a random scheduler seeded by [Options.Seed]
// (after each operation, with probability [Options.Preempt], and whenever
// the running task blocks), so a seed replays an execution exactly: same
// program, options and seed, same trace, byte for byte. Virtual time
// advances by a microsecond per operation, by Sleep, and by jumping to the
// next timer when every task waits.
//
// # Shuffling
//
// With [Options.Shuffle], each send by the program is, with probability
// 1/2, delayed: the sending task waits an exponentially distributed time
// (mean [Options.DelayMean], gonum's distuv.Exponential) before it sends,
// and the wait ends early as soon as the target queue is empty (holds no
// pending message, delayed ones included), so an idle looper is never kept
// waiting. The sender is simply slower: every order
// the causality model derives still holds (two posts of one sender stay in
// order, a fork still precedes the child), only what the model leaves
// unordered changes. External events are not delayed: the monkey already
// sends them at random times.
//
// Those delays reorder events close in time; events far apart (a refresh
// posted 500 ms after a resume, against the first load of a worker
// looper) keep their order in every run. So a shuffled run also postpones
// a few sends and events far ([Options.Reach], 5%): the sender waits, or
// the looper thread pauses after taking a message and before beginning
// it, for a time drawn log-uniformly between DelayMean and
// [Options.ReachMax] (1 s), not cut short. The first send of each handler
// in a run, and the first event to run each handler, are postponed ten
// times as often (at most half the time): initialization runs once, and
// its order with the events around it is what training misses most. A
// slow sender and a slow looper thread are again orders the model allows.
// These runs hit the apps' harmful orders often, and crash: learning
// uses a run up to its error (learn.Learn).
//
// # The traces
//
// Traces follow DESIGN §3 and docs/causality.md and pass traces.Validator.
// What each op means here:
//
//   - thread_begin/attach: the main looper thread "main" (queue "main"),
//     the binder threads "binder-1", "binder-2" (queue "binder"), and every
//     thread the program starts (ids are their names, made unique with
//     "#2"...; name is the name as given). Worker threads and loopers are
//     forked by the task that starts them; StartLooper records signal (by
//     the new thread, once its queue is attached) and wait (by the
//     caller), as getLooper() does. A looper's queue has its thread's id.
//   - send: internal sends have the sending task as t; external ones (the
//     monkey, the system) have external: true and no t. Delays are whole
//     milliseconds. Events are "E1", "E2", ... in order of sending.
//   - remove: Message.Remove and Looper.Quit's removal of pending events.
//   - begin/end: events run on their looper or binder thread, one at a
//     time per thread.
//   - call/ret: every handler invocation: the function posted (named after
//     it, Java-style: the method value a.onUpdateResults of type
//     *trackDetailActivity is "TrackDetailActivity.onUpdateResults"; see
//     [JavaName]), the life-cycle methods ("TrackDetailActivity.onPause"),
//     the activity's constructor, a worker thread's body, the app's main
//     function ("Application.onCreate"), and nested handlers called with
//     [Runtime.Call]. An event may call several handlers (a relaunch calls
//     onPause ... onResume) and handlers nest. The framework's own code
//     (the binder thread that forwards a life-cycle step) runs outside any
//     handler.
//   - alloc: obj "o1", "o2", ... in order of allocation; site is the
//     allocation context, execution-independent: the innermost handler of
//     the allocating task and the line of the New call
//     ("TrackDetailActivity.onResume:84"); type is the Go struct's name,
//     Java-style ("TrackDataHub"). Tables are objects "db:Tracks" with
//     site "db:Tracks".
//   - read/write: fields by their Go names, with their values (val):
//     pointers as {"ref": "o7"} or null, integers, floats, booleans,
//     strings. Array elements are fields "[i]", map and table entries are
//     fields named by their keys (absent keys read as null). Static fields
//     have class instead of obj. deref: true marks [Ptr.Use] and
//     [PtrArray.Use], the reads whose value is dereferenced ("uses").
//   - relate: [Int.Compare], Less, Equal, Plus, Minus (and Float's, and
//     [String.Equal]) read both fields, then record relate with via cmp or
//     arith: the two data meet in app code, so they share an abstract type.
//   - write: [Int.Add] marks its write update: true (count++); [Static]
//     declares its fields' initial values as writes with init: true.
//   - branch: [Bool.Test] reads the flag, then records branch with cond
//     "true", taken = the flag is true: a guard, a test the code has a
//     path for both ways (if (flag) ...).
//   - branch: [Ptr.NotNull] and [Ptr.IsNull] read the pointer, then record
//     branch with cond "nonnull", taken = the pointer is not null, pc = the
//     source line of the test and target = pc+1. It is the if-nez of
//     `if (p == null) return;` or `if (p != null) {...}`: a forward jump,
//     taken when the pointer is not null, to code that follows the test.
//     For the if-guard heuristic (thesis §3.2.3, Fig. 3.8), a use of the
//     same location by the same handler invocation, after a taken branch,
//     with src in the same file at a line >= target, is guarded: the
//     pointer was tested non-null and the code between was atomic.
//   - lock/unlock: [Mutex] ids "L1", ...; signal/wait: [Handle] ids "m1",
//     ...; a [Cond]'s notification records signal by the notifier and
//     wait by the woken task (a fresh handle per notification).
//   - error: [Ptr.Use] of null ("NullPointerException: ..."),
//     [Runtime.Assert], [Runtime.Crash], a panic of the app's Go code, or
//     a hang: a deadlock (threads waiting for each other's locks, or
//     nothing can happen any more while a thread is blocked), an ANR (a
//     looper leaves a due message waiting over 5 s, or 100 mean shuffle
//     delays if longer: its thread is stuck), or a monkey that finds no
//     action enabled for a minute. The run is not a correct execution:
//     after a crash, the crashing task's locks and calls are unwound
//     (unlock, ret, end) and nothing else runs; a hang's error is by the
//     stuck thread and nothing is unwound. A run that ends before the
//     monkey's last action, without an error from Run, always ends with
//     an error op.
//   - ts on every op: virtual milliseconds since the process started. src
//     where known: the Go file and line of the app code that did the op
//     ("mytracks.go:93"); a call's src is where the handler is defined,
//     when the runtime can tell (not for method values).
//
// Life cycles, service connections and other system callbacks reach the
// app as Android's do: an external send to the binder queue (the
// transaction), whose event waits on the handle the app signaled when it
// asked (bindService, the previous life-cycle step reporting done), then
// posts to the main looper.
package shuffle
