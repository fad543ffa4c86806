package compare

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

// Config says how to compare.
type Config struct {
	// App names the app in the imported trace's header.
	App string
	// Import selects the optional parts of the import: with Lifecycle, the
	// orders of Android's activity lifecycle.
	Import droidracer.Options
}

// Comparison is the result of comparing licorice's data races with
// DroidRacer's on one log, location by location.
type Comparison struct {
	Log       string // the log's file name
	App       string
	Options   droidracer.Options
	Ops       int // operations of the imported trace
	Witnesses int // DroidRacer's race witnesses
	Races     int // the data races licorice reports
	// Unplaced are the lines of the witnesses whose accesses the log's
	// trace part does not have (a log cut short): not compared.
	Unplaced []int
	// Unreadable is how many lines of DroidRacer's report could not be
	// read (droidracer.Report.Unrecognized).
	Unreadable int
	// Locations are the locations either tool reports a race on: both
	// first, then DroidRacer's only, then licorice's only, each by reason
	// and key.
	Locations []*Location
}

// Verdict says which tool reports a race on a location.
type Verdict uint8

const (
	Both           Verdict = iota + 1 // both report a race on it
	DroidRacerOnly                    // DroidRacer only
	LicoriceOnly                      // licorice only
)

var verdictNames = [...]string{Both: "both", DroidRacerOnly: "droidracer-only", LicoriceOnly: "licorice-only"}

func (v Verdict) String() string {
	if v > 0 && int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "invalid"
}

// Reason is the class of a difference between the two tools: why licorice
// does not consider a witness of DroidRacer's a race, or why DroidRacer
// does not report a location licorice reports.
type Reason uint8

const (
	// Same: no difference; the witness is a race for licorice too.
	Same Reason = iota + 1
	// Locks: the two accesses are made on two threads holding a common
	// lock: mutual exclusion, no data race for licorice. DroidRacer has
	// no locksets. (Two events of one looper thread holding a common lock
	// are a race for both: the lock cannot decide which runs first.)
	Locks
	// TwoObjects: DroidRacer names objects by address; its two accesses
	// are to two objects that lived at the address one after the other.
	TwoObjects
	// Ordered: licorice's happens-before orders the two accesses.
	Ordered
	// Lifecycle: DroidRacer's activity state machine orders the pair;
	// licorice does with the lifecycle option.
	Lifecycle
	// LockOrder: DroidRacer orders an unlock before the next lock of the
	// lock by another thread; licorice deliberately does not.
	LockOrder
	// LifecycleLockOrder: the two rules together order the pair.
	LifecycleLockOrder
	// Database: DroidRacer does not report races on databases.
	Database
	// Unexplained: no rule of DroidRacer's that the comparison knows
	// orders the pair.
	Unexplained
	numReasons
)

var reasonNames = [numReasons]string{
	Same: "same", Locks: "lockset", TwoObjects: "two-objects",
	Ordered: "ordered", Lifecycle: "lifecycle", LockOrder: "lock-order", LifecycleLockOrder: "lifecycle+lock-order",
	Database: "database", Unexplained: "unexplained",
}

var reasonDocs = [numReasons]string{
	Same:               "the same race: DroidRacer's witness is a data race for licorice too",
	Locks:              "two threads holding a common lock: mutual exclusion, not a data race for licorice (DroidRacer has no locksets)",
	TwoObjects:         "two objects that lived at one address one after the other: DroidRacer names objects by address",
	Ordered:            "licorice's happens-before orders the two accesses",
	Lifecycle:          "DroidRacer's activity state machine orders them; licorice does with --lifecycle",
	LockOrder:          "DroidRacer orders an unlock before the next lock of the lock by another thread; licorice deliberately does not (locks give mutual exclusion, never order)",
	LifecycleLockOrder: "DroidRacer's activity state machine and its unlock→lock order together order them",
	Database:           "DroidRacer does not report races on databases",
	Unexplained:        "no rule of DroidRacer's that the comparison knows orders them",
}

func (r Reason) String() string {
	if r > 0 && r < numReasons {
		return reasonNames[r]
	}
	return "invalid"
}

// Doc says what the reason means, in a sentence.
func (r Reason) Doc() string {
	if r > 0 && r < numReasons {
		return reasonDocs[r]
	}
	return ""
}

// Key is a location as DroidRacer names it: an object's address (not
// which of the objects that lived there) and a field offset, a class and
// a static field index, or a database.
type Key struct {
	Object string // the address, the class of a static field, or "db:<path>"
	Field  string // the field offset or index; "*" for a database
	Static bool
}

func (k Key) String() string {
	switch {
	case k.Static:
		return k.Object + "." + k.Field + " (static)"
	case k.Field == "*":
		return k.Object
	}
	return k.Object + "." + k.Field
}

func compareKeys(a, b Key) int {
	return cmp.Or(strings.Compare(a.Object, b.Object), compareFields(a.Field, b.Field), cmpBool(a.Static, b.Static))
}

