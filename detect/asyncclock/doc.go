// Package asyncclock computes the happens-before relation of an
// event-driven trace, exactly as docs/causality.md defines it.
//
// Two engines live here. [Engine] is AsyncClock (thesis ch. 4): one pass
// over the operations as they stream from a [traces.Reader], giving every
// operation a logical time — a vector clock over chains — with memory that
// stays flat under the time-window approximation. [Graph] is the reference
// engine: an explicit graph of the rules saturated to a fixpoint, slow and
// obviously right, used to test the first and to explain orders (a
// shortest chain of rule applications, [Graph.Explain]). On every trace,
// with the window off, both order exactly the same pairs of operations and
// of events, and reject the same traces as contradicting the model
// ([ConflictError]); the package's equivalence test checks it on thousands
// of random traces that cover every rule.
//
// # Logical time
//
// The engine decomposes the trace's tasks into chains: each thread has a
// chain (a thread that begins after one it knows has ended continues that
// one's chain); events go on their looper's chains by first fit (the
// oldest chain whose last event the begin knows has ended), which stays
// closer to the width of the order than the thesis's FIFO chain
// decomposition (§4.2.2). Every operation gets an [Epoch] — its chain and
// its clock on it, 8 bytes — and a [Time], the vector clock of everything
// that happens before it. For an operation α earlier in the trace than β:
//
//	α ≺ β  ⇔  Time(β).Covers(Epoch(α))
//
// A Time is immutable and shares its storage (blocks of 32 clocks, and
// pages of 8 pointers to blocks) with the times it was made from, so
// keeping one is cheap, even with many chains.
//
// # The machinery (thesis §4.1–4.3)
//
//   - AsyncClocks. The AsyncClock of a queue at a point — for each chain,
//     the last send to the queue the point knows — is read off the point's
//     clock: each chain's sends to a looper queue form an async-before
//     list, and the point's clock of the chain says how far into the list
//     it knows. At an event's begin the engine walks, for each chain with
//     sends still listed, back from that position (the join at begin).
//     The reduction of the AsyncClock at a send (dropping what the new
//     send already precedes) is done by the walks' early stopping instead
//     of being stored: per Table 3.1 category, a time floor below which
//     entries precede a predecessor already joined, the prefix minimum
//     and maximum of each entry, and each list's head (its last settled
//     entry) often answer without looking at the list at all.
//   - PRIORITY, Table 3.1, with at-front events' joins cached per list
//     (the cached at-front joins per chain); ATFRONT by a per-queue list
//     of at-front events (the sent-at-front lists), checked against each
//     begin's send and start; ATOMIC by the intervals of each looper's
//     ended events on their chains (the generalized AsyncClock of ATOMIC
//     read off the clock: a point knows an event began but not that it
//     ended when its clock of the event's chain is inside the interval);
//     binder events by IPCHANDLE (per binder thread, queue, process and
//     syncness, the events it ran that a later one may still need) and
//     IPCASYNC.
//   - Removed events: run(E) is resolved when a successor needs it (or at
//     [Engine.Finish], or as soon as all its predecessors finished) and
//     takes a place on a chain like any event.
//   - Reclaiming: the engine counts the structures that hold an event
//     (lists, intervals, caches) and drops its metadata with the last
//     one. The time window folds the events of a looper that ended more
//     than the window ago into a clock every later event of the looper
//     inherits; they need no look again. A periodic collection drops
//     them from the lists; with the window off it also finds heirless
//     events from the roots (what running tasks, handles, pending events
//     and held events know), with the multi-path reduction of Fig. 4.3.
//   - Contradictions: a begin whose rules order before it an event that
//     has not finished (or an IPCASYNC order against the begin order)
//     stops the run with a [ConflictError] naming both events and lines.
//
// # Using the engine for an analysis
//
// Race detection (detect/races) and commutativity detection (detect) are
// FastTrack-style: they keep, per location or per condition, the epochs of
// past accesses, and check at each new access whether they happen before
// it. Drive the engine with [Run] (or [Engine.Step] per operation) and, in
// the visit function, read the operation's time and epoch:
//
//	cfg := asyncclock.Config{Window: asyncclock.DefaultWindow, WideWindow: true}
//	_, err := asyncclock.Run(ctx, r, cfg,
//		func(op *traces.Op, e *asyncclock.Engine) error {
//			if op.Kind != traces.Write {
//				return nil
//			}
//			now, me := e.Time(), e.Epoch()
//			last := lastWrite[op.Loc] // an Epoch
//			if last != 0 && !now.Covers(last) {
//				report(last, me) // concurrent: a race
//			}
//			lastWrite[op.Loc] = me
//			return nil
//		})
//
// What such an analysis can rely on:
//
//   - An epoch is 8 bytes; keep one per location for the last write, and
//     per chain for reads (FastTrack's read vector, Licorice's R_c^(i)):
//     chains are numbered nearly densely ([Engine.NumChains]; at most 31
//     numbers unused per looper or kind of chain), so a small slice
//     indexed by Chain works. Two accesses of the same task are ordered
//     (same chain, increasing clock).
//   - A Time can be kept as is (it does not change), for example the
//     times of the two accesses of a race, to ask later whether one race
//     covers another (EventRacer's race coverage: does access a happen
//     before access b? Time(b).Covers(Epoch(a))).
//   - Events: [Engine.Event] gives an event's chain, the time of its begin
//     and the epoch of its end while the engine tracks it (until it is
//     reclaimed; [Config.KeepEvents] keeps them all), and [Engine.Order]
//     says whether two events are ordered. [EventInfo.Precedes] is the
//     test Licorice's minor GEN/KILL conditions need (e ⪯ e').
//   - Locks order nothing: a lockset analysis keeps its own locksets.
//   - The relation between an operation and a later one is final when the
//     later one is stepped: a streaming analysis never needs to look back.
//     Removed events are the exception — run(E) is resolved late — and are
//     never the task of an operation.
//
// With the window on, two events of one looper whose gap exceeds the
// window are taken as ordered (an approximation that only adds order);
// a looper's old events fold into its window clock. [Config.WideWindow]
// adds two more such assumptions, which the reference engine
// ([NewGraphConfig]) shares: a signal and a wait (on any handle) more
// than the window apart, and a thread's end and another thread's begin
// more than the window apart, are ordered too. Then old signals fold into
// one clock every wait learns (their handles are let go), and a new
// thread takes the chain of one that ended long ago, so that memory and
// the width of clocks stay flat on long traces that keep making handles
// and threads. Removed events' run(E) may miss predecessors that had
// become old, and a removed event resolved more than the window ago
// leaves its async-before list like an old event of the looper.
// Everything else is exact. licorice's analyses (detect, races, hb, eval)
// turn WideWindow on whenever they use a window.
package asyncclock
