package main

import (
	"os"
	"runtime/debug"
)

// stateGCPercent is the garbage collector's target for learn, detect and
// hb: most of what they hold is long-lived state (learn: a summary per
// datum and per pair of every handler; detect: a record per event and
// the conditions' streams; hb: the engine's times and the search's
// nodes), so collecting when the heap has grown by half rather than
// doubled keeps their memory at 1.5 times the state rather than twice,
// for some more CPU, most of it on a second core (docs/performance.md).
// races is not among them: its shadow of accesses churns, and it took a
// fifth longer.
const stateGCPercent = 50

// collectOften sets stateGCPercent, unless the user set GOGC.
func collectOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(stateGCPercent)
	}
}
