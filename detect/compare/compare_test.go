package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

// wa is one access of a witness, as DroidRacer prints it.
type wa struct {
	rw     int
	write  bool
	obj    string // "" for a static or database access
	class  string
	field  int
	db     string
	tid    int
	access int
}

func (a wa) String() string {
	kind := "READ"
	if a.write {
		kind = "WRITE"
	}
	obj := a.obj
	if obj == "" {
		obj = "0"
	}
	return fmt.Sprintf("%d type - %s  obj - %s  class - %s field -   fieldIdx - %d  dbPath - %s  tid - %d  accessId - %d",
		a.rw, kind, obj, a.class, a.field, a.db, a.tid, a.access)
}

// report writes the end of a log: DroidRacer's witnesses, then its
// categorization (each line of cats goes under the heading it names:
// "cross-post: class: LA;  field:8").
func report(witnesses [][2]wa, cats ...string) string {
	var b strings.Builder
	b.WriteString(" HB Graph\n HB Graph size : 10\n\nRaces detected\n\n")
	for _, w := range witnesses {
		fmt.Fprintf(&b, "RACE rwId1:%v\n     rwId2:%v\n\n", w[0], w[1])
	}
	b.WriteString("Categorization of detected races\n\n")
	for _, h := range []struct{ name, heading string }{
		{"multithreaded", "Multithreaded races"},
		{"delayed-post", "Races due to a delayed post in ancestor asyncblocks"},
		{"cross-post", "Races due to cross thread post in ancestor asyncblocks"},
		{"co-enabled", "Races due to co-enabled events"},
		{"uncategorized", " Uncategorized races"},
	} {
		b.WriteString(h.heading + "\n")
		for _, c := range cats {
			if name, entry, _ := strings.Cut(c, ": "); name == h.name {
				b.WriteString(entry + "\n")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// looper starts a log with the main looper, tid 1, serving queue 100.
const looper = "1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1\t queue:100\n4 LOOP tid:1\t queue:100\n"

// posts has binder threads 2 and 3 post messages 1 and 2 to the looper:
// nothing orders the two.
var posts = lines(
	"5 NATIVE-ENTRY tid:2thread-name:Binder Thread #1", "6 POST src:2 msg:1 dest:-1 delay:0", "7 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
	"8 NATIVE-ENTRY tid:3thread-name:Binder Thread #2", "9 POST src:3 msg:2 dest:-1 delay:0", "10 NATIVE-EXIT tid:3thread-name:Binder Thread #2")

func compareText(t *testing.T, log string, opts droidracer.Options) *Comparison {
	t.Helper()
	l, err := droidracer.Read(context.Background(), strings.NewReader(log), "log")
	if err != nil {
		t.Fatal(err)
	}
	c, err := DroidRacer(context.Background(), l, Config{Import: opts})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// verdicts lists each location as "<key> <verdict>/<reason>".
func verdicts(c *Comparison) []string {
	var out []string
	for _, loc := range c.Locations {
		out = append(out, fmt.Sprintf("%s %s/%s", loc.Key, loc.Verdict, loc.Reason))
	}
	return out
}

func rules(steps []Step) string {
	var s []string
	for _, st := range steps {
		s = append(s, st.Rule.String())
	}
	return strings.Join(s, " ")
}

// classCase is a log excerpt, the locations its comparison has, and more
// to check of it.
type classCase struct {
	name  string
	opts  droidracer.Options
	log   string
	want  []string // "<key> <verdict>/<reason>", in the comparison's order
	check func(t *testing.T, c *Comparison)
}

// Each class of difference on a log excerpt made to show it.
func TestCompareClasses(t *testing.T) {
	tests := []classCase{
		{
			name: "the same race, and one licorice orders: the event that writes posts the one that reads",
			log: looper + posts + lines(
				"11 CALL tid:1\t msg:1",
				"rwId:1 WRITE tid:1 obj:0x10 class:LA; field:8",
				"rwId:2 WRITE tid:1 obj:0x20 class:LB; field:12",
				"12 ACCESS tid:1\t accessId:1",
				"13 POST src:1 msg:3 dest:-1 delay:0",
				"14 RET tid:1\t msg:1",
				"15 CALL tid:1\t msg:2", "rwId:3 READ tid:1 obj:0x10 class:LA; field:8", "16 ACCESS tid:1\t accessId:2", "17 RET tid:1\t msg:2",
				"18 CALL tid:1\t msg:3", "rwId:4 READ tid:1 obj:0x20 class:LB; field:12", "19 ACCESS tid:1\t accessId:3", "20 RET tid:1\t msg:3",
			) + report([][2]wa{
				{{1, true, "0x10", "LA;", 8, "", 1, 1}, {3, false, "0x10", "LA;", 8, "", 1, 2}},
				{{2, true, "0x20", "LB;", 12, "", 1, 1}, {4, false, "0x20", "LB;", 12, "", 1, 3}},
			}, "cross-post: class: LA;  field:8", "co-enabled: object: 0x20  field:12 co-enabled trigger opIds:5, 9"),
			want: []string{"0x10.8 both/same", "0x20.12 droidracer-only/ordered"},
			check: func(t *testing.T, c *Comparison) {
				same, ordered := c.Locations[0], c.Locations[1]
				if same.Class != "LA;" || !slices.Equal(same.Categories, []droidracer.CategoryKind{droidracer.CrossPost}) || same.Races != 1 {
					t.Errorf("same: class %q categories %v races %d", same.Class, same.Categories, same.Races)
				}
				w := ordered.Witnesses[0]
				if !slices.Equal(w.Categories, []droidracer.CategoryKind{droidracer.CoEnabled}) {
					t.Errorf("ordered: categories %v, want co-enabled", w.Categories)
				}
				if w.Order != asyncclock.Before || rules(w.Chain) != "PO SEND PO" {
					t.Errorf("ordered: %v by %q, want before by PO SEND PO", w.Order, rules(w.Chain))
				}
				if w.First.RW != 2 || w.First.Event != "m1" || w.Second.RW != 4 || w.Second.Event != "m3" || w.Second.Thread != "t1" {
					t.Errorf("ordered: accesses %+v, %+v", w.First, w.Second)
				}
			},
		},
		{
			name: "a common lock held by two events of one looper, and by two threads",
			log: looper + posts + lines(
				"11 THREADINIT tid:5", "12 THREADINIT tid:6",
				"13 CALL tid:1\t msg:1", "14 LOCK tid:1\t lock-obj:0x90", "rwId:1 WRITE tid:1 obj:0x10 class:LA; field:8", "15 ACCESS tid:1\t accessId:1", "16 UNLOCK tid:1\t lock-obj:0x90", "17 RET tid:1\t msg:1",
				"18 CALL tid:1\t msg:2", "19 LOCK tid:1\t lock-obj:0x90", "rwId:2 READ tid:1 obj:0x10 class:LA; field:8", "20 ACCESS tid:1\t accessId:2", "21 UNLOCK tid:1\t lock-obj:0x90", "22 RET tid:1\t msg:2",
				"23 LOCK tid:5\t lock-obj:0x91", "rwId:3 WRITE tid:5 obj:0x30 class:LC; field:8", "24 ACCESS tid:5\t accessId:3", "25 UNLOCK tid:5\t lock-obj:0x91",
				"26 LOCK tid:6\t lock-obj:0x91", "rwId:4 WRITE tid:6 obj:0x30 class:LC; field:8", "27 ACCESS tid:6\t accessId:4", "28 UNLOCK tid:6\t lock-obj:0x91",
			) + report([][2]wa{
				{{1, true, "0x10", "LA;", 8, "", 1, 1}, {2, false, "0x10", "LA;", 8, "", 1, 2}},
				{{3, true, "0x30", "LC;", 8, "", 5, 3}, {4, true, "0x30", "LC;", 8, "", 6, 4}},
			}, "multithreaded: class: LC;  field:8"),
			want: []string{"0x10.8 both/same", "0x30.8 droidracer-only/lockset"},
			check: func(t *testing.T, c *Comparison) {
				if w := c.Locations[1].Witnesses[0]; !slices.Equal(w.Locks, []string{"0x91"}) || w.Order != asyncclock.Concurrent ||
					!slices.Equal(w.Categories, []droidracer.CategoryKind{droidracer.MultiThreaded}) {
					t.Errorf("lockset: locks %v order %v categories %v", w.Locks, w.Order, w.Categories)
				}
			},
		},
		{
			name: "DroidRacer's two accesses are to two objects at one address",
			log: looper + posts + lines(
				"11 CALL tid:1\t msg:1", "rwId:1 WRITE tid:1 obj:0x40 class:LA; field:8", "12 ACCESS tid:1\t accessId:1", "13 RET tid:1\t msg:1",
				"14 CALL tid:1\t msg:2", "rwId:2 WRITE tid:1 obj:0x40 class:LD; field:8", "15 ACCESS tid:1\t accessId:2", "16 RET tid:1\t msg:2",
			) + report([][2]wa{{{1, true, "0x40", "LA;", 8, "", 1, 1}, {2, true, "0x40", "LA;", 8, "", 1, 2}}}),
			want: []string{"0x40.8 droidracer-only/two-objects"},
			check: func(t *testing.T, c *Comparison) {
				if w := c.Locations[0].Witnesses[0]; w.First.Object != "0x40" || w.Second.Object != "0x40#2" {
					t.Errorf("objects %s, %s", w.First.Object, w.Second.Object)
				}
			},
		},
		{
			name: "licorice only: DroidRacer's unlock→lock order, a database, and a race no rule explains",
			log: looper + posts + lines(
				"11 THREADINIT tid:5", "12 THREADINIT tid:6",
				"rwId:1 WRITE tid:5 obj:0x30 class:LC; field:8", "13 ACCESS tid:5\t accessId:1",
				"14 LOCK tid:5\t lock-obj:0x91", "15 UNLOCK tid:5\t lock-obj:0x91",
				"16 LOCK tid:6\t lock-obj:0x91", "17 UNLOCK tid:6\t lock-obj:0x91",
				"rwId:2 READ tid:6 obj:0x30 class:LC; field:8", "18 ACCESS tid:6\t accessId:2",
				"19 CALL tid:1\t msg:1", "rwId:3 WRITE tid:1 database:/data/x.db", "rwId:4 WRITE tid:1 obj:0x60 class:LE; field:4", "20 ACCESS tid:1\t accessId:3", "21 RET tid:1\t msg:1",
				"22 CALL tid:1\t msg:2", "rwId:5 WRITE tid:1 database:/data/x.db", "rwId:6 READ tid:1 obj:0x60 class:LE; field:4", "23 ACCESS tid:1\t accessId:4", "24 RET tid:1\t msg:2",
			) + report(nil),
			want: []string{"0x30.8 licorice-only/lock-order", "db:/data/x.db licorice-only/database", "0x60.4 licorice-only/unexplained"},
			check: func(t *testing.T, c *Comparison) {
				loc := c.Locations[0]
				if loc.Class != "LC;" || loc.Example == nil || loc.Example.Order != asyncclock.Concurrent || rules(loc.RuleChain) != "PO SIGNAL PO" {
					t.Errorf("lock-order: class %q example %+v chain %q", loc.Class, loc.Example, rules(loc.RuleChain))
				}
				if un := c.Locations[2]; un.Example.Concurrency == nil || len(un.Example.Concurrency.Reasons) == 0 {
					t.Errorf("unexplained: no hb explanation of m1 and m2: %+v", un.Example)
				}
			},
		},
	}
	// An activity resumed in message 1 and paused in message 2: the system
	// pauses it only once it has resumed.
	lifecycle := looper + posts + lines(
		"11 CALL tid:1\t msg:1",
		"12 TRIGGER-LIFECYCLE tid:1 component: id:1 state:LAUNCH-ACT",
		"13 INSTANCE-INTENT tid:1 instance:9 intentId:1",
		"14 TRIGGER-LIFECYCLE tid:1 component:A id:9 state:RESUME-ACT",
		"rwId:1 WRITE tid:1 obj:0x50 class:LA; field:8", "15 ACCESS tid:1\t accessId:1",
		"16 RET tid:1\t msg:1",
		"17 CALL tid:1\t msg:2",
		"18 TRIGGER-LIFECYCLE tid:1 component:A id:9 state:PAUSE-ACT",
		"rwId:2 READ tid:1 obj:0x50 class:LA; field:8", "19 ACCESS tid:1\t accessId:2",
		"20 RET tid:1\t msg:2") + report(nil)
	tests = append(tests,
		classCase{
			name: "licorice only: the activity lifecycle",
			log:  lifecycle,
			want: []string{"0x50.8 licorice-only/lifecycle"},
			check: func(t *testing.T, c *Comparison) {
				if ch := rules(c.Locations[0].RuleChain); ch != "PO SIGNAL PO" {
					t.Errorf("chain %q, want PO SIGNAL PO (through activity@14)", ch)
				}
			},
		},
		classCase{name: "with --lifecycle, no difference", opts: droidracer.Options{Lifecycle: true}, log: lifecycle},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compareText(t, tt.log, tt.opts)
			if got := verdicts(c); !slices.Equal(got, tt.want) {
				t.Fatalf("locations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// A log without DroidRacer's report has nothing to compare with.
func TestCompareWithoutReport(t *testing.T) {
	l, err := droidracer.Read(context.Background(), strings.NewReader(looper), "log")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DroidRacer(context.Background(), l, Config{}); err == nil || !strings.Contains(err.Error(), "no race report") {
		t.Errorf("got %v, want an error saying the log has no race report", err)
	}
}

// A witness whose accesses the log's trace does not have (a log cut short)
// is not compared, and said so.
func TestCompareUnplacedWitness(t *testing.T) {
	log := looper + posts + lines(
		"11 CALL tid:1\t msg:1", "rwId:1 WRITE tid:1 obj:0x10 class:LA; field:8", "12 ACCESS tid:1\t accessId:1", "13 RET tid:1\t msg:1",
	) + report([][2]wa{{{1, true, "0x10", "LA;", 8, "", 1, 1}, {77, false, "0x10", "LA;", 8, "", 1, 9}}})
	c := compareText(t, log, droidracer.Options{})
	if c.Witnesses != 1 || len(c.Locations) != 0 || !slices.Equal(c.Unplaced, []int{20}) {
		t.Errorf("witnesses %d, locations %v, unplaced %v; want 1, none, [20]", c.Witnesses, verdicts(c), c.Unplaced)
	}
	var b strings.Builder
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "not compared: 1 witness whose accesses the log's trace does not have (log lines 20)") {
		t.Errorf("text:\n%s", b.String())
	}
}
