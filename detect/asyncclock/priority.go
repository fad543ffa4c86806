package asyncclock

import "github.com/licorice-dev/licorice/traces"

// cat is the column (or row) of Table 3.1 an event falls in: how it was
// sent and whether it is asynchronous.
type cat uint8

const (
	catDA  cat = iota // delayed, async
	catDS             // delayed, sync
	catTA             // at-time, async
	catTS             // at-time, sync
	catAFA            // at-front, async
	catAFS            // at-front, sync
	numCats
)

func catOf(kind traces.SendKind, async bool) cat {
	c := catDS
	switch kind {
	case traces.AtTime:
		c = catTS
	case traces.AtFront:
		c = catAFS
	}
	if async {
		c--
	}
	return c
}

// timed reports whether events of c carry a time that Table 3.1 compares.
func (c cat) timed() bool { return c < catAFA }

func (c cat) bit() uint8 { return 1 << c }

// async reports whether events of c are asynchronous.
func (c cat) async() bool { return c%2 == 0 }

// priority is Table 3.1: whether an event of category c1 and time t1,
// sent causally before an event of category c2 and time t2 to the same
// looper queue, is run before it.
func priority(c1 cat, t1 int64, c2 cat, t2 int64) bool {
	switch c1 {
	case catDA:
		return (c2 == catDA || c2 == catDS) && t1 <= t2
	case catDS:
		return c2 == catDS && t1 <= t2
	case catTA:
		return (c2 == catTA || c2 == catTS) && t1 <= t2
	case catTS:
		return c2 == catTS && t1 <= t2
	case catAFA:
		return c2.timed()
	case catAFS:
		return c2 == catDS || c2 == catTS
	}
	return false
}

// predCats[c] is the set of categories whose events may be ordered before
// an event of category c by Table 3.1.
var predCats = [numCats]uint8{
	catDA:  catDA.bit() | catAFA.bit(),
	catDS:  catDA.bit() | catDS.bit() | catAFA.bit() | catAFS.bit(),
	catTA:  catTA.bit() | catAFA.bit(),
	catTS:  catTA.bit() | catTS.bit() | catAFA.bit() | catAFS.bit(),
	catAFA: 0,
	catAFS: 0,
}
