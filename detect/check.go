package detect

import (
	"slices"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// finding is a pair of events likely not to commute, found on one
// condition of one trace.
type finding struct {
	kind Kind
	mid  bool // paired as a mid-event KILL (checker.pairMid): after the condition's others
	cond int32
	// a and b are touches of the condition, a the earlier in the trace:
	// GEN-REQ: the GEN and the REQ; REQ-KILL: the REQ and the KILL;
	// GEN-KILL: the earlier and the later of the two; violation: the KILL
	// that made the condition false (nil if none did) and the REQ.
	a, b *touch
}

// minor reports whether touch e of ts, a condition's touches in trace
// order, is minor (§5.2.2), given the indices of the REQ touches and of
// the touches of the opposite role, each in trace order: e is minor if
// every REQ either is of e's event or happens before e, or happens after
// e with an opposite touch strictly in between (e ≺ o ≺ REQ).
//
// An opposite touch that stands between e and a REQ after it comes after
// e and before that REQ in the trace too, so for each REQ only the
// opposites between the two in the trace are tried, and of those only
// the ones e happens before (found once).
func minor(ts []touch, e int32, reqs, opposite []int32) bool {
	te := &ts[e]
	var after []int32 // the opposites e happens before, in trace order
	afterKnown := false
	for _, r := range reqs {
		tr := &ts[r]
		if tr.unit == te.unit || before(tr, te) {
			continue
		}
		if !before(te, tr) {
			return false // concurrent with a REQ
		}
		if !afterKnown {
			// Those after the last REQ stand between e and none.
			lo, _ := slices.BinarySearch(opposite, e+1)
			hi, _ := slices.BinarySearch(opposite, reqs[len(reqs)-1])
			for _, o := range opposite[lo:max(lo, hi)] {
				if before(te, &ts[o]) {
					after = append(after, o)
				}
			}
			afterKnown = true
		}
		hi, _ := slices.BinarySearch(after, r)
		between := false
		for _, o := range after[:hi] {
			if before(&ts[o], tr) {
				between = true
				break
			}
		}
		if !between {
			return false
		}
	}
	return true
}

// reqAt is the last REQ of a chain by one spec condition: R_c^(i), kept
// per requiring condition.
type reqAt struct {
	chain asyncclock.Chain
	spec  *learn.Condition
	touch int32
}

// shifted returns a REQ's values vals (of a condition over n locations)
// with the change of relative touch x applied (sign 1) or undone (sign
// -1) at each location x changed; ok is false if a change or a value
// there is not a number.
func shifted(n int, x *touch, vals []traces.Value, sign int64) (out []traces.Value, ok bool) {
	out = slices.Clone(vals)
	for i := range n {
		b, a := x.vals[i], x.vals[n+i]
		if a == b {
			continue
		}
		v := vals[i]
		if !a.IsNumber() || !b.IsNumber() || !v.IsNumber() {
			return nil, false
		}
		if a.Kind() == traces.IntValue && b.Kind() == traces.IntValue && v.Kind() == traces.IntValue {
			out[i] = traces.Int(v.Int() + sign*(a.Int()-b.Int()))
		} else {
			out[i] = traces.Float(v.Float() + float64(sign)*(a.Float()-b.Float()))
		}
	}
	return out, true
}
