package asyncclock

import (
	"math/rand/v2"
	"testing"
)

// TestLanesAbove checks lanesAbove against a scan: every lane where u is
// above t is in the set, and no other one while t's clocks stay below
// 1<<31.
func TestLanesAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	clock := func(high bool) Clock {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			if high {
				return Clock(1<<31 + r.IntN(8))
			}
		}
		return Clock(r.IntN(8))
	}
	for range 50_000 {
		high := r.IntN(4) == 0
		var u, v [chunkSize]Clock
		for j := range u {
			u[j], v[j] = clock(high), clock(high)
			if r.IntN(3) == 0 {
				v[j] = u[j]
			}
		}
		m := lanesAbove(&u, &v)
		for j := range u {
			in := m>>j&1 != 0
			if u[j] > v[j] && !in {
				t.Fatalf("lanesAbove(%v, %v) = %b: lane %d is above but not in it", u, v, m, j)
			}
			if u[j] <= v[j] && in && v[j] < 1<<31 {
				t.Fatalf("lanesAbove(%v, %v) = %b: lane %d is not above but in it", u, v, m, j)
			}
		}
	}
}

// TestLanesAboveBoth checks lanesAboveBoth, where the machine has it,
// against a scan: exactly the lanes where both u and v are above t, for
// any clocks (those at and above 1<<31 too).
func TestLanesAboveBoth(t *testing.T) {
	if !vecBlocks {
		t.Skip("no AVX2: lanesAboveBoth is not used")
	}
	r := rand.New(rand.NewPCG(9, 10))
	clock := func() Clock {
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return Clock(1<<31 + r.IntN(4))
		case 2:
			return ^Clock(r.IntN(2))
		}
		return Clock(r.IntN(6))
	}
	for range 50_000 {
		var u, v, w [chunkSize]Clock
		for j := range u {
			u[j], v[j], w[j] = clock(), clock(), clock()
			switch r.IntN(4) {
			case 0:
				u[j] = w[j]
			case 1:
				v[j] = w[j]
			}
		}
		m := lanesAboveBoth(&u, &v, &w)
		for j := range u {
			if in, want := m>>j&1 != 0, u[j] > w[j] && v[j] > w[j]; in != want {
				t.Fatalf("lanesAboveBoth(%v, %v, %v) = %b: lane %d in it %v, want %v", u, v, w, m, j, in, want)
			}
		}
	}
}

// TestRecentBegunOrder checks the ring of the last events begun of a
// category and time: latest(k) is the k-th latest added, and nil before
// that many were added, however often the ring went round, and the
// ring's copies of its send's number and epoch are its own.
func TestRecentBegunOrder(t *testing.T) {
	evs := make([]event, 3*recentSize+5)
	for i := range evs {
		evs[i].sendSeq = int64(i + 1)
		evs[i].sendEpoch = MakeEpoch(Chain(i%5+1), Clock(i+1))
	}
	for n := range len(evs) + 1 {
		var r recentBegun
		for i := range n {
			r.add(&evs[i])
		}
		for k := range recentSize {
			var want *event
			if k < n {
				want = &evs[n-1-k]
			}
			if r.latest(k) != want {
				t.Fatalf("after %d added, latest(%d) is not the %d-th added (nil if none)", n, k, n-k)
			}
			if seq := r.latestSeq(k); want != nil && seq != want.sendSeq || want == nil && seq != 0 {
				t.Fatalf("after %d added, latestSeq(%d) = %d, not the sendSeq of latest(%d)", n, k, seq, k)
			}
			if send := r.latestSend(k); want != nil && send != want.sendEpoch || want == nil && send != 0 {
				t.Fatalf("after %d added, latestSend(%d) = %v, not the sendEpoch of latest(%d)", n, k, send, k)
			}
		}
	}
}
