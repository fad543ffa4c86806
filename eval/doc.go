// Package eval measures licorice against the race detector it is built on,
// on the benchmark apps of shuffle/apps, the way thesis §5.6 (Table 5.1)
// does: for each app, record training runs (half of them shuffled) and
// test runs with fixed seeds, learn a spec from the training runs, run
// detect/races and detect on the same test runs, and compare both to the
// app's ground truth (its harmful handler pairs).
//
// A harmful pair is found by a tool if one of its report groups is about
// the pair's two handlers (a race group's two access contexts, a
// Licorice report's two events' handlers), whatever the data: the races
// and the conditions of one bug may be on different fields (EventRacer's
// onPostExecute relies on database.closed, the race is on database).
// The races baseline counts, as the thesis does, the race groups with
// races between events of one looper thread ("in-thread"); the reduction
// is 1 - Licorice's reports / those groups. A harmful pair counts as
// found by races if any of its groups is about it, in-thread or not (the
// race detector reports both). Race groups, like Licorice's reports,
// treat the elements of one array as one datum.
//
// Everything is seeded, so the same Config gives the same Table.
package eval
