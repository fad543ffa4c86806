package races

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// detectText runs the detector on a trace given as JSONL without its
// header (the first op is on line 2).
func detectText(t testing.TB, text string, cfg Config) *Report {
	t.Helper()
	text = `{"licorice_trace":1}` + "\n" + strings.TrimLeft(text, "\n")
	r, err := traces.NewReader(strings.NewReader(text), traces.WithName("test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Detect(context.Background(), r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// raceList prints the races of rep as "kind first-second", with " covered"
// for covered races and " in-thread" for in-thread ones, sorted.
func raceList(rep *Report) []string {
	var out []string
	for _, g := range rep.Groups {
		for _, r := range g.Races {
			s := fmt.Sprintf("%s %d-%d", r.Kind, r.First.Line, r.Second.Line)
			if r.InThread {
				s += " in-thread"
			}
			if r.Covered {
				s += " covered"
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Common beginnings of the traces below: two worker threads, or a looper
// L serving queue q with two workers that post to it.
const (
	twoThreads = `
{"op":"thread_begin","t":"T1"}
{"op":"thread_begin","t":"T2"}`
	looper = `
{"op":"thread_begin","t":"L","kind":"looper","name":"main"}
{"op":"attach","t":"L","q":"q"}
{"op":"thread_begin","t":"T1"}
{"op":"thread_begin","t":"T2"}
{"op":"send","t":"T1","q":"q","e":"A"}
{"op":"send","t":"T2","q":"q","e":"B"}`
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name  string
		trace string
		cfg   Config
		want  []string
	}{
		{
			name: "write-write between threads",
			trace: twoThreads + `
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}`,
			want: []string{"data 4-5"},
		},
		{
			name: "read-write, write-read",
			trace: twoThreads + `
{"op":"read","t":"T1","obj":"o","field":"f","val":0}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"read","t":"T1","obj":"o","field":"g"}
{"op":"read","t":"T2","obj":"o","field":"g"}
{"op":"read","t":"T1","class":"C","field":"f"}`,
			want: []string{"data 4-5"},
		},
		{
			name: "fork orders",
			trace: `
{"op":"thread_begin","t":"T1"}
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"fork","t":"T1","child":"T2"}
{"op":"thread_begin","t":"T2"}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"write","t":"T1","obj":"o","field":"f","val":3}`,
			want: []string{"data 6-7"},
		},
		{
			name: "statics, objects and array elements are different locations",
			trace: twoThreads + `
{"op":"write","t":"T1","class":"o","field":"f","val":1}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"write","t":"T1","obj":"a","field":"[0]","val":1}
{"op":"write","t":"T2","obj":"a","field":"[1]","val":2}
{"op":"write","t":"T2","obj":"a","field":"[0]","val":2}`,
			want: []string{"data 6-8"},
		},
		{
			name: "a common lock suppresses",
			trace: twoThreads + `
{"op":"lock","t":"T1","l":"L"}
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"unlock","t":"T1","l":"L"}
{"op":"lock","t":"T2","l":"M"}
{"op":"lock","t":"T2","l":"L"}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"unlock","t":"T2","l":"L"}
{"op":"write","t":"T2","obj":"o","field":"f","val":3}
{"op":"unlock","t":"T2","l":"M"}`,
			want: []string{"data 5-11"},
		},
		{
			// Events of one looper never run at the same time, and either
			// may run first: a lock both hold orders nothing.
			name: "a common lock does not suppress between events of one looper",
			trace: looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"lock","t":"A","l":"M"}
{"op":"write","t":"A","obj":"o","field":"f","val":1}
{"op":"unlock","t":"A","l":"M"}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"lock","t":"B","l":"M"}
{"op":"read","t":"B","obj":"o","field":"f"}
{"op":"unlock","t":"B","l":"M"}
{"op":"end","t":"B"}`,
			want: []string{"data 10-15 in-thread"},
		},
		{
			// T2's write after A, under A's lock, does not stand for A's:
			// B's write under that lock races with A's (one looper), not
			// with T2's (a common lock, two threads).
			name: "a protected access on another thread does not hide a looper event's",
			trace: looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"lock","t":"A","l":"M"}
{"op":"write","t":"A","obj":"o","field":"f","val":1}
{"op":"unlock","t":"A","l":"M"}
{"op":"signal","t":"A","m":"m"}
{"op":"end","t":"A"}
{"op":"wait","t":"T2","m":"m"}
{"op":"lock","t":"T2","l":"M"}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"unlock","t":"T2","l":"M"}
{"op":"begin","t":"B","thread":"L"}
{"op":"lock","t":"B","l":"M"}
{"op":"write","t":"B","obj":"o","field":"f","val":3}
{"op":"unlock","t":"B","l":"M"}
{"op":"end","t":"B"}`,
			want: []string{"data 10-20 in-thread"},
		},
		{
			// T2's protected write does not stand for T1's unprotected one:
			// T3's read under the same lock races with T1's write only.
			name: "a protected access does not hide an unprotected one",
			trace: twoThreads + `
{"op":"thread_begin","t":"T3"}
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"signal","t":"T1","m":"m"}
{"op":"wait","t":"T2","m":"m"}
{"op":"lock","t":"T2","l":"L"}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"unlock","t":"T2","l":"L"}
{"op":"lock","t":"T3","l":"L"}
{"op":"read","t":"T3","obj":"o","field":"f"}
{"op":"unlock","t":"T3","l":"L"}`,
			want: []string{"data 5-12"},
		},
		{
			// Without All, one race for each racing access: the latest
			// access it races with.
			name: "one race per racing access",
			trace: twoThreads + `
{"op":"thread_begin","t":"T3"}
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"read","t":"T3","obj":"o","field":"f"}`,
			want: []string{"data 5-6", "data 6-7"},
		},
		{
			name: "every pair with all",
			cfg:  Config{All: true},
			trace: twoThreads + `
{"op":"thread_begin","t":"T3"}
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"write","t":"T2","obj":"o","field":"f","val":2}
{"op":"read","t":"T3","obj":"o","field":"f"}`,
			want: []string{"data 5-6", "data 5-7", "data 6-7"},
		},
		{
			name: "events of one looper: concurrent, and ordered by FIFO",
			trace: looper + `
{"op":"send","t":"T2","q":"q","e":"C"}
{"op":"begin","t":"A","thread":"L"}
{"op":"write","t":"A","obj":"o","field":"f","val":1}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"read","t":"B","obj":"o","field":"f","val":1}
{"op":"end","t":"B"}
{"op":"begin","t":"C","thread":"L"}
{"op":"write","t":"C","obj":"o","field":"f","val":1}
{"op":"end","t":"C"}`,
			want: []string{"data 10-13 in-thread", "data 10-16 in-thread covered"},
		},
		{
			name: "use-free between events of one looper, and the data race",
			trace: looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"call","t":"A","h":"Act.onResume"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}
{"op":"ret","t":"A","h":"Act.onResume"}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"call","t":"B","h":"Act.onDestroy"}
{"op":"write","t":"B","obj":"o","field":"p","val":null}
{"op":"ret","t":"B","h":"Act.onDestroy"}
{"op":"end","t":"B"}`,
			want: []string{"data 10-15 in-thread", "use-free 10-15 in-thread"},
		},
		{
			name: "use-free only",
			cfg:  Config{Kind: UseFree},
			trace: twoThreads + `
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"read","t":"T1","obj":"o","field":"p","val":null,"deref":true}
{"op":"read","t":"T1","obj":"o","field":"p","val":null}
{"op":"write","t":"T2","obj":"o","field":"p","val":1}`,
			want: []string{"use-free 4-5"},
		},
		{
			// A use checks the free before it and the free after it;
			// frees further away are not checked (CAFA).
			name: "use-free: the previous and the next free",
			cfg:  Config{Kind: UseFree},
			trace: twoThreads + `
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"read","t":"T1","obj":"o","field":"p","val":null,"deref":true}
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"write","t":"T2","obj":"o","field":"p","val":null}`,
			want: []string{"use-free 5-6", "use-free 6-7"},
		},
		{
			name: "use-free: all pairs",
			cfg:  Config{Kind: UseFree, All: true},
			trace: twoThreads + `
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"read","t":"T1","obj":"o","field":"p","val":null,"deref":true}
{"op":"write","t":"T2","obj":"o","field":"p","val":null}`,
			want: []string{"use-free 4-6 covered", "use-free 5-6", "use-free 6-7"},
		},
		{
			// Locks do not stop a use-after-free: the free may come first.
			name: "use-free under a common lock",
			cfg:  Config{Kind: UseFree},
			trace: twoThreads + `
{"op":"lock","t":"T1","l":"L"}
{"op":"read","t":"T1","obj":"o","field":"p","val":{"ref":"x"},"deref":true}
{"op":"unlock","t":"T1","l":"L"}
{"op":"lock","t":"T2","l":"L"}
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"unlock","t":"T2","l":"L"}`,
			want: []string{"use-free 5-8"},
		},
		{
			name: "default reports the last write, all every pair",
			trace: twoThreads + `
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"write","t":"T1","obj":"o","field":"f","val":2}
{"op":"read","t":"T2","obj":"o","field":"f","val":2}`,
			want: []string{"data 5-6"},
		},
		{
			name: "all",
			cfg:  Config{All: true},
			trace: twoThreads + `
{"op":"write","t":"T1","obj":"o","field":"f","val":1}
{"op":"write","t":"T1","obj":"o","field":"f","val":2}
{"op":"read","t":"T2","obj":"o","field":"f","val":2}`,
			want: []string{"data 4-6 covered", "data 5-6"},
		},
		{
			// Race coverage (EventRacer): A writes d then the flag x; B
			// reads x then d. Treating the race on x as synchronization
			// orders the race on d, which is covered.
			name: "coverage",
			cfg:  Config{Kind: DataRace},
			trace: looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"write","t":"A","obj":"o","field":"d","val":1}
{"op":"write","t":"A","obj":"o","field":"x","val":true}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"read","t":"B","obj":"o","field":"x","val":true}
{"op":"read","t":"B","obj":"o","field":"d","val":1}
{"op":"end","t":"B"}`,
			want: []string{"data 10-13 in-thread", "data 9-14 in-thread covered"},
		},
		{
			// Reversed order of the reads: neither race covers the other.
			name: "no coverage",
			cfg:  Config{Kind: DataRace},
			trace: looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"write","t":"A","obj":"o","field":"d","val":1}
{"op":"write","t":"A","obj":"o","field":"x","val":true}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"read","t":"B","obj":"o","field":"d","val":1}
{"op":"read","t":"B","obj":"o","field":"x","val":true}
{"op":"end","t":"B"}`,
			want: []string{"data 10-14 in-thread", "data 9-13 in-thread"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := raceList(detectText(t, tt.trace, tt.cfg))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got races %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCAFAFilters checks the if-guard and intra-event-allocation filters:
// each case is a use by event A and a free by event B of one looper (or,
// cross-thread, by a worker), with the filter that must drop the race.
func TestCAFAFilters(t *testing.T) {
	const free = `
{"op":"begin","t":"B","thread":"L"}
{"op":"write","t":"B","obj":"o","field":"p","val":null,"src":"Act.java:40"}
{"op":"end","t":"B"}`
	tests := []struct {
		name     string
		a        string // the ops of event A, in a call to Act.onResume
		b        string // the free, after A
		ifGuard  int
		intra    int
		reported int
	}{
		{
			name: "unguarded use",
			a:    `{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b:    free, reported: 1,
		},
		{
			name: "if-guard: test non-null, jump taken",
			a: `{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"}}
{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true,"pc":16,"target":24}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: free, ifGuard: 1,
		},
		{
			name: "if-guard: test null, not taken",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"null","taken":false}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: free, ifGuard: 1,
		},
		{
			name: "if-guard: if-eq taken",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"eq","taken":true}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: free, ifGuard: 1,
		},
		{
			name: "no guard: test null, taken",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"null","taken":true}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: free, reported: 1,
		},
		{
			name: "no guard: another location tested",
			a: `{"op":"branch","t":"A","obj":"o","field":"q","cond":"nonnull","taken":true}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: free, reported: 1,
		},
		{
			name: "no guard: the test was in a handler that returned",
			a: `{"op":"call","t":"A","h":"Act.check"}
{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true}
{"op":"ret","t":"A","h":"Act.check"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: free, reported: 1,
		},
		{
			name: "no guard: the use is in a nested call",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true}
{"op":"call","t":"A","h":"Act.helper"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}
{"op":"ret","t":"A","h":"Act.helper"}`,
			b: free, reported: 1,
		},
		{
			name: "no guard: written after the test",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true}
{"op":"write","t":"A","obj":"o","field":"p","val":{"ref":"y"}}
{"op":"write","t":"A","obj":"o","field":"p","val":null}
{"op":"read","t":"A","obj":"o","field":"p","val":null,"deref":true}`,
			b: free, reported: 1,
		},
		{
			// pc and target are lines of the test's file: the jump to
			// line 11 guards lines 11 on, not line 9 of a loop above.
			name: "if-guard with lines: inside the region",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true,"pc":10,"target":11,"src":"Act.java:10"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true,"src":"Act.java:12"}`,
			b: free, ifGuard: 1,
		},
		{
			name: "if-guard with lines: outside the region",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true,"pc":10,"target":11,"src":"Act.java:10"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true,"src":"Act.java:9"}`,
			b: free, reported: 1,
		},
		{
			name: "if-guard with lines: another file",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true,"pc":10,"target":11,"src":"Act.java:10"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true,"src":"Util.java:12"}`,
			b: free, reported: 1,
		},
		{
			name: "if-guard with lines: test null, not taken, up to the target",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"null","taken":false,"pc":10,"target":14,"src":"Act.java:10"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true,"src":"Act.java:13"}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true,"src":"Act.java:14"}`,
			b: free, ifGuard: 1, reported: 1,
		},
		{
			name: "intra-event allocation before the use",
			a: `{"op":"write","t":"A","obj":"o","field":"p","val":{"ref":"y"}}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"y"},"deref":true}`,
			b: free, intra: 1,
		},
		{
			name: "no allocation: a write of null before the use",
			a: `{"op":"write","t":"A","obj":"o","field":"p","val":{"ref":"y"}}
{"op":"write","t":"A","obj":"o","field":"p","val":null}
{"op":"read","t":"A","obj":"o","field":"p","val":null,"deref":true}`,
			b: free, reported: 1,
		},
		{
			name: "intra-event allocation after the free",
			a:    `{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: `
{"op":"begin","t":"B","thread":"L"}
{"op":"write","t":"B","obj":"o","field":"p","val":null}
{"op":"write","t":"B","obj":"o","field":"p","val":{"ref":"z"}}
{"op":"end","t":"B"}`,
			intra: 1,
		},
		{
			name: "no allocation after the free: another location",
			a:    `{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: `
{"op":"begin","t":"B","thread":"L"}
{"op":"write","t":"B","obj":"o","field":"p","val":null}
{"op":"write","t":"B","obj":"o","field":"q","val":{"ref":"z"}}
{"op":"end","t":"B"}`,
			reported: 1,
		},
		{
			// The filters hold between events of one looper only: a
			// worker's free races with the guarded use all the same.
			name: "cross-thread: no filter",
			a: `{"op":"branch","t":"A","obj":"o","field":"p","cond":"nonnull","taken":true}
{"op":"read","t":"A","obj":"o","field":"p","val":{"ref":"x"},"deref":true}`,
			b: `
{"op":"write","t":"T2","obj":"o","field":"p","val":null}
{"op":"write","t":"T2","obj":"o","field":"p","val":{"ref":"z"}}`,
			reported: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trace := looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"call","t":"A","h":"Act.onResume"}
` + tt.a + `
{"op":"ret","t":"A","h":"Act.onResume"}
{"op":"end","t":"A"}` + tt.b
			for _, unfiltered := range []bool{false, true} {
				rep := detectText(t, trace, Config{Kind: UseFree, Unfiltered: unfiltered})
				ks := rep.Summary.Kinds[0]
				want := KindSummary{Kind: UseFree, Found: tt.ifGuard + tt.intra + tt.reported, IfGuard: tt.ifGuard, IntraAlloc: tt.intra, Races: tt.reported}
				if unfiltered {
					want.IfGuard, want.IntraAlloc, want.Races = 0, 0, want.Found
				}
				ks.Covered, ks.InThread, ks.Groups, ks.ListedGroups, ks.Listed = 0, 0, 0, 0, 0
				if ks != want {
					t.Errorf("unfiltered %v: got %+v, want %+v (races %q)", unfiltered, ks, want, raceList(rep))
				}
			}
		})
	}
}

