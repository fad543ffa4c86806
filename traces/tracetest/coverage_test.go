package tracetest

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/licorice-dev/licorice/traces"
)

// smallBatch is the coverage of the batch of traces the coverage test and
// its golden file are about: Small traces, a few of them with errors.
func smallBatch() Coverage {
	var total Coverage
	for seed := range int64(20) {
		cfg := Small(seed)
		cfg.Errors = seed%4 == 0
		c := Measure(Generate(cfg).Ops)
		total.Add(&c)
	}
	return total
}

// TestCoverage checks that a batch of Small traces has every situation of
// the causality model, and pins the counts in a golden file (a change of
// the generator shows there).
func TestCoverage(t *testing.T) {
	total := smallBatch()
	if miss := total.Missing(); len(miss) > 0 {
		t.Errorf("20 Small traces miss %d situations: %v", len(miss), miss)
	}
	golden.Check(t, filepath.Join("testdata", "coverage-small.txt"), []byte(total.String()))
}

// TestGoldenTrace pins a small trace, byte for byte: the same seed must
// give the same trace in every version, or tests elsewhere that name a
// seed change silently.
func TestGoldenTrace(t *testing.T) {
	cfg := Small(1)
	cfg.Events = 30
	golden.Check(t, filepath.Join("testdata", "small-1-30.jsonl"), encode(t, Generate(cfg)))
}