// compareFields orders field offsets as numbers.
func compareFields(a, b string) int {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// keyOf returns the key of a location of the imported trace, which names
// the objects that lived at one address "<address>", "<address>#2", ...
func keyOf(obj, field string, static bool) Key {
	if !static {
		obj, _, _ = strings.Cut(obj, "#")
	}
	return Key{Object: obj, Field: field, Static: static}
}

// Location is one location either tool reports a race on.
type Location struct {
	Key     Key
	Class   string // the class of the object or of the static field ("" for a database)
	Verdict Verdict
	// Reason is the class of the difference: Same for a location both
	// report where licorice finds every witness a race too; else the
	// reason of the first witness it does not; for a location licorice
	// only reports, the rule of DroidRacer's that orders its example.
	Reason Reason
	// Categories are DroidRacer's categories of its witnesses here.
	Categories []droidracer.CategoryKind
	// Witnesses are DroidRacer's witnesses on the location, each with what
	// licorice makes of its two accesses.
	Witnesses []*Witness
	// Races is how many of licorice's races are on the location, and
	// Example the first of them (in the report's order: uncovered first).
	Races   int
	Example *Pair
	// RuleChain, for a location only licorice reports and that a rule of
	// DroidRacer's explains (Reason Lifecycle, LockOrder or
	// LifecycleLockOrder), is the chain that orders Example once licorice
	// has that rule.
	RuleChain []Step
}

// Pair is a pair of accesses to one location: a DroidRacer witness, or a
// race of licorice.
type Pair struct {
	First, Second Access // in trace order
	// Order is how licorice's happens-before orders the two accesses.
	Order asyncclock.Order
	// Locks are the locks both accesses were made holding.
	Locks []string
	// Chain, when the accesses are ordered, is a shortest chain of rule
	// applications from the first to the second.
	Chain []Step
	// Concurrency, for concurrent accesses by two events, is what `licorice
	// hb` says of the two events.
	Concurrency *races.Concurrency
}

// Witness is one of DroidRacer's race witnesses.
type Witness struct {
	Line int // the line of "RACE" in the log
	Pair
	// Categories are the categories DroidRacer may have printed it for:
	// multithreaded for two threads; else co-enabled, or those of
	// delayed-post, cross-post and uncategorized its class and field are
	// in (the report sorts those by class, not by witness).
	Categories []droidracer.CategoryKind
	// Reason is Same if licorice considers the two accesses a data race
	// too, else why not.
	Reason Reason
}

// Access is one access of a pair.
type Access struct {
	RW     int64  // DroidRacer's rwId
	Op     string // "read" or "write"
	Object string // the object (or class) as the imported trace names it
	Line   int    // the line of the access in the imported trace
	Task   string // the event or thread that made it
	Event  string // the event, if an event made it
	Thread string // the thread: the task itself, or the event's thread
	op     int    // its op in the trace
}

// Step is one rule application of a chain: the rule, the two operations
// and why it applies, as `licorice hb` gives them.
type Step struct {
	races.Step
	// Premise, for PRIORITY, is the chain that shows the order the rule
	// starts from: the send of the first event before the send of the
	// second.
	Premise []Step
}

// DroidRacer imports log l, runs licorice's data race detector on it
// (exact happens-before, no time window: imported traces carry no time)
// and compares its races with the witnesses of DroidRacer's report,
// location by location.
func DroidRacer(ctx context.Context, l *droidracer.Log, cfg Config) (*Comparison, error) {
	if l.Report == nil {
		return nil, fmt.Errorf("%s has no race report (no line \" HB Graph\"): nothing to compare with", l.Name)
	}
	t, err := importTrace(ctx, l, cfg.App, cfg.Import)
	if err != nil {
		return nil, err
	}
	rep, err := t.detect(ctx, nil)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Log: l.Name, App: cfg.App, Options: cfg.Import, Ops: len(t.ops), Witnesses: len(l.Report.Races),
		Unreadable: len(l.Report.Unrecognized)}
	locs := map[Key]*Location{}
	at := func(k Key) *Location {
		loc := locs[k]
		if loc == nil {
			loc = &Location{Key: k}
			locs[k] = loc
		}
		return loc
	}

	var pairs []*Pair
	for _, race := range l.Report.Races {
		w := t.witness(l, race)
		if w == nil {
			c.Unplaced = append(c.Unplaced, race.Line)
			continue
		}
		loc := at(keyOf(race.First.Loc.Obj, race.First.Loc.Field, race.First.Loc.Static))
		loc.Class = cmp.Or(loc.Class, race.First.Class)
		loc.Witnesses = append(loc.Witnesses, w)
		pairs = append(pairs, &w.Pair)
	}
	byLine := make(map[int]int, len(t.lines)) // line -> op
	for i, n := range t.lines {
		byLine[n] = i
	}
	for _, g := range rep.Groups {
		for _, race := range g.Races {
			c.Races++
			loc := at(keyOf(race.Location.Object, race.Location.Field, race.Location.Static))
			loc.Races++
			if loc.Example == nil {
				loc.Example = t.pair(byLine[race.First.Line], byLine[race.Second.Line])
				pairs = append(pairs, loc.Example)
			}
		}
	}
	if err := t.order(ctx, pairs); err != nil {
		return nil, err
	}

	for _, loc := range locs {
		for _, w := range loc.Witnesses {
			w.Reason = t.witnessReason(w)
			for _, k := range w.Categories {
				if !slices.Contains(loc.Categories, k) {
					loc.Categories = append(loc.Categories, k)
				}
			}
		}
		slices.Sort(loc.Categories)
		switch {
		case len(loc.Witnesses) > 0 && loc.Races > 0:
			loc.Verdict = Both
		case len(loc.Witnesses) > 0:
			loc.Verdict = DroidRacerOnly
		default:
			loc.Verdict = LicoriceOnly
		}
		loc.Reason = Same
		for _, w := range loc.Witnesses {
			if w.Reason != Same {
				loc.Reason = w.Reason
				break
			}
		}
		switch {
		case loc.Key.Static:
			loc.Class = loc.Key.Object
		case loc.Class == "" && loc.Example != nil:
			loc.Class = l.Class(loc.Example.First.Object)
		}
		c.Locations = append(c.Locations, loc)
	}
	if err := attribute(ctx, l, cfg, t, c.Locations); err != nil {
		return nil, err
	}
	slices.SortFunc(c.Locations, func(a, b *Location) int {
		return cmp.Or(cmp.Compare(a.Verdict, b.Verdict), cmp.Compare(a.Reason, b.Reason), compareKeys(a.Key, b.Key))
	})
	return c, nil
}

