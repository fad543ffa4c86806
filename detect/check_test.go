package detect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/learn"
)

// found runs the passes and checks on the trace s builds and returns
// the findings as "KIND A B" (event ids, the earlier first), condition by
// condition, each in trace order.
func found(t *testing.T, s *script, cs ...specCond) []string {
	t.Helper()
	path := s.file(t, t.TempDir(), "t.jsonl")
	a := passesAll(t, makeSpec(t, cs...), path, 0, maxProjected)
	var out []string
	for _, f := range a.findings {
		ids := []string{f.kind.String()}
		for _, tc := range []*touch{f.a, f.b} {
			if tc != nil {
				ids = append(ids, a.tk.syms.String(tc.u.task))
			}
		}
		out = append(out, strings.Join(ids, " "))
	}
	return out
}

// passesAll runs the passes over the trace at path keeping every touch,
// then checks them all at once (check, the reference) and fails unless
// the streams found the same pairs, in the same order, and counted the
// same.
func passesAll(t *testing.T, sp *learn.Spec, path string, window time.Duration, projectAt int) *analysis {
	t.Helper()
	return passesAllWith(t, sp, path, window, passOptions{projectAt: projectAt})
}

// passesAllWith is passesAll with options.
func passesAllWith(t *testing.T, sp *learn.Spec, path string, window time.Duration, po passOptions) *analysis {
	t.Helper()
	po.keepAll = true
	a, err := passesWith(context.Background(), sp, source{name: path, file: path}, window, po)
	if err != nil {
		t.Fatal(err)
	}
	if a.tk == nil {
		return a
	}
	var st TraceStats
	a.tk.askUntrimmed = true
	ref := check(a.conds, &st, a.tk.dependent, a.tk.holds)
	a.tk.askUntrimmed = false
	describe := func(fs []finding) string {
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "cond %d %s", f.cond, f.kind)
			for _, tc := range []*touch{f.a, f.b} {
				if tc != nil {
					fmt.Fprintf(&b, " %s@%d", a.tk.syms.String(tc.u.task), tc.pos)
				}
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	if got, want := describe(a.findings), describe(ref); got != want {
		t.Fatalf("%s: the streams found\n%s\nchecking every touch at the end finds\n%s", path, got, want)
	}
	counts := func(s *TraceStats) []int {
		return []int{s.Reqs, s.Gens, s.Kills, s.MinorGens, s.MinorKills, s.MidKills, s.Relative, s.ReadReq, s.ReadGen}
	}
	if got, want := counts(&a.stats), counts(&st); !slices.Equal(got, want) {
		t.Fatalf("%s: the streams counted REQ, GEN, KILL, minor GEN, minor KILL, mid-event KILL, relative, read REQ, read GEN %v; at the end, %v", path, got, want)
	}
	return a
}

// inPlace is a body that reads field at one src and writes it there:
// an update in place (o.n--).
func inPlace(field, old, new string) func(*script, string) {
	return func(s *script, e string) {
		s.op(e, "read", fmt.Sprintf(`"obj":"o1","field":%q,"val":%s,"src":"Act.java:7"`, field, old))
		s.op(e, "write", fmt.Sprintf(`"obj":"o1","field":%q,"val":%s,"src":"Act.java:7"`, field, new))
	}
}

// newNote allocates a Note, obj, in Act.onResume.
func newNote(obj string) func(*script, string) {
	return func(s *script, e string) {
		s.op(e, "alloc", fmt.Sprintf(`"obj":%q,"site":"Act.onResume:5","type":"Note"`, obj))
	}
}

// noteN reads or writes a Note's field n.
func noteN(kind, obj, val string) func(*script, string) {
	return func(s *script, e string) {
		s.op(e, kind, fmt.Sprintf(`"obj":%q,"field":"n","val":%s`, obj, val))
	}
}

// guardedP is "h: this.active ==> this.p != null".
func guardedP(h string) specCond {
	return specCond{handler: h, template: "nonnull", vars: []string{"this.p"}, guard: "this.active"}
}

// staticInst reads or writes the static App.inst.
func staticInst(kind, val string) func(*script, string) {
	return func(s *script, e string) {
		s.op(e, kind, fmt.Sprintf(`"class":"App","field":"inst","val":%s`, val))
	}
}

// noteLower is "h: Act.onResume:5#1.n >= 1", of the Note that newNote made.
func noteLower(h string) specCond {
	return specCond{handler: h, template: "lower", vars: []string{"Act.onResume:5#1.n"}, consts: map[string]any{"a": 1}}
}

// lowerN is "h: this.n >= 1".
func lowerN(h string) specCond {
	return specCond{handler: h, template: "lower", vars: []string{"this.n"}, consts: map[string]any{"a": 1}}
}

func TestChecks(t *testing.T) {
	onUpdate, onPause, onResume := "Act.onUpdateResults", "Act.onPause", "Act.onResume"
	tests := []struct {
		name  string
		trace func() *script
		spec  []specCond
		want  []string
	}{
		{
			// Thesis Fig. 5.2a: onUpdateResults requires this.p != null,
			// onPause sets it to null, and two unrelated threads posted
			// them.
			name: "REQ-KILL: MyTracks, concurrent",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("p", o2)).run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			name: "REQ-KILL: ordered",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").post("T1", "E1")
				return s.run("E1", onUpdate, rd("p", o2), postE("E2")).run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			name: "GEN-REQ: concurrent",
			trace: func() *script {
				s := newScript().write("main", "p", null).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onResume, wr("p", o2)).run("E2", onUpdate, rd("p", o2))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"GEN-REQ E1 E2"},
		},
		{
			// p had no value before E1: E1 initializes it, and no event
			// could have found it false before.
			name: "GEN-REQ: an initialization is no GEN",
			trace: func() *script {
				s := newScript().worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", "Act.onCreate", wr("p", o2)).run("E2", onUpdate, rd("p", o2))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			name: "GEN-REQ: ordered",
			trace: func() *script {
				s := newScript().write("main", "p", null).worker("T1").post("T1", "E1")
				return s.run("E1", onResume, wr("p", o2), postE("E2")).run("E2", onUpdate, rd("p", o2))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// A GEN whose write precedes the post of the REQ's event is
			// ordered with the REQ, even though the two events run on
			// different threads and overlap.
			name: "GEN-REQ: the write precedes the post, across threads",
			trace: func() *script {
				s := newScript().write("main", "p", null)
				s.op("main", "fork", `"child":"L"`).op("L", "thread_begin", `"kind":"looper"`).op("L", "attach", `"q":"L"`)
				s.op("main", "send", `"q":"L","e":"E1"`)
				s.op("E1", "begin", `"thread":"L"`).op("E1", "call", `"h":"Hub.load"`).write("E1", "p", o2).post("E1", "E2")
				s.run("E2", onUpdate, rd("p", o2))
				return s.op("E1", "ret", `"h":"Hub.load"`).op("E1", "end", "")
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// E1 kills p, E2 generates it, unordered; E3 requires it after
			// both (a thread waits for both, then posts it).
			name: "GEN-KILL",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").worker("T3").post("T1", "E1").post("T2", "E2")
				s.run("E1", onPause, wr("p", null), signal("m1")).run("E2", onResume, wr("p", o3), signal("m2"))
				s.op("T3", "wait", `"m":"m1"`).op("T3", "wait", `"m":"m2"`).post("T3", "E3")
				return s.run("E3", onUpdate, rd("p", o3))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"GEN-KILL E1 E2"},
		},
		{
			name: "violation after an ordered KILL",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").post("T1", "E1")
				return s.run("E1", onPause, wr("p", null), postE("E2")).run("E2", onUpdate, rd("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"violation E1 E2"},
		},
		{
			name: "violation after a concurrent KILL",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onPause, wr("p", null)).run("E2", onUpdate, rd("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"violation E1 E2"},
		},
		{
			// Nothing ever made p non-null: no KILL to blame.
			name: "violation alone",
			trace: func() *script {
				s := newScript().write("main", "p", null).worker("T1").post("T1", "E1")
				return s.run("E1", onUpdate, rd("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"violation E1"},
		},
		{
			// simplecrawler 1.0.0: the page's event (REQ) records that it
			// is done, and the crawl tick that completes the crawl (KILL)
			// decided so on what it read of that: had it run first, it
			// would have read something else, and not killed p.
			name: "REQ-KILL: the KILL read what the REQ wrote",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "done", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("p", o2), wr("done", "1")).run("E2", onPause, rd("done", "1"), wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// del's glob lists a file (E1, which requires p), an event that
			// read the list posts (through E5) the removal (E2): the KILL's
			// cause read the REQ, so it cannot come first.
			name: "REQ-KILL: the KILL's sender read what the REQ wrote",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "list", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E3")
				s.run("E1", onUpdate, rd("p", o2), wr("list", "1")).run("E3", "Act.onList", rd("list", "1"), postE("E5"))
				return s.run("E5", "Act.onNext", postE("E2")).run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// glob's countdown of pending callbacks: the REQ's event (E1)
			// decrements n, another event (E3) decrements it again, and
			// the one that finds it at 0 (E4) posts the removal (E2). E4
			// read E3's write, which carried E1's: had E1 run after the
			// removal, n would not have come down to 0 first.
			name: "REQ-KILL: the KILL's sender read a count the REQ updated, through another update",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "n", "3").worker("T1").worker("T2").post("T1", "E1").post("T2", "E3").post("T2", "E4")
				s.run("E1", onUpdate, rd("p", o2), inPlace("n", "3", "2")).run("E3", "Act.onDone", inPlace("n", "2", "1"))
				s.run("E4", "Act.onDone", inPlace("n", "1", "0"), postE("E2"))
				return s.run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// The same, but E3 sets n rather than updating it: its value
			// carries nothing of E1's, and the pair stays.
			name: "REQ-KILL: a count set in between carries nothing of the REQ",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "n", "3").worker("T1").worker("T2").post("T1", "E1").post("T2", "E3").post("T2", "E4")
				s.run("E1", onUpdate, rd("p", o2), inPlace("n", "3", "2")).run("E3", "Act.onDone", rd("n", "2"), wr("n", "1"))
				s.run("E4", "Act.onDone", inPlace("n", "1", "0"), postE("E2"))
				return s.run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// The same through a worker thread that waits on the reader's
			// signal, then posts the KILL (an I/O delivery).
			name: "REQ-KILL: the KILL's delivery waited on an event that read the REQ",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "list", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E3")
				s.run("E1", onUpdate, rd("p", o2), wr("list", "1")).run("E3", "Act.onList", rd("list", "1"), signal("m1"))
				s.worker("T3").op("T3", "wait", `"m":"m1"`).post("T3", "E2")
				return s.run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// An event that read the REQ's write and merely happens before
			// the KILL (FIFO, no cause of it) does not count: todolist's
			// onPause comes after the user's later actions, not because of
			// them.
			name: "REQ-KILL: an event that read the REQ happens before the KILL, but did not cause it",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "list", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E3").post("T2", "E2")
				s.run("E1", onUpdate, rd("p", o2), wr("list", "1")).run("E3", "Act.onList", rd("list", "1"))
				return s.run("E2", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// The same, but another event wrote done last: E2 read that,
			// not E1's write.
			name: "REQ-KILL: the KILL read another event's write",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "done", "0").worker("T1").worker("T2").worker("T3")
				s.post("T1", "E1").post("T2", "E2").post("T3", "E3")
				s.run("E1", onUpdate, rd("p", o2), wr("done", "1")).run("E3", "Act.onIdle", wr("done", "2"))
				return s.run("E2", onPause, rd("done", "2"), wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// Both events read one location that neither wrote: no
			// dependence.
			name: "REQ-KILL: both read one location",
			trace: func() *script {
				s := newScript().write("main", "p", o2).write("main", "done", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("p", o2), rd("done", "0")).run("E2", onPause, rd("done", "0"), wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// simplecrawler's crawl tick: it reads the item's fetched flag
			// only once the open requests are down to 0, which the page's
			// event (the GEN, and a REQ of p == null) wrote. Had the tick run first, it would have
			// taken the other branch and required nothing.
			name: "GEN-REQ: the REQ read other data the GEN wrote",
			trace: func() *script {
				s := newScript().write("main", "p", null).write("main", "open", "1").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", onResume, rd("p", null), wr("open", "0"), wr("p", o2))
				return s.run("E2", onUpdate, rd("open", "0"), rd("p", o2))
			},
			spec: []specCond{nonnullP(onUpdate), {handler: onResume, template: "null", vars: []string{"this.p"}}},
		},
		{
			// The REQ read only the condition's own data from the GEN: the
			// pair stands.
			name: "GEN-REQ: the REQ read only the condition from the GEN",
			trace: func() *script {
				s := newScript().write("main", "p", null).write("main", "open", "1").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", onResume, rd("p", null), rd("open", "1"), wr("p", o2))
				return s.run("E2", onUpdate, rd("open", "1"), rd("p", o2))
			},
			spec: []specCond{nonnullP(onUpdate), {handler: onResume, template: "null", vars: []string{"this.p"}}},
			want: []string{"GEN-REQ E1 E2"},
		},
		{
			// A KILL that decrements n in place (it read n where it writes
			// it): its effect is a change, -1. Had it run first, E1 would
			// have read 0: a decrement past the bound the REQ needs.
			name: "REQ-KILL: the KILL updates the datum in place, past the bound",
			trace: func() *script {
				s := newScript().write("main", "n", "1").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("n", "1")).run("E2", onPause, inPlace("n", "1", "0"))
			},
			spec: []specCond{lowerN(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// Two decrements: E3, after E1, takes n from 2 to 1, and E2,
			// unordered with E1, from 1 to 0. Had E2 run before E1, E1
			// would have read 2 - 1 = 1: the decrements commute with E1's
			// need, whichever of them runs first.
			name: "REQ-KILL: the KILL updates in place, and the REQ still holds",
			trace: func() *script {
				s := newScript().write("main", "n", "2").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", onUpdate, rd("n", "2"), postE("E3")).run("E3", "Act.onTick", inPlace("n", "2", "1"))
				return s.run("E2", onPause, inPlace("n", "1", "0"))
			},
			spec: []specCond{lowerN(onUpdate)},
		},
		{
			// The same with update: true and no src (the shuffle runtime
			// without sources).
			name: "REQ-KILL: a write marked update, past the bound",
			trace: func() *script {
				s := newScript().write("main", "n", "1").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("n", "1")).run("E2", onPause, func(s *script, e string) {
					s.op(e, "read", `"obj":"o1","field":"n","val":1`)
					s.op(e, "write", `"obj":"o1","field":"n","val":0,"update":true`)
				})
			},
			spec: []specCond{lowerN(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// The same write, but from another place than the read: an
			// absolute value, a KILL like any other.
			name: "REQ-KILL: the KILL read the datum, then set it elsewhere",
			trace: func() *script {
				s := newScript().write("main", "n", "1").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("n", "1")).run("E2", onPause, func(s *script, e string) {
					s.op(e, "read", `"obj":"o1","field":"n","val":1,"src":"Act.java:5"`)
					s.op(e, "write", `"obj":"o1","field":"n","val":0,"src":"Act.java:9"`)
				})
			},
			spec: []specCond{lowerN(onUpdate)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// An increment in place generates n >= 1; had E2 run first,
			// it would have read 1 - 1 = 0.
			name: "GEN-REQ: the GEN updates the datum in place",
			trace: func() *script {
				s := newScript().write("main", "n", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onResume, inPlace("n", "0", "1")).run("E2", onUpdate, rd("n", "1"))
			},
			spec: []specCond{lowerN(onUpdate)},
			want: []string{"GEN-REQ E1 E2"},
		},
		{
			// Two increments of a counter: E1 (0 -> 1) and E3 (1 -> 2),
			// which posts E2. E2 reads 2; had it run before E1, it would
			// have read 2 - 1 = 1, and n >= 1 still holds: the
			// increments commute with E2's need.
			name: "GEN-REQ: two increments in place, the REQ needs one",
			trace: func() *script {
				s := newScript().write("main", "n", "0").worker("T1").worker("T2").post("T1", "E1").post("T2", "E3")
				s.run("E1", onResume, inPlace("n", "0", "1")).run("E3", "Act.onTick", inPlace("n", "1", "2"), postE("E2"))
				return s.run("E2", onUpdate, rd("n", "2"))
			},
			spec: []specCond{lowerN(onUpdate)},
		},
		{
			// An append (a change that is no number) pairs with nothing.
			name: "GEN-REQ: an update in place that is no number",
			trace: func() *script {
				s := newScript().write("main", "n", `""`).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onResume, inPlace("n", `""`, `"a"`)).run("E2", onUpdate, rd("n", `"a"`))
			},
			spec: []specCond{{handler: onUpdate, template: "const", vars: []string{"this.n"}, consts: map[string]any{"a": "a"}}},
		},
		{
			// R_c keeps the last REQ of each chain: E1's chain is ordered
			// before the KILL (E1 posts it), E2's is not.
			name: "REQ-KILL per chain",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", onUpdate, rd("p", o2), postE("E3")).run("E2", onUpdate, rd("p", o2))
				return s.run("E3", onPause, wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E2 E3"},
		},
		{
			// onPause requires p and kills it: no pair with itself.
			name: "REQ and KILL in one event",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("p", o2)).run("E2", onPause, rd("p", o2), wr("p", null))
			},
			spec: []specCond{nonnullP(onUpdate), nonnullP(onPause)},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// A write outside any event, by a worker thread, is a KILL of
			// its own.
			name: "KILL by a thread",
			trace: func() *script {
				s := newScript().write("main", "p", o2).post("main", "E1").worker("T1")
				return s.run("E1", onUpdate, rd("p", o2)).write("T1", "p", null)
			},
			spec: []specCond{nonnullP(onUpdate)},
			want: []string{"REQ-KILL E1 T1"},
		},
		{
			// A GEN and a KILL within one event that leave the condition
			// as it was are a NOP.
			name: "NOP: killed and generated again",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("p", o2)).run("E2", "Act.onRestart", wr("p", null), wr("p", o3))
			},
			spec: []specCond{nonnullP(onUpdate)},
		},
		{
			// Thesis Fig. 5.2b: onLayout and onPause race on
			// resizeAllowed, but no precondition of either involves it:
			// both program states satisfy onLayout's preconditions.
			name: "ConnectBot: a harmless race is not reported",
			trace: func() *script {
				s := newScript().write("main", "manager", o2).write("main", "resizeAllowed", "true")
				s.worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", "Act.onLayout", rd("manager", o2), rd("resizeAllowed", "true"), wr("columns", "80"))
				return s.run("E2", "Act.onPause", rd("manager", o2), wr("resizeAllowed", "false"))
			},
			spec: []specCond{
				{handler: "Act.onLayout", template: "nonnull", vars: []string{"this.manager"}},
				{handler: "Act.onPause", template: "nonnull", vars: []string{"this.manager"}},
			},
		},
		{
			name: "a condition over two data",
			trace: func() *script {
				s := newScript().write("main", "x", "1").write("main", "y", "5")
				s.worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", "Act.onDraw", rd("x", "1"), rd("y", "5")).run("E2", "Act.onShrink", wr("y", "0"))
			},
			spec: []specCond{{handler: "Act.onDraw", template: "lt", vars: []string{"this.x", "this.y"}}},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			name: "a disabled condition is not checked",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onUpdate, rd("p", o2)).run("E2", onPause, wr("p", null))
			},
			spec: []specCond{{handler: onUpdate, template: "nonnull", vars: []string{"this.p"}, disabled: true}},
		},
		{
			// Two handlers' conditions with the same template on the same
			// location are one logical variable.
			name: "one variable for two handlers",
			trace: func() *script {
				s := newScript().write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", "Act.onA", rd("p", o2), postE("E3"))
				return s.run("E2", onPause, wr("p", null)).run("E3", "Act.onB", rd("p", null))
			},
			spec: []specCond{nonnullP("Act.onA"), nonnullP("Act.onB")},
			want: []string{"REQ-KILL E1 E2", "violation E2 E3"},
		},
		{
			// Tomdroid: onResume makes the note list (o5) and counts its
			// refreshes from 0 to 1; a refresh posted from elsewhere reads
			// 1. No event could have run before onResume and found the
			// count 0 on that list: it did not exist (event consistency).
			name: "GEN-REQ: an object the event made is no GEN's",
			trace: func() *script {
				s := newScript().worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E1", onResume, newNote("o5"), noteN("read", "o5", "0"), noteN("write", "o5", "1")).
					run("E2", "Act.refresh", noteN("read", "o5", "1"))
			},
			spec: []specCond{noteLower("Act.refresh")},
		},
		{
			// A guarded condition (thesis Fig. 5.2b, in general): onDraw
			// tests active and, when it is true, uses p. onStop sets
			// active to false and p to null: it falsifies the guard
			// with the guarded part, so the implication still holds,
			// and either order is fine.
			name: "REQ-KILL: a KILL of the guarded part that also falsifies the guard",
			trace: func() *script {
				s := newScript().write("main", "active", "true").write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", "Act.onDraw", rd("active", "true"), rd("p", o2))
				return s.run("E2", "Act.onStop", wr("active", "false"), wr("p", null))
			},
			spec: []specCond{guardedP("Act.onDraw")},
		},
		{
			// The same KILL of p alone: active stays true.
			name: "REQ-KILL: a KILL of the guarded part alone",
			trace: func() *script {
				s := newScript().write("main", "active", "true").write("main", "p", o2).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", "Act.onDraw", rd("active", "true"), rd("p", o2))
				return s.run("E2", "Act.onStop", wr("p", null))
			},
			spec: []specCond{guardedP("Act.onDraw")},
			want: []string{"REQ-KILL E1 E2"},
		},
		{
			// A REQ whose guard is false holds whatever p is.
			name: "GEN-REQ: a REQ with its guard false requires nothing",
			trace: func() *script {
				s := newScript().write("main", "active", "false").write("main", "p", null).worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				s.run("E1", "Act.onStart", wr("p", o2))
				return s.run("E2", "Act.onDraw", rd("active", "false"), rd("p", o2))
			},
			spec: []specCond{guardedP("Act.onDraw")},
		},
		{
			// A static declared null (a write with init) and set by
			// onCreate: a handler on another looper that reads it,
			// unordered with onCreate, could have run first and found it
			// null.
			name: "GEN-REQ: a static declared null before onCreate sets it",
			trace: func() *script {
				s := newScript().op("main", "write", `"class":"App","field":"inst","val":null,"init":true`)
				s.looper("R").worker("T1").worker("T2").post("T1", "E1").sendTo("T2", "R", "E2")
				s.run("E1", "App.onCreate", staticInst("write", o2))
				return s.runOn("E2", "R", "Sync.onTick", staticInst("read", o2))
			},
			spec: []specCond{{handler: "Sync.onTick", template: "nonnull", vars: []string{"App.inst"}}},
			want: []string{"GEN-REQ E1 E2"},
		},
		{
			// Undeclared, the static's first write initializes it.
			name: "GEN-REQ: a static's first write, undeclared, is no GEN",
			trace: func() *script {
				s := newScript().looper("R").worker("T1").worker("T2").post("T1", "E1").sendTo("T2", "R", "E2")
				s.run("E1", "App.onCreate", staticInst("write", o2))
				return s.runOn("E2", "R", "Sync.onTick", staticInst("read", o2))
			},
			spec: []specCond{{handler: "Sync.onTick", template: "nonnull", vars: []string{"App.inst"}}},
		},
		{
			name: "GEN-REQ: an object made before the event is",
			trace: func() *script {
				s := newScript().worker("T1").worker("T2")
				s.post("T1", "E0").run("E0", "Act.onCreate", newNote("o5")).post("T1", "E1").post("T2", "E2")
				return s.run("E1", onResume, noteN("read", "o5", "0"), noteN("write", "o5", "1")).
					run("E2", "Act.refresh", noteN("read", "o5", "1"))
			},
			spec: []specCond{noteLower("Act.refresh")},
			want: []string{"GEN-REQ E1 E2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := found(t, tt.trace(), tt.spec...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

// roles describes the touches of the trace's conditions in trace order:
// "Ea:REQ Eb:KILL* ..." (* marks a minor GEN or KILL).
func roles(t *testing.T, s *script, cs ...specCond) string {
	t.Helper()
	path := s.file(t, t.TempDir(), "t.jsonl")
	a := passesAll(t, makeSpec(t, cs...), path, 0, maxProjected)
	var b strings.Builder
	for i, c := range a.conds.list {
		if i > 0 {
			b.WriteString(" | ")
		}
		for j, tc := range c.touches {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s:%s", a.tk.syms.String(tc.u.task), tc.role)
			if tc.minor {
				b.WriteByte('*')
			}
		}
	}
	return b.String()
}

// TestMinor checks the minor GEN and minor KILL cases of thesis Fig. 5.3,
// each clause of the definitions of §5.2.2.
func TestMinor(t *testing.T) {
	// The scene: p set, Ea requires it and posts Eb, which kills it; a
	// worker posts Eg, which generates it again, concurrently with Eb. Ea
	// was posted before the worker started, so it precedes Eg (FIFO).
	scene := func() *script {
		s := newScript().write("main", "p", o2).post("main", "Ea").worker("T1")
		s.run("Ea", "Act.onA", rd("p", o2), postE("Eb"))
		return s.post("T1", "Eg").run("Eb", "Act.onKill", wr("p", null))
	}
	spec := []specCond{nonnullP("Act.onA"), nonnullP("Act.onZ")}
	tests := []struct {
		name      string
		trace     func() *script
		wantRoles string
		want      []string
	}{
		{
			// Fig. 5.3a and b, first clause: every REQ (Ea) happens before
			// Eb, Eg and Ek, so all three are minor; Eb and Eg, though
			// concurrent, are no GEN-KILL pair. (No touch for the main
			// thread's write: it initializes p.)
			name: "every REQ before",
			trace: func() *script {
				return scene().run("Eg", "Act.onGen", wr("p", o3), postE("Ek")).run("Ek", "Act.onKill", wr("p", null))
			},
			wantRoles: "Ea:REQ Eb:KILL* Eg:GEN* Ek:KILL*",
		},
		{
			// A REQ after Eg with no KILL in between makes Eg (and Eb,
			// concurrent with that REQ) non-minor: GEN-KILL.
			name: "a REQ after the GEN",
			trace: func() *script {
				return scene().run("Eg", "Act.onGen", wr("p", o3), postE("Ez")).run("Ez", "Act.onZ", rd("p", o3))
			},
			wantRoles: "Ea:REQ Eb:KILL Eg:GEN Ez:REQ",
			want:      []string{"GEN-KILL Eb Eg"},
		},
		{
			// Second clause: Ez requires p after Eg, but Ek kills it in
			// between (Eg ≺ Ek ≺ Ez): Eg is a minor GEN; and Eg2
			// generates it between Ek and Ez: Ek is a minor KILL, and so
			// is Eb (its send precedes Ek's, so FIFO orders Eb ≺ Ek ≺ Eg2
			// ≺ Ez). Without the second clause, Eb and Eg would be a
			// GEN-KILL pair.
			name: "a KILL between the GEN and the REQ",
			trace: func() *script {
				s := scene().run("Eg", "Act.onGen", wr("p", o3), postE("Ek")).run("Ek", "Act.onKill", wr("p", null), postE("Eg2"))
				return s.run("Eg2", "Act.onGen", wr("p", o3), postE("Ez")).run("Ez", "Act.onZ", rd("p", o3))
			},
			wantRoles: "Ea:REQ Eb:KILL* Eg:GEN* Ek:KILL* Eg2:GEN Ez:REQ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := roles(t, tt.trace(), spec...); got != tt.wantRoles {
				t.Errorf("roles %q, want %q", got, tt.wantRoles)
			}
			if got := found(t, tt.trace(), spec...); !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

// TestMidEventKill: an event whose own writes make a condition false and
// then true again (Firefox's onLocaleChanged: language, then country) is
// a NOP at its end, but a REQ on another thread, concurrent with it, may
// run in between.
func TestMidEventKill(t *testing.T) {
	draw, change := "Act.onDrawFrame", "Act.onLocaleChanged"
	pairs := specCond{handler: draw, template: "pairs", vars: []string{"this.x", "this.y"},
		consts: map[string]any{"p": []map[string]any{{"x": 1, "y": 1}, {"x": 2, "y": 2}}}}
	// The scene: x = y = 1; a second looper L; two workers, T1 posting
	// to main and T2 to L, so that nothing orders their events.
	scene := func() *script {
		return newScript().write("main", "x", "1").write("main", "y", "1").looper("L").worker("T1").worker("T2").
			post("T1", "E1").sendTo("T2", "L", "E2")
	}
	both := func(v string) []func(*script, string) { return []func(*script, string){wr("x", v), wr("y", v)} }
	tests := []struct {
		name  string
		trace func() *script
		spec  []specCond
		want  []string
	}{
		{
			name: "across two loopers, the REQ first",
			trace: func() *script {
				return scene().runOn("E2", "L", draw, rd("x", "1"), rd("y", "1")).run("E1", change, both("2")...)
			},
			spec: []specCond{pairs},
			want: []string{"REQ-KILL E2 E1"},
		},
		{
			name: "across two loopers, the REQ after",
			trace: func() *script {
				return scene().run("E1", change, both("2")...).runOn("E2", "L", draw, rd("x", "2"), rd("y", "2"))
			},
			spec: []specCond{pairs},
			want: []string{"REQ-KILL E2 E1"},
		},
		{
			// The REQ reads in the middle: a violation, paired with the
			// event it read the middle of.
			name: "a REQ in the middle",
			trace: func() *script {
				s := scene().begin("E1", "main", change).write("E1", "x", "2")
				s.runOn("E2", "L", draw, rd("x", "2"), rd("y", "1"))
				return s.write("E1", "y", "2").finish("E1", change)
			},
			spec: []specCond{pairs},
			want: []string{"violation E1 E2"},
		},
		{
			// Events of one looper never interleave: E2 cannot run in
			// E1's middle.
			name: "one looper",
			trace: func() *script {
				s := newScript().write("main", "x", "1").write("main", "y", "1").worker("T1").worker("T2").post("T1", "E1").post("T2", "E2")
				return s.run("E2", draw, rd("x", "1"), rd("y", "1")).run("E1", change, both("2")...)
			},
			spec: []specCond{pairs},
		},
		{
			// E1 posts E2 after its writes: E2 runs after the middle.
			name: "ordered after",
			trace: func() *script {
				s := newScript().write("main", "x", "1").write("main", "y", "1").looper("L").worker("T1").post("T1", "E1")
				s.run("E1", change, wr("x", "2"), wr("y", "2"), func(s *script, e string) { s.sendTo(e, "L", "E2") })
				return s.runOn("E2", "L", draw, rd("x", "2"), rd("y", "2"))
			},
			spec: []specCond{pairs},
		},
		{
			// E2 posts E1 after its reads: E1's middle comes after them.
			name: "ordered before",
			trace: func() *script {
				s := newScript().write("main", "x", "1").write("main", "y", "1").looper("L").worker("T2").sendTo("T2", "L", "E2")
				s.runOn("E2", "L", draw, rd("x", "1"), rd("y", "1"), postE("E1"))
				return s.run("E1", change, both("2")...)
			},
			spec: []specCond{pairs},
		},
		{
			// A unary condition: the pointer nulled and set again.
			name: "a pointer replaced through null",
			trace: func() *script {
				s := newScript().write("main", "p", o2).looper("L").worker("T1").worker("T2").post("T1", "E1").sendTo("T2", "L", "E2")
				return s.runOn("E2", "L", onUpdateName, rd("p", o2)).run("E1", "Act.onRestart", wr("p", null), wr("p", o3))
			},
			spec: []specCond{nonnullP(onUpdateName)},
			want: []string{"REQ-KILL E2 E1"},
		},
		{
			// Written but never false: no mid-event KILL.
			name: "never false in the middle",
			trace: func() *script {
				return scene().runOn("E2", "L", draw, rd("x", "1"), rd("y", "1")).run("E1", change, wr("x", "1"), wr("y", "1"))
			},
			spec: []specCond{pairs},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := found(t, tt.trace(), tt.spec...); !slices.Equal(got, tt.want) {
				t.Errorf("findings %q, want %q", got, tt.want)
			}
		})
	}
}

const onUpdateName = "Act.onUpdateResults"

func TestMismatch(t *testing.T) {
	s := newScript().write("main", "p", o2).worker("T1").post("T1", "E1")
	path := s.run("E1", "Other.onCreate", rd("p", o2)).file(t, t.TempDir(), "t.jsonl")
	sp := makeSpec(t, nonnullP("Act.onUpdateResults"))
	_, err := Detect(context.Background(), sp, []string{path}, Options{})
	var me *MismatchError
	if !errors.As(err, &me) || me.Handlers != 1 || me.Traces != 1 || me.App != "test" {
		t.Fatalf("a spec none of whose handlers ran: %v, want a MismatchError for 1 handler, 1 trace, app test", err)
	}
	// A spec that says what it was learned on says so in the error.
	sp.Apps = []string{"android/other"}
	if _, err := Detect(context.Background(), sp, []string{path}, Options{}); err == nil || !strings.Contains(err.Error(), `(app "test"): the spec was learned on android/other`) {
		t.Fatalf("with the spec's apps: %v", err)
	}
	sp.Apps = nil
	res, err := Detect(context.Background(), sp, []string{path}, Options{AllowMismatch: true})
	if err != nil || len(res.Reports) != 0 {
		t.Fatalf("with AllowMismatch: %v, %d reports", err, len(res.Reports))
	}
	// One of the spec's handlers ran: no mismatch, whatever it realized.
	s = newScript().write("main", "p", o2).worker("T1").post("T1", "E1")
	path = s.run("E1", "Act.onUpdateResults").file(t, t.TempDir(), "u.jsonl")
	if _, err := Detect(context.Background(), sp, []string{path}, Options{}); err != nil {
		t.Fatalf("the spec's handler ran: %v", err)
	}
}