// TestGroups: races group by location name (allocation site and field,
// whatever the object) and the unordered pair of handler contexts.
func TestGroups(t *testing.T) {
	trace := looper + `
{"op":"begin","t":"A","thread":"L"}
{"op":"call","t":"A","h":"Act.onPause"}
{"op":"alloc","t":"A","obj":"o1","site":"Act.init:3","type":"Buf"}
{"op":"alloc","t":"A","obj":"o2","site":"Act.init:3","type":"Buf"}
{"op":"alloc","t":"A","obj":"o3","site":"Act.init:4","type":"Buf"}
{"op":"write","t":"A","obj":"o1","field":"n","val":1}
{"op":"write","t":"A","obj":"o2","field":"n","val":1}
{"op":"write","t":"A","obj":"o3","field":"n","val":1}
{"op":"write","t":"A","obj":"o4","field":"n","val":1}
{"op":"write","t":"A","class":"Act","field":"n","val":1}
{"op":"ret","t":"A","h":"Act.onPause"}
{"op":"end","t":"A"}
{"op":"begin","t":"B","thread":"L"}
{"op":"call","t":"B","h":"Act.onResume"}
{"op":"read","t":"B","obj":"o2","field":"n","val":1}
{"op":"read","t":"B","obj":"o1","field":"n","val":1}
{"op":"read","t":"B","obj":"o3","field":"n","val":1}
{"op":"read","t":"B","obj":"o4","field":"n","val":1}
{"op":"ret","t":"B","h":"Act.onResume"}
{"op":"read","t":"B","class":"Act","field":"n","val":1}
{"op":"end","t":"B"}
{"op":"write","t":"T1","obj":"o1","field":"n","val":2}`
	rep := detectText(t, trace, Config{Kind: DataRace, Window: 0})
	var got []string
	for _, g := range rep.Groups {
		var lines []string
		for _, r := range g.Races {
			lines = append(lines, fmt.Sprintf("%d-%d", r.First.Line, r.Second.Line))
		}
		got = append(got, fmt.Sprintf("%s %s: %s | %s: %s", g.ID, g.Location, g.Handlers[0], g.Handlers[1], strings.Join(lines, " ")))
	}
	// B reads o2 before o1: the race on o1 is covered by the one on o2.
	// T1's write races with A's write and B's read; the latest is reported.
	want := []string{
		"G1 Act.init:3.n: Act.onPause | Act.onResume: 14-22 13-23",
		"G2 Act.init:4.n: Act.onPause | Act.onResume: 15-24",
		"G3 @o4.n: Act.onPause | Act.onResume: 16-25",
		"G4 Act.n: Act.onPause | event on main: 17-27",
		"G5 Act.init:3.n: Act.onResume | thread T*: 23-29",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ks := rep.Summary.Kinds[0]; ks.Races != 6 || ks.Groups != 5 || ks.Covered != 1 {
		t.Errorf("summary %+v: want 6 races in 5 groups, 1 covered", ks)
	}

	// Listing one race per group: the first found; every race counted.
	rep = detectText(t, trace, Config{Kind: DataRace, Window: 0, PerGroup: 1})
	g := rep.Groups[0]
	if g.Count != 2 || len(g.Races) != 1 || g.Races[0].First.Line != 14 || g.Races[0].Covered {
		t.Errorf("per group 1: first group %s counts %d races, lists %d (%q)", g.Location, g.Count, len(g.Races), raceList(rep))
	}
	if ks := rep.Summary.Kinds[0]; ks.Races != 6 || ks.Listed != 5 || ks.Covered != 0 {
		t.Errorf("per group 1: summary %+v: want 6 races, 5 listed, none covered", ks)
	}

	// Counts only.
	rep = detectText(t, trace, Config{Kind: DataRace, Window: 0, PerGroup: -1})
	if ks := rep.Summary.Kinds[0]; ks.Races != 6 || ks.Groups != 5 || ks.Listed != 0 || ks.ListedGroups != 0 || len(rep.Groups) != 0 {
		t.Errorf("per group -1: summary %+v and %d groups: want 6 races in 5 groups, none listed", ks, len(rep.Groups))
	}

	// Listing two groups: the first two found (o1's and o2's site's, then
	// o3's site's), in report order; every group and race counted.
	rep = detectText(t, trace, Config{Kind: DataRace, Window: 0, Groups: 2})
	got = got[:0]
	for _, g := range rep.Groups {
		got = append(got, fmt.Sprintf("%s %s %d", g.ID, g.Location, g.Count))
	}
	if want := "G1 Act.init:3.n 2 G2 Act.init:4.n 1"; strings.Join(got, " ") != want {
		t.Errorf("groups 2: %q, want %q", strings.Join(got, " "), want)
	}
	if ks := rep.Summary.Kinds[0]; ks.Races != 6 || ks.Groups != 5 || ks.ListedGroups != 2 || ks.Listed != 3 {
		t.Errorf("groups 2: summary %+v: want 6 races in 5 groups, 2 groups and 3 races listed", ks)
	}
	var text strings.Builder
	if err := WriteText(&text, []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	if want := "6 races in 5 groups (5 in-thread); the first 2 groups listed, with 3 races, 1 of them covered"; !strings.Contains(text.String(), want) {
		t.Errorf("groups 2: the text does not say %q:\n%s", want, text.String())
	}
}

// TestAging: with the time window on, accesses more than the window apart
// (by ts) are taken as ordered, as events of one looper that far apart
// are: they race with nothing, and the shadow lets them and the locations
// left without accesses go. Without the window, or without ts, they race.
func TestAging(t *testing.T) {
	trace := `
{"op":"thread_begin","t":"T1","ts":0}
{"op":"thread_begin","t":"T2","ts":0}
{"op":"write","t":"T1","obj":"o1","field":"f","val":1,"ts":1000}
{"op":"write","t":"T1","obj":"o2","field":"f","val":1,"ts":1000}
{"op":"write","t":"T2","obj":"o2","field":"f","val":2,"ts":30000}
{"op":"write","t":"T2","obj":"o3","field":"f","val":2,"ts":40000}
{"op":"write","t":"T2","obj":"o1","field":"f","val":2,"ts":70000}
{"op":"write","t":"T2","obj":"o4","field":"f","val":2}`
	for _, tt := range []struct {
		window time.Duration
		want   []string
	}{
		{0, []string{"data 4-8 covered", "data 5-6"}},
		{time.Minute, []string{"data 5-6"}}, // o1's writes are 69 s apart
		{2 * time.Minute, []string{"data 4-8 covered", "data 5-6"}},
	} {
		rep := detectText(t, trace, Config{Window: tt.window, Kind: DataRace})
		if got := raceList(rep); !slices.Equal(got, tt.want) {
			t.Errorf("window %v: races %q, want %q", tt.window, got, tt.want)
		}
	}

	// The shadow of a long trace holds about a window and a half of
	// accesses and locations, however many it saw.
	var b strings.Builder
	b.WriteString(`{"licorice_trace":1}` + "\n" + `{"op":"thread_begin","t":"T1","ts":0}` + "\n")
	for i := range 10000 {
		fmt.Fprintf(&b, `{"op":"write","t":"T1","obj":"o%d","field":"f","val":1,"ts":%d}`+"\n", i+1, i*100)
	}
	r, err := traces.NewReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	d := NewDetector(r.Symbols(), Config{Window: time.Minute})
	var op traces.Op
	for n := 1; ; n++ {
		if err := r.Next(&op); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if err := d.Step(&op, n+1); err != nil {
			t.Fatal(err)
		}
		free := 0
		for i := d.freeLoc; i != 0; i = d.locs[i].next {
			free++
		}
		if live := len(d.locs) - 1 - free; live > 1000 {
			t.Fatalf("op %d: %d live locations; a window and a half holds 900", n, live)
		}
	}
}