// witness finds the two accesses of a witness in the trace; nil if the
// trace does not have them.
func (t *trace) witness(l *droidracer.Log, race droidracer.Race) *Witness {
	i, ok1 := t.access[race.First.Src()]
	j, ok2 := t.access[race.Second.Src()]
	if !ok1 || !ok2 {
		return nil
	}
	if j < i {
		i, j = j, i
	}
	w := &Witness{Line: race.Line, Pair: *t.pair(i, j)}
	w.Categories = categories(l.Report, race)
	return w
}

// pair returns the pair of access ops i < j.
func (t *trace) pair(i, j int) *Pair {
	return &Pair{First: t.accessAt(i), Second: t.accessAt(j), Locks: t.commonLocks(i, j)}
}

// witnessReason says whether licorice considers the two accesses of w a
// data race, and if not why.
func (t *trace) witnessReason(w *Witness) Reason {
	switch {
	case t.ops[w.First.op].Loc != t.ops[w.Second.op].Loc:
		return TwoObjects
	case w.Order != asyncclock.Concurrent || w.First.Task == w.Second.Task:
		return Ordered
	case len(w.Locks) > 0 && !(w.First.Event != "" && w.Second.Event != "" && w.First.Thread == w.Second.Thread && t.looper[t.threads[w.First.op]]):
		return Locks
	}
	return Same
}

// categories returns the categories DroidRacer may have printed witness
// race for.
func categories(rep *droidracer.Report, race droidracer.Race) []droidracer.CategoryKind {
	a := &race.First
	if a.Tid != race.Second.Tid {
		return []droidracer.CategoryKind{droidracer.MultiThreaded}
	}
	var out []droidracer.CategoryKind
	for _, c := range rep.Categories {
		for _, e := range c.Entries {
			var match bool
			switch {
			case c.Kind == droidracer.MultiThreaded:
			case e.DBPath != "":
				match = a.DBPath == e.DBPath
			case e.Object != "":
				match = e.Object == a.Obj && e.Field == a.FieldIdx
			default:
				match = c.Kind != droidracer.CoEnabled && e.Class == a.Class && e.Field == a.FieldIdx
			}
			if match && !slices.Contains(out, c.Kind) {
				out = append(out, c.Kind)
			}
		}
	}
	slices.Sort(out)
	return out
}

// accessAt describes the access op i.
func (t *trace) accessAt(i int) Access {
	op := &t.ops[i]
	a := Access{
		RW: rwOf(t.str(op.Src)), Op: op.Kind.String(), Object: t.str(op.Loc.Obj),
		Line: t.lines[i], Task: t.str(op.Task), Thread: t.str(t.threads[i]), op: i,
	}
	if t.isEvent(i) {
		a.Event = a.Task
	}
	return a
}

// rwOf returns the rwId of an access from its src, "droidracer:rw<id>".
func rwOf(src string) int64 {
	s, _ := strings.CutPrefix(src, "droidracer:rw")
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// src returns the src the imported trace gives the access.
func (a *Access) src() string { return "droidracer:rw" + strconv.FormatInt(a.RW, 10) }
