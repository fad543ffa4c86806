package msgqueue

import (
	"slices"
	"testing"
)

type step struct {
	op    string // post, front, barrier, unbarrier, remove
	id    ID
	when  int64
	async bool
}

// drain runs the queue to empty, advancing time to each wake-up, and
// returns the order of the messages.
func drain(t *testing.T, q *Queue, now int64) []ID {
	t.Helper()
	var got []ID
	for i := 0; i < 1000; i++ {
		id, ok, wake := q.Next(now)
		if ok {
			got = append(got, id)
			continue
		}
		if wake < 0 {
			return got
		}
		now = wake
	}
	t.Fatal("queue never drained")
	return nil
}

func TestOrder(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []ID
	}{
		{"fifo among equal times", []step{{"post", 1, 10, false}, {"post", 2, 10, false}, {"post", 3, 10, false}}, []ID{1, 2, 3}},
		// Fig. 3.4a: non-decreasing delays keep send order.
		{"fig 3.4a", []step{{"post", 1, 5, false}, {"post", 2, 5, false}}, []ID{1, 2}},
		// Fig. 3.4b: a greater delay on the earlier event lets the later go first.
		{"fig 3.4b", []step{{"post", 1, 6, false}, {"post", 2, 5, false}}, []ID{2, 1}},
		{"front goes first", []step{{"post", 1, 0, false}, {"front", 2, 0, false}}, []ID{2, 1}},
		{"fronts are lifo", []step{{"front", 1, 0, false}, {"front", 2, 0, false}}, []ID{2, 1}},
		{"front before earlier-sent delayed", []step{{"post", 1, 3, false}, {"front", 2, 0, false}, {"post", 3, 1, false}}, []ID{2, 3, 1}},
		{"barrier holds sync, lets async pass",
			[]step{{"barrier", 100, 0, false}, {"post", 1, 1, false}, {"post", 2, 2, true}, {"post", 3, 3, false}},
			[]ID{2}},
		{"barrier behind messages does not hold them",
			[]step{{"post", 1, 1, false}, {"barrier", 100, 2, false}, {"post", 2, 3, false}, {"post", 3, 4, true}},
			[]ID{1, 3}},
		{"async keeps fifo among async behind barrier",
			[]step{{"barrier", 100, 0, false}, {"post", 1, 1, true}, {"post", 2, 1, true}},
			[]ID{1, 2}},
		{"removed barrier releases sync",
			[]step{{"barrier", 100, 0, false}, {"post", 1, 1, false}, {"unbarrier", 100, 0, false}},
			[]ID{1}},
		{"remove", []step{{"post", 1, 1, false}, {"post", 2, 1, false}, {"remove", 1, 0, false}}, []ID{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q Queue
			for _, s := range tt.steps {
				switch s.op {
				case "post":
					q.Post(s.id, s.when, s.async)
				case "front":
					q.PostAtFront(s.id, s.async)
				case "barrier":
					q.PostBarrier(s.id, s.when)
				case "unbarrier":
					if !q.RemoveBarrier(s.id) {
						t.Fatalf("barrier %d not found", s.id)
					}
				case "remove":
					if !q.Remove(s.id) {
						t.Fatalf("message %d not found", s.id)
					}
				}
			}
			if got := drain(t, &q, 0); !slices.Equal(got, tt.want) {
				t.Fatalf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNextWaitsForTime(t *testing.T) {
	var q Queue
	q.Post(1, 50, false)
	if _, ok, wake := q.Next(10); ok || wake != 50 {
		t.Fatalf("Next(10) = ok %v, wake %d; want not ready until 50", ok, wake)
	}
	if id, ok, _ := q.Next(50); !ok || id != 1 {
		t.Fatalf("Next(50) = %d, %v; want 1", id, ok)
	}
	if !q.Empty() || !q.Idle() {
		t.Fatal("queue not empty after its only message ran")
	}
}

// TestPriorityTable checks Table 3.1 against the queue: for every pair of
// send kinds where the table orders E1 before E2 (send(E1) first), no
// placement of a barrier and no timing lets E2 run first.
func TestPriorityTable(t *testing.T) {
	type kind struct {
		name  string
		front bool
		at    bool // at-time rather than delayed
		async bool
	}
	kinds := []kind{
		{"delayed-async", false, false, true}, {"delayed-sync", false, false, false},
		{"attime-async", false, true, true}, {"attime-sync", false, true, false},
		{"front-async", true, false, true}, {"front-sync", true, false, false},
	}
	// table[i][j]: 0 false, 1 true, 2 "t1 <= t2" (from Table 3.1).
	table := [6][6]int{
		{2, 2, 0, 0, 0, 0},
		{0, 2, 0, 0, 0, 0},
		{0, 0, 2, 2, 0, 0},
		{0, 0, 0, 2, 0, 0},
		{1, 1, 1, 1, 0, 0},
		{0, 1, 0, 1, 0, 0},
	}
	for i, k1 := range kinds {
		for j, k2 := range kinds {
			for _, times := range [][2]int64{{3, 3}, {3, 5}, {5, 3}} {
				ordered := table[i][j] == 1 || (table[i][j] == 2 && times[0] <= times[1])
				if !ordered {
					continue
				}
				for _, barrierAt := range []int64{-1, 0, 2, 4, 6, 20} {
					for _, gap := range []int64{0, 1, 4} { // time between the sends
						var q Queue
						now := int64(1)
						if barrierAt >= 0 {
							q.PostBarrier(100, barrierAt)
						}
						post := func(id ID, k kind, t int64) {
							switch {
							case k.front:
								q.PostAtFront(id, k.async)
							case k.at:
								q.Post(id, t, k.async)
							default:
								q.Post(id, now+t, k.async)
							}
						}
						post(1, k1, times[0])
						now += gap
						post(2, k2, times[1])
						var got []ID
						for step := 0; step < 100 && q.Messages() > 0; step++ {
							id, ok, wake := q.Next(now)
							switch {
							case ok:
								got = append(got, id)
							case wake >= 0:
								now = wake
							default:
								q.RemoveBarrier(100) // the app removes its barrier eventually
							}
						}
						if !slices.Equal(got, []ID{1, 2}) {
							t.Errorf("%s(t=%d) then %s(t=%d), barrier %d, gap %d: ran %v; Table 3.1 orders 1 before 2",
								k1.name, times[0], k2.name, times[1], barrierAt, gap, got)
						}
					}
				}
			}
		}
	}
}
