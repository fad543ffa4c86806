package asyncclock

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces/tracetest"
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

// TestCompactDropsAbsorbed checks, after every collection on an app's
// trace with a short window, that compact, which looks only at the events
// of entries that finished more than the window ago (mayBeAbsorbed), and
// only at the lists with such entries (endedFrom, read in the list's
// head), left no entry whose
// event is absorbed or could be retired, that each entry's copy of its
// event's end time is the event's, and that the summaries, which compact
// keeps or trims rather than make afresh, are what summarize makes.
func TestCompactDropsAbsorbed(t *testing.T) {
	events := 6_000
	if testing.Short() {
		events = 2_000
	}
	tr := generated(tracetest.App(events, 3))
	for _, window := range []time.Duration{20 * time.Millisecond, time.Second} {
		e := New(tr.syms, Config{Window: window, GCEvery: 97})
		var collections, folded int
		for i := range tr.ops {
			if err := e.Step(&tr.ops[i], tr.lines[i]); err != nil {
				t.Fatalf("window %v: %v", window, err)
			}
			st := e.Stats()
			if st.Collections == collections {
				continue
			}
			collections, folded = st.Collections, int(st.WindowFolded)
			if n := e.listEntries(); st.ListEntries != n {
				t.Fatalf("window %v, line %d: Stats.ListEntries is %d, the lists hold %d entries", window, tr.lines[i], st.ListEntries, n)
			}
			for _, q := range e.queueOrder {
				for k, h := range q.heads {
					if h.l.head != k {
						t.Fatalf("window %v, line %d: the head at %d of list of chain %d, which says it is at %d", window, tr.lines[i], k, h.chain, h.l.head)
					}
					if h.endedFrom == 0 && e.ts > e.window {
						t.Fatalf("window %v, line %d: the head of list of chain %d lost its endedFrom", window, tr.lines[i], h.chain)
					}
					for k := range h.l.entries {
						x := &h.l.entries[k]
						p := x.ev
						if p.absorbed || p.status == evResolved && e.ts-p.endTS > e.window {
							t.Fatalf("window %v, line %d: after a collection, %s (status %d) is on a list, absorbed or old", window, tr.lines[i], e.name(p.id), p.status)
						}
						if p.finished() && (x.end != p.endEpoch() || x.endTS != p.endTS) {
							t.Fatalf("window %v, line %d: the entry of %s holds end %v at %v, its event %v at %v", window, tr.lines[i], e.name(p.id), x.end, x.endTS, p.endEpoch(), p.endTS)
						}
						if x.end != 0 && x.endTS < h.endedFrom {
							t.Fatalf("window %v, line %d: the entry of %s ended at %v, before its list's endedFrom %v", window, tr.lines[i], e.name(p.id), x.endTS, h.endedFrom)
						}
					}
					checkSummaries(t, h.l, fmt.Sprintf("window %v, line %d, list of chain %d", window, tr.lines[i], h.chain))
				}
			}
		}
		if collections < 10 || folded == 0 {
			t.Fatalf("window %v: %d collections, %d events absorbed: the test checks little", window, collections, folded)
		}
		t.Logf("window %v: %d collections, %d events absorbed", window, collections, folded)
	}
}

// checkSummaries fails t unless the summaries of l's entries, and l's,
// are those summarize makes of its entries afresh.
func checkSummaries(t *testing.T, l *sendList, where string) {
	t.Helper()
	fresh := &sendList{entries: slices.Clone(l.entries)}
	for i := range fresh.entries {
		fresh.summarize(i, &fresh.entries[i])
	}
	for i := range l.entries {
		if l.entries[i] != fresh.entries[i] {
			t.Fatalf("%s: entry %d of %d is %+v, summarized afresh %+v", where, i, len(l.entries), l.entries[i], fresh.entries[i])
		}
	}
	if l.seen != fresh.seen || l.has != fresh.has {
		t.Fatalf("%s: the list has seen %b, has %v; afresh %b, %v", where, l.seen, l.has, fresh.seen, fresh.has)
	}
	for c, has := range l.has {
		if has && (l.min[c] != fresh.min[c] || l.max[c] != fresh.max[c]) {
			t.Fatalf("%s: category %d's times are %d to %d; afresh %d to %d", where, c, l.min[c], l.max[c], fresh.min[c], fresh.max[c])
		}
	}
}
