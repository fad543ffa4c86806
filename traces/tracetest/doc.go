// Package tracetest generates random traces that are valid and consistent
// with the causality model, for property tests and benchmarks.
//
// A trace is not shuffled lines but the recording of a simulated
// event-driven program (see [Generator]): looper threads (some serving
// several queues), binder queues served by several binder threads, worker
// threads forked and joined by threads and by events, and an outside world
// that sends input. Tasks read and write a heap of objects (every value
// form, absent values, dereferences), allocate, relate and branch on data,
// call nested handlers, take nested locks, signal and wait (including
// handoffs between events of one looper), send events of every kind (plain
// posts, delays, absolute times, at front; sync and async; with sync
// barriers in the queues, which let async messages overtake sync ones) and
// remove pending ones. Loopers pick events with Android's MessageQueue
// order (internal/msgqueue) in virtual time; "ts" is that time in ms.
//
// # Guarantees
//
//   - Validity: every trace passes [traces.Validator] and reads back through
//     the strict text decoder, for every Config and seed.
//   - Consistency: no rule of docs/causality.md orders an operation before
//     one executed earlier. Events of a looper never interleave (ATOMIC
//     holds), looper queues follow Table 3.1 and ATFRONT by construction,
//     binder threads take their queue's events in FIFO order, a join
//     follows its child's end, and ts never decreases.
//   - Determinism: the same Config (seed included) gives the same trace,
//     byte for byte; in memory ([Generate]) or streamed ([Write],
//     [Generator]) alike.
//   - Coverage: over a few dozen [Small] traces, every rule situation of
//     the model occurs ([Measure], [Situation]): each cell of Table 3.1
//     with each outcome, ATFRONT, ATOMIC at an event's begin and through a
//     handoff inside it, IPCHANDLE and IPCASYNC, removed events between a
//     predecessor and a successor, external sends with and without a task,
//     LOOPBEGIN after set-up and between events, LOOPEND, forks from
//     threads and events, joins, waits with and without a signal, events
//     still pending at the end, and every operation form.
//
// # Shapes
//
// [Small] is for equivalence and property tests: 150 events on two loopers
// (main serving two queues), a binder queue with two threads and a few
// workers, dense in rule situations, so a bug shows up within a few seeds.
// [App] is for benchmarks: a trace shaped like a real app's (thesis Table
// 4.1) of a given number of events with about 20 memory accesses each:
// loopers that keep up with their input at a few hundred events per
// second, a pool of long-lived workers, periodic timers, human-rate input
// and few distinct delays. [Android] is the wide, adversarial benchmark:
// random delays, workers forked and joined all the time, loopers that fall
// behind, so that most events are concurrent with most others (about 36
// operations per event, mostly plain posts, a few barriers, at-front and
// at-time sends). Any field of a [Config] can be changed; see its
// documentation.
//
// # Use
//
// In a property test, generate traces for many seeds and compare two
// implementations on each:
//
//	for seed := range int64(500) {
//		tr := tracetest.Generate(tracetest.Small(seed))
//		// tr.Header, tr.Symbols, tr.Ops; tr.Encode(w, traces.JSONL)
//		cov := tracetest.Measure(tr.Ops)
//		total.Add(&cov)
//	}
//	t.Log(total.String()) // what the test exercised
//
// In a benchmark, stream the trace without holding it:
//
//	g := tracetest.NewGenerator(tracetest.Android(1_000_000, 1))
//	var op traces.Op
//	for g.Next(&op) { ... } // op's Syms are g.Symbols()'s
//
// or write it to a file once, in any form, in flat memory:
//
//	n, err := tracetest.Write(ctx, f, traces.LCT, tracetest.Android(1_000_000, 1))
package tracetest
