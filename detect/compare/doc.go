// Package compare compares licorice's race detector with DroidRacer
// (Maiya, Kanade and Majumdar, PLDI 2014) on the executions DroidRacer
// recorded of real Android apps: what `licorice compare droidracer` prints.
//
// [DroidRacer] imports a DroidRacer log (traces/droidracer), runs licorice's
// data race detector (detect/races) on the imported trace with the exact
// happens-before relation, and sets its races beside the race witnesses at
// the end of the log, location by location. A location is named as
// DroidRacer names it ([Key]): an object's address and a field offset, a
// class and a static field, or a database; the import's names for the
// objects that lived at one address one after the other ("0x41…#2") fold
// into the address.
//
// DroidRacer prints one witness per racy location and category. A witness
// and a race of licorice are the same race when they are on the same
// location and licorice considers the witness's own two accesses a data
// race: by different tasks, concurrent, holding no common lock. Each
// location gets a [Verdict] (both tools report it, DroidRacer only,
// licorice only) and a [Reason], the class of the difference:
//
//   - for a witness licorice does not consider a race: the chain of rules
//     that orders its two accesses in licorice's model (the reference
//     engine's shortest chain, with the premises of PRIORITY and ATOMIC),
//     the lock both held, or the two objects DroidRacer confuses;
//   - for a location only licorice reports: the rule of DroidRacer's that
//     orders it, found by adding DroidRacer's rules licorice lacks to the
//     trace one at a time (the activity lifecycle, the unlock→lock order)
//     and running the detector again, with the chain the added rule
//     completes, and `licorice hb`'s account of why licorice finds the two
//     events concurrent.
//
// docs/droidracer.md explains every class on the two real logs.
package compare
