package races

import (
	"cmp"
	"slices"
)

// coverage returns, for each race of fs (all of one kind), the index in fs
// of a race that covers it, or -1 (EventRacer's race coverage): race
// (a, b) is covered by race (c, d) if a ≼ c and d ≼ b. Since ≼ follows
// the trace order, c and d lie between a and b in the trace; among the
// candidates, the one whose second access comes first is chosen.
//
// a ≼ c needs c's time, which the detector remembers for recent accesses
// only (see recentTimes); without it the race is not taken as a coverer
// unless c is a itself. d ≼ b needs b's time, which every race keeps.
func coverage(fs []*found) []int {
	out := make([]int, len(fs))
	order := make([]int, len(fs))
	for i := range fs {
		out[i], order[i] = -1, i
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(cmp.Compare(fs[i].second.line, fs[j].second.line), cmp.Compare(fs[i].first.line, fs[j].first.line))
	})
	for i, r := range fs {
		a, b := &r.first, &r.second
		for _, j := range order {
			c := fs[j]
			if c.second.line > b.line {
				break
			}
			if j == i || c.first.line < a.line {
				continue
			}
			if c.first.line != a.line && !(c.t1ok && c.t1.Covers(a.epoch)) {
				continue // not a ≼ c
			}
			if c.second.line != b.line && !r.t2.Covers(c.second.epoch) {
				continue // not d ≼ b
			}
			out[i] = j
			break
		}
	}
	return out
}
