// Package races finds races between concurrent operations of an
// event-driven trace: the baseline race detector licorice is built on
// (thesis §3.2 and §4.4), and what `licorice races` prints.
//
// A [Detector] streams the operations of one trace through the AsyncClock
// engine ([asyncclock.Engine]) and checks every heap access against a
// shadow of earlier accesses to the same location, FastTrack-style: per
// location, the epochs of the accesses that may still race with a later
// one. Two kinds of race are found:
//
//   - data races: two accesses to one location (an object field, a static
//     field, an array element "[i]", a high-level location such as a
//     database row), at least one a write, not ordered by happens-before,
//     and not both made while holding a common lock (locks give mutual
//     exclusion, never order; so a lock held by two events of one looper
//     thread, which never overlap anyway, suppresses nothing). By default at least one race is reported
//     for every access that races with an earlier one, so the first race
//     of every location is among them; with [Config.All], every racing
//     pair.
//   - use-free races (CAFA, thesis §3.2.1): a use (a read whose value is
//     dereferenced) and a free (a write of null) of one location, not
//     ordered by happens-before, each checked against the free before and
//     the free after it. Locks do not matter here: a lock cannot stop the
//     free from coming first. Between events of the same looper thread,
//     CAFA's filters (§3.2.3) drop the races its heuristics find harmless:
//     a use guarded by a null test in the same handler invocation
//     (if-guard), and a use after, or a free before, a non-null write to
//     the location in the same event (intra-event allocation).
//
// Every race names both accesses (line, task, event, handler, thread,
// time, source location, value), the location, and whether the two
// accesses are events of the same looper thread (the thesis' "in-thread"
// races, which Licorice's reports are compared with).
//
// Races are then triaged as EventRacer does: a race (a, b) is covered by
// another race (c, d) if a ≼ c and d ≼ b, that is if treating the other
// race as synchronization would order it; covered races are listed after
// the uncovered ones. Races the user declares harmless in a [Filter] file
// are dropped and counted. The rest are grouped by location (named
// independently of object identity: allocation site and field, or class
// and field) and the unordered pair of handlers, and printed as text or
// JSON (docs/races.md, docs/json.md).
//
// The package also explains orders between events ([Explain]): whether
// one event happens before another and the shortest chain of rule
// applications that shows it, or what each lacks when they are
// concurrent. `licorice hb` prints it.
package races
