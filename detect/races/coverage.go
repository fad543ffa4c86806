package races

// Race coverage (EventRacer): race (a, b) is covered by race (c, d) if
// a ≼ c and d ≼ b, so that treating (c, d) as synchronization would order
// a before b. Since ≼ follows the trace order, a ≤ c < d ≤ b in the trace:
// every race that covers a race is found before it (or with it). So
// coverage is decided when a race is found, against the races of its kind
// listed so far, with the time of its second access at hand for d ≼ b; for
// a ≼ c, the time of c is looked up among the detector's recent task
// versions (recentTimes), and a race whose c is older than that covers only
// races that share c. No race keeps a vector clock.

// coverScan bounds the listed races one race is compared with: the
// candidates are looked at from those whose first access comes soonest
// after the race's own, so the nearest coverers are found first.
const coverScan = 1 << 10

// coverBucket is the span of trace lines of one bucket of the index.
const coverBucket = 1 << 8

// listed indexes the listed races of one kind by the line of their first
// access, in buckets of coverBucket lines.
type listed struct {
	buckets map[int32][]*found
}

func (l *listed) add(r *found) {
	if l.buckets == nil {
		l.buckets = make(map[int32][]*found)
	}
	k := r.first.line / coverBucket
	l.buckets[k] = append(l.buckets[k], r)
}

// cover returns a listed race that covers race f (found just now), or nil.
func (l *listed) cover(d *Detector, f *found) *found {
	a, b := &f.first, &f.second
	n := 0
	for k := a.line / coverBucket; k <= b.line/coverBucket && n < coverScan; k++ {
		n++ // an empty bucket costs a look too
		for _, c := range l.buckets[k] {
			if n++; n > coverScan {
				break
			}
			if c.first.line < a.line || c.first.line >= b.line || c.second.line > b.line {
				continue
			}
			if c.first.line != a.line {
				t, ok := d.timeOf(c.first.version)
				if !ok || !t.Covers(a.epoch) {
					continue // not a ≼ c
				}
			}
			if c.second.line != b.line && !f.now.Covers(c.second.epoch) {
				continue // not d ≼ b
			}
			return c
		}
	}
	return nil
}
