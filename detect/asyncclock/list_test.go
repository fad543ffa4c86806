package asyncclock

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestListSearch checks sendList.search, which searches back from the
// end, against a bisection of the whole list.
func TestListSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20_000 {
		n := r.IntN(100)
		l := &sendList{entries: make([]sendEntry, n)}
		k := Clock(1 + r.IntN(3))
		for i := range l.entries {
			l.entries[i].clock = k
			k += Clock(1 + r.IntN(4))
		}
		v := Clock(r.IntN(int(k) + 2))
		want := sort.Search(n, func(i int) bool { return l.entries[i].clock > v }) - 1
		if got := l.search(v); got != want {
			t.Fatalf("search(%d) on clocks %v = %d, want %d", v, clocksOf(l), got, want)
		}
	}
}

func clocksOf(l *sendList) []Clock {
	cs := make([]Clock, len(l.entries))
	for i, x := range l.entries {
		cs[i] = x.clock
	}
	return cs
}

