// Package detect finds pairs of concurrent events that are likely not to
// commute (thesis §5.2.2, §5.4): one event relies on a learned
// precondition that the other makes true or false, and no happens-before
// order fixes which runs first. It is what `licorice detect` runs;
// docs/detection.md is the user's guide, docs/json.md the JSON schema.
//
// [Detect] takes a spec (learn.Spec) and traces, and returns ranked
// [Report]s, which [WriteText], [WriteJSON] and [WriteSARIF] print.
//
// # Realized preconditions
//
// For every handler invocation inside an event, learn's Sampler names the
// data it read live-in (read before its event wrote them) and learn's
// Realizer binds to them every enabled condition of the invocation's
// handler whose symbolic names all bind (thesis §5.2.1; the extra fields
// of objects read live-in count, as in learning). A realized condition c
// is a logical boolean variable identified by its template, its constants
// and its concrete locations in operand order: two handlers' conditions
// that say the same thing about the same locations are one variable,
// whatever their symbolic names. Handler calls outside events (a thread's
// own code) realize nothing: P[e] is about events.
//
// An implication (learn.Condition.Guard: "g ==> c") is realized on its
// data and then its guard's location, and holds where the guard is false
// (invariants.Truthy): an event that clears the guard with the guarded
// data is no KILL of it, and a REQ whose guard was false holds.
//
// An event is a REQ of c if one of its invocations realizes c; the first
// such invocation (in order of their returns) is the one reported. Its
// values are those the invocation read: the values its event saw. A
// condition those values cannot decide (a datum of another type than the
// template's) is no REQ; it is counted (TraceStats.Undecided).
//
// # GEN and KILL
//
// Which locations matter is only known once every REQ is, and a condition
// may be first required after the events that generate or kill it, so
// each trace is read twice: the first pass realizes the conditions, the
// second follows the values of their locations (a shadow heap of the last
// value read or written) and the AsyncClock engine.
//
// An event's effect on c is its own. "Before" is the values of c's
// locations just before the event's first write to one of them; "after"
// is those values with the event's own last writes applied. Writes that
// other tasks make meanwhile (a worker thread, a binder event) are theirs,
// not the event's. The event is a GEN of c if c does not hold before and
// holds after, a KILL if the reverse, a NOP otherwise. If c cannot be
// decided before the event — one of its data has no value yet, or is a
// field of an object the event itself allocated (whatever the event read
// there: a fresh object's default) — the event is no GEN: it initializes
// c. No other event can run before it and find c
// false, since none could reach the object before it existed; reordered,
// that event's symbolic names would bind another object, another logical
// variable (the thesis' event consistency, §5.3.2; CAFA's
// intra-event-allocation filter is the same idea for races). A write
// outside any event, by a thread's own code, is a unit of its own, a GEN
// or KILL like an event.
//
// # Mid-event KILLs
//
// At event granularity an event that turns one valid state into another
// is a NOP, though between two of its writes the condition may be false
// (Firefox's onLocaleChanged writes the language, then the country: the
// pair is a locale nobody chose in between). Events of one looper never
// interleave, but events of two threads do: for a REQ on another thread,
// concurrent with it, such an event is a KILL (an atomicity violation,
// thesis §4.5.5). So the second pass also evaluates c after each of an
// event's own writes to its data, if c held before the event: the first
// write that makes c false opens a mid-event KILL, the next that makes it
// true again closes it. If c holds at the event's end, the event is a
// mid-event KILL touch, placed from the write that made c false to the
// one that made it true again (its values: before the event, then just
// after the first of those writes). It takes no part in the checks below
// (it is no GEN or KILL for M_c, R_c or minor GEN and KILL: c is as it
// was), but forms a REQ-KILL pair with the REQs of c that held, run on
// another thread, and are ordered neither way with that stretch: a REQ
// whose reads all happen before the first write or after the last could
// not have seen c false. As R_c does for KILLs, one REQ stands for the
// others of its chain and requiring spec condition: the concurrent REQs
// of a chain are an interval of it (those before the stretch a prefix,
// those after a suffix), found by binary search, and its first REQ that
// held is paired. There is no further minor-KILL reasoning: the
// event restores c itself, so no GEN can stand between it and a REQ. A
// REQ that did read c false in the middle is a precondition violation,
// paired with the mid-event KILL it read the middle of.
//
// # Where touches are in time
//
// A touch (an event's REQ, GEN or KILL of c) is placed at its own ops,
// not at its event's begin and end: a REQ spans the event's first reads of
// c's locations, a GEN or KILL its writes to them. Touch x happens before
// touch y when x's last op happens before y's first (Time.Covers of the
// engine, for an earlier op against a later one). On one looper this is
// the order of the events (ATOMIC); across threads it is finer, and avoids
// a class of false pairs: a GEN whose write precedes the post of the REQ's
// event (E1 writes, then posts E2 to another looper) is ordered with the
// REQ even though E1 may still run when E2 begins. The property test
// checks these orders against the reference engine.
//
// With AsyncClock's window (Options.Window), touches take the same bet as
// the engine's window and the race detector's: a touch whose first op is
// more than the window later in trace time (ts) than another's last op
// comes after it. It only adds order; touches of a trace without
// timestamps never age.
//
// # Minor GEN and minor KILL
//
// Each GEN e is classified by the definition of §5.2.2: e is minor if every REQ e' of c is e or
// happens before e, or happens after e with a KILL e* strictly in between
// (e ≺ e* ≺ e'); minor KILL likewise, with a GEN in between. "Strictly":
// an event that requires c and then kills it relied on the GEN before it,
// so it does not make that GEN minor. Minor touches commute with every
// other event as far as c goes and take no part in the checks.
//
// # The checks (§5.4)
//
// The touches of c are replayed in trace order (a REQ at its first
// read, a GEN or KILL at its last write), keeping M_c, the last non-minor
// GEN or KILL, and R_c, the last REQ of each chain:
//
//   - a REQ on which c is false is a precondition violation, paired with
//     the last KILL before it (any KILL, ordered or not) or, if it read
//     in the middle of a later mid-event KILL, with that, or alone if
//     none; it is reported only if the run failed (an error op): in a
//     correct run the program went on with c false, so c is no
//     precondition there (TraceStats.Falsified counts them);
//   - a REQ on which c holds forms a GEN-REQ pair with M_c if M_c is a GEN
//     that does not happen before it;
//   - a non-minor KILL forms a REQ-KILL pair with every R_c entry that
//     does not happen before it, and a GEN-KILL pair with M_c if M_c is a
//     GEN that does not happen before it;
//   - a non-minor GEN forms a GEN-KILL pair with M_c if M_c is a KILL that
//     does not happen before it.
//
// A GEN or KILL all of whose writes to the condition's data update in
// place a value the event read there — the write is marked update, or
// has the src of the event's last read of that datum, as the Node.js
// recorder records `count++` and `n -= 1` — is *relative*
// (TraceStats.Relative): its effect is a change, not the value it wrote,
// and had it run at another time it would have written another value. It
// is judged by that change: had it run on the other side of a REQ, the
// REQ would have read its values with the change applied (a KILL that
// ran first) or undone (a GEN that ran after), and the pair is reported
// only if the condition is false on those values. Counters of pending
// work (rimraf's n, glob's _processing) are the example: two decrements
// commute with a reader that needs n >= 0 as long as the reader read
// enough, whatever value each wrote in this run; a decrement past the
// bound the reader needs does not. A change that is not a number at each
// location (an append) pairs with nothing; relative touches are no M_c
// and form no GEN-KILL pairs, though a REQ that found the condition false
// after one is still a violation blamed on it.
//
// A pair whose later event read what the earlier one wrote is left out
// when that read, not the condition, decides the later event's part:
//
//   - a REQ-KILL pair whose KILL's event read a value that the REQ's event
//     wrote (the REQ's write was the last to that location when the KILL's
//     event read it) (TraceStats.ReadReq): the KILL decided on what the
//     REQ left, so had it run first it would have read something else, and
//     whether it would still kill the condition is not known.
//     simplecrawler 1.0.0's crawl tick completes the crawl because the
//     page's event marked the page fetched;
//   - a GEN-REQ pair whose REQ's event read a value the GEN's event wrote
//     at a location other than the condition's (TraceStats.ReadGen): had
//     the REQ run first, it would have read something else there, and
//     need not have required the condition at all. simplecrawler 0.7.0's
//     crawl tick reads the items' fetched flags only once the open
//     requests, which the page's event decremented, are down to 0.
//
// A value updated in place carries the writes it was made from: a read
// of a location reads the last write there and, while each write before
// it updated the value in place, those writes too (at most 64). glob
// counts its pending callbacks down (--this._processing), and the
// callback that finds the count at 0 reads every decrement, including
// those of the callbacks that listed the files.
//
// A read counts also when a cause of the later event made it (of any
// location) before causing it: its sender before the send, the sender of
// that before its send, and so on, and for an event a thread sent (or a
// thread's write), the tasks whose signals the thread waited on before
// (an I/O delivery waits on its origin), before the signal. del's glob
// lists a file in one callback, and the removal of that file is sent by
// code that read the list. An event that merely
// happens before the later one does not count: todolist's onPause comes
// after the user's later actions, not because of them. Only reads inside
// events count, only writes of events that are REQs of some condition
// are followed, and a pair's check visits at most 64 causes.
//
// Where the thesis infers M_c's role from S_c (GEN if S_c is true), the
// role is checked: writes outside the events considered, or a trace that
// begins with c true, then never pair two GENs or two KILLs. R_c is kept
// per chain and per requiring spec condition, not only per chain: reports
// are grouped by handlers and condition, and the last REQ of a chain
// stands for the earlier REQs of the same condition (if it happens before
// a KILL, so do they) but not for another handler's. R_c is not cleared by
// a KILL: an earlier REQ concurrent with a later KILL is a pair too. Two
// touches of one event never pair.
//
// # As the second pass goes
//
// The checks run while the second pass reads the trace, condition by
// condition, not after it: a touch is final when its event ends, and
// every touch before the frontier (the begin of the oldest event still
// running) is final, so the touches before it are replayed in trace
// order. A GEN or KILL waits until it is decided: it is not minor once a
// REQ is concurrent with it, or follows it with no opposite touch in
// between, whatever comes later; it is minor for good once an opposite
// touch it happens before is older than the window at the frontier, as
// every REQ to come follows that one. A mid-event KILL is paired once the
// frontier is more than the window past it. The result is that of
// replaying every touch at the end (the tests compare the two on random
// traces with windows of a few ops).
//
// Memory per trace: the realized conditions; per condition, the touches
// not yet replayed or paired, those M_c and R_c name, and the REQs a
// touch to come may still be concurrent with (those of the last window,
// with a window; all of them without one); the first pass's REQs until
// the second reaches them; and two words per event (its sender and the
// send's op number, for the dependences); not the trace. Classifying a GEN or
// KILL costs up to REQs × opposite touches checks among those held (with
// early exits: a touch concurrent with a REQ is decided at once).
//
// # Reports
//
// Findings are grouped by the unordered pair of their events' handlers
// and the symbolic condition (the requiring handler's spec condition; for
// a GEN-KILL pair, that of the condition's first REQ), across all the
// traces given, in input order. A report's kind is the most severe among
// its findings; its example is the first finding of that kind. Reports
// are ranked: precondition violations first, then REQ-KILL, GEN-REQ,
// GEN-KILL; then by the condition's learned support (a condition learned
// from more samples is more likely a real precondition), then by the
// number of findings, then by handlers and condition text. Ids are ranks;
// the fingerprint (a hash of the handlers and the condition) identifies a
// report across runs (SARIF's partialFingerprints).
//
// Every report says why its two events are concurrent: how each came to
// be — the event, who posted it, who posted that (or forked the thread
// that did), back to the outside world or to a common origin — since no
// chain of happens-before rules orders one's end before the other's begin.
// The passes keep only each event's sender; how each event of those
// chains was sent, where it ran and what it called are read in one more
// read of a trace with reports.
//
// Conditions disabled in the spec are never realized (Result.Disabled
// counts them); findings an [AllowList] matches are counted per rule, not
// reported.
package detect