// TestMeasure checks the counts of Measure on small hand-written traces.
func TestMeasure(t *testing.T) {
	plain := func(holds bool) Situation {
		return PrioritySituation(traces.Delayed, false, traces.Delayed, false, holds)
	}
	tests := []struct {
		name  string
		trace string
		want  map[Situation]int
	}{
		{
			name: "fifo",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"send","t":"main","q":"q","e":"e1"}
{"op":"send","t":"main","q":"q","e":"e2","delay":5}
{"op":"send","t":"main","q":"q","e":"e3","delay":2}
{"op":"begin","t":"e1","thread":"main"}
{"op":"end","t":"e1"}
{"op":"begin","t":"e3","thread":"main"}
{"op":"end","t":"e3"}
{"op":"begin","t":"e2","thread":"main"}
{"op":"end","t":"e2"}`,
			want: map[Situation]int{plain(true): 2, plain(false): 1, LoopBeginSetup: 1, LoopBeginIdle: 0, AtomicAtBegin: 0, Pending: 0},
		},
		{
			// Fig. 3.4c: C sends A, then B at front; B runs first.
			name: "atfront",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"send","t":"main","q":"q","e":"C"}
{"op":"begin","t":"C","thread":"main"}
{"op":"send","t":"C","q":"q","e":"A"}
{"op":"send","t":"C","q":"q","e":"B","kind":"at_front"}
{"op":"end","t":"C"}
{"op":"begin","t":"B","thread":"main"}
{"op":"end","t":"B"}
{"op":"begin","t":"A","thread":"main"}
{"op":"end","t":"A"}`,
			want: map[Situation]int{
				AtFront: 1, AtomicAtBegin: 2, plain(true): 1,
				PrioritySituation(traces.Delayed, false, traces.AtFront, false, false): 2,
			},
		},
		{
			// No order between the sends: A's send is not known at B's begin.
			name: "atfront unordered",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"thread_begin","t":"w"}
{"op":"send","t":"w","q":"q","e":"A"}
{"op":"send","t":"main","q":"q","e":"B","kind":"at_front","async":true}
{"op":"begin","t":"B","thread":"main"}
{"op":"end","t":"B"}
{"op":"begin","t":"A","thread":"main"}
{"op":"end","t":"A"}`,
			want: map[Situation]int{AtFront: 0, plain(true): 0, LoopBeginSetup: 1},
		},
		{
			name: "atomic handoff",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"send","t":"main","q":"q","e":"e1"}
{"op":"send","t":"main","q":"q","e":"e2"}
{"op":"begin","t":"e1","thread":"main"}
{"op":"signal","t":"e1","m":"m"}
{"op":"write","t":"e1","obj":"o","field":"f","val":1}
{"op":"end","t":"e1"}
{"op":"begin","t":"e2","thread":"main"}
{"op":"read","t":"e2","obj":"o","field":"f","val":1}
{"op":"wait","t":"e2","m":"m"}
{"op":"wait","t":"e2","m":"never"}
{"op":"end","t":"e2"}`,
			want: map[Situation]int{
				AtomicMidEvent: 1, AtomicAtBegin: 0, SignalWait: 1, WaitUnsignaled: 1, plain(true): 1,
				ReadValue + Situation(traces.IntValue): 1, WriteValue + Situation(traces.IntValue): 1,
			},
		},
		{
			// An event learns of e1's begin through the external chain.
			name: "atomic external",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"thread_begin","t":"w"}
{"op":"send","t":"w","q":"q","e":"e1"}
{"op":"send","t":"w","q":"q","e":"e2"}
{"op":"begin","t":"e1","thread":"main"}
{"op":"send","t":"e1","q":"q","e":"x1","external":true}
{"op":"end","t":"e1"}
{"op":"begin","t":"e2","thread":"main"}
{"op":"send","t":"e2","q":"q","e":"x2","external":true}
{"op":"end","t":"e2"}`,
			want: map[Situation]int{AtomicMidEvent: 1, ExternalOrdered: 1, ExternalWithTask: 2},
		},
		{
			name: "binder",
			trace: `{"op":"thread_begin","t":"b0","kind":"binder"}
{"op":"attach","t":"b0","q":"bq"}
{"op":"thread_begin","t":"w"}
{"op":"send","t":"w","q":"bq","e":"e1","async":true}
{"op":"send","t":"w","q":"bq","e":"e2","async":true}
{"op":"send","q":"bq","e":"e3","external":true}
{"op":"send","t":"w","q":"bq","e":"e4"}
{"op":"begin","t":"e1","thread":"b0"}
{"op":"end","t":"e1"}
{"op":"begin","t":"e2","thread":"b0"}
{"op":"end","t":"e2"}
{"op":"begin","t":"e3","thread":"b0"}
{"op":"end","t":"e3"}
{"op":"begin","t":"e4","thread":"b0"}
{"op":"end","t":"e4"}
{"op":"thread_end","t":"b0"}`,
			// (e1,e2) IPCHANDLE and IPCASYNC; (e1,e4), (e2,e4): async then
			// sync; (·,e3), (e3,e4): another process.
			want: map[Situation]int{IPCHandle: 1, IPCAsync: 1, IPCHandleNot: 5, ExternalWithoutTask: 1, LoopEnd: 4, BinderThreads: 0},
		},
		{
			name: "removed between",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"send","t":"main","q":"q","e":"P"}
{"op":"send","t":"main","q":"q","e":"R"}
{"op":"send","t":"main","q":"q","e":"X"}
{"op":"remove","t":"main","e":"R"}
{"op":"begin","t":"P","thread":"main"}
{"op":"end","t":"P"}
{"op":"begin","t":"X","thread":"main"}
{"op":"end","t":"X"}`,
			want: map[Situation]int{RemovedBetween: 1, plain(true): 3, Pending: 0},
		},
		{
			name: "threads",
			trace: `{"op":"thread_begin","t":"main","kind":"looper"}
{"op":"attach","t":"main","q":"q"}
{"op":"attach","t":"main","q":"q2"}
{"op":"fork","t":"main","child":"w"}
{"op":"thread_begin","t":"w"}
{"op":"send","t":"w","q":"q","e":"e1","external":true}
{"op":"thread_end","t":"w"}
{"op":"begin","t":"e1","thread":"main"}
{"op":"fork","t":"e1","child":"w2"}
{"op":"lock","t":"e1","l":"a"}
{"op":"lock","t":"e1","l":"b"}
{"op":"lock","t":"e1","l":"b"}
{"op":"unlock","t":"e1","l":"b"}
{"op":"unlock","t":"e1","l":"b"}
{"op":"unlock","t":"e1","l":"a"}
{"op":"end","t":"e1"}
{"op":"join","t":"main","child":"w"}
{"op":"send","t":"main","q":"q2","e":"e2"}
{"op":"send","t":"main","q":"q","e":"e3","kind":"at_time","at":100}
{"op":"begin","t":"e2","thread":"main"}
{"op":"call","t":"e2","h":"h"}
{"op":"call","t":"e2","h":"g"}
{"op":"ret","t":"e2","h":"g"}
{"op":"ret","t":"e2","h":"h"}
{"op":"end","t":"e2"}`,
			want: map[Situation]int{
				ForkFromThread: 1, ForkFromEvent: 1, Join: 1, ExternalWithTask: 1, ExternalOrdered: 0,
				LoopBeginSetup: 1, LoopBeginIdle: 1, LooperQueues: 1, Pending: 1,
				NestedLock: 1, ReentrantLock: 1, NestedCall: 1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := traces.NewReader(strings.NewReader("{\"licorice_trace\":1}\n" + tt.trace + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			var ops []traces.Op
			for {
				var op traces.Op
				err := r.Next(&op)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("bad test trace: %v", err)
				}
				ops = append(ops, op)
			}
			c := Measure(ops)
			for s, n := range tt.want {
				if got := c.Count(s); got != n {
					t.Errorf("%v: %d, want %d", s, got, n)
				}
			}
		})
	}
}

// TestSituations checks the names and the set of possible situations.
func TestSituations(t *testing.T) {
	all := Situations()
	seen := make(map[string]bool)
	for _, s := range all {
		name := s.String()
		if strings.HasPrefix(name, "Situation(") || seen[name] {
			t.Errorf("situation %d has no name of its own: %q", int(s), name)
		}
		seen[name] = true
	}
	// 36 cells, 6 of them compare times and have both outcomes.
	priority := 0
	for _, s := range all {
		if strings.HasPrefix(s.String(), "PRIORITY") {
			priority++
		}
	}
	if priority != 42 {
		t.Errorf("%d PRIORITY situations, want 42", priority)
	}
	if got := PrioritySituation(traces.AtFront, true, traces.AtTime, false, true).String(); got != "PRIORITY at_front-async -> at_time-sync: true" {
		t.Errorf("PrioritySituation names %q", got)
	}
}
