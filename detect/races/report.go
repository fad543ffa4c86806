package races

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// Report is what a [Detector] found in one trace: the races left after the
// filters, grouped, and a summary of how many each step kept.
type Report struct {
	Trace   string        // the trace's file name
	Ops     int64         // operations read
	Window  time.Duration // the engine's time window (0: exact)
	All     bool          // every racing pair was reported ([Config.All])
	Summary Summary
	Groups  []*Group // in report order: by kind, groups with uncovered races first
}

// Summary counts the races of a report, kind by kind.
type Summary struct {
	Kinds    []KindSummary // use-free, then data: the kinds detected
	Harmless []RuleCount   // the harmless filter's rules that dropped races, in file order
}

// KindSummary counts the races of one kind, from found to reported.
type KindSummary struct {
	Kind       Kind
	Found      int // racing pairs found
	IfGuard    int // use-free races dropped by CAFA's if-guard filter
	IntraAlloc int // use-free races dropped by CAFA's intra-event-allocation filter
	Harmless   int // races the harmless filter dropped
	Races      int // races reported: Found less the dropped ones
	Covered    int // reported races covered by another race
	InThread   int // reported races between events of one looper thread
	Groups     int // groups of the reported races
}

// RuleCount is how many races one rule of the harmless filter dropped.
type RuleCount struct {
	Line  int    // the rule's line in the filter file
	Rule  string // its text
	Races int
}

// Group is a set of races of one kind on one location, named
// independently of object identity, between the same two handlers
// (EventRacer's race groups).
type Group struct {
	ID       string // "G1", ... in report order
	Kind     Kind
	Location string    // the symbolic name of the location ([Location.Name])
	Handlers [2]string // the contexts of the two accesses ([Access.Context]), sorted
	Races    []*Race   // uncovered first, then by line
}

// Uncovered returns how many of g's races no other race covers.
func (g *Group) Uncovered() int {
	n := 0
	for _, r := range g.Races {
		if !r.Covered {
			n++
		}
	}
	return n
}

// InThread returns how many of g's races are between events of one
// looper thread.
func (g *Group) InThread() int {
	n := 0
	for _, r := range g.Races {
		if r.InThread {
			n++
		}
	}
	return n
}

// Race is a pair of concurrent accesses.
type Race struct {
	ID       string // "R1", ... in report order
	Kind     Kind
	Location Location
	// First and Second are the two accesses, in trace order.
	First, Second Access
	// InThread says that both accesses are by events of the same looper
	// thread (the thesis' in-thread races); otherwise the race is between
	// threads, or events of different threads.
	InThread bool
	// Covered says that another race of the report covers this one
	// (EventRacer): its first access happens after (or is) this race's
	// first, and its second before (or is) this race's second, so treating
	// that race as synchronization would order this one. Races dropped as
	// harmless cover nothing: a commutative pair is no synchronization.
	// A race can only be shown to cover another if the detector still
	// remembers the time of its first access (the 16384 most recent task
	// versions).
	Covered   bool
	CoveredBy *Race // the covering race, if Covered
}

// Location is a heap location.
type Location struct {
	// Name is the location's symbolic name, the same for the same field of
	// objects allocated at one site in any execution: "site.field" for an
	// object whose allocation was seen ("MyTracks.onCreate:120.dataHub"),
	// "Class.field" for a static field, "@id.field" for an object never
	// seen allocated (a high-level location such as "@db:Users.2"); array
	// elements have no dot ("site[3]").
	Name   string
	Object string // the object's id, or the class of a static field
	Field  string
	Static bool
	Site   string // the object's allocation site, if seen
	Type   string // the object's type, if seen
}

// Class returns the class the location belongs to: the class of a static
// field, or the object's type ("" if unknown).
func (l *Location) Class() string {
	if l.Static {
		return l.Object
	}
	return l.Type
}

// Access is one of the two accesses of a race.
type Access struct {
	Op         string // "read" or "write" in a data race, "use" or "free" in a use-free race
	Line       int    // the operation's line in the trace
	Task       string // the task that made it: an event, or a thread
	Event      string // the event, if an event made it
	Handler    string // the innermost handler call it was made in ("" if none)
	Thread     string // the thread: the task itself, or the thread that ran the event
	ThreadName string // the thread's name, if it has one
	TS         float64
	HasTS      bool
	Src        string   // its source location, if recorded
	Value      string   // the value read or written as JSON ("null", `{"ref":"o3"}`, 42); "" if not recorded
	Locks      []string // the locks its task held, sorted
}

// Context names where the access was made, for grouping: its handler, or
// else the thread it ran on ("event on main", "thread AsyncTask #1").
func (a *Access) Context() string {
	if a.Handler != "" {
		return a.Handler
	}
	name := cmp.Or(a.ThreadName, a.Thread)
	if a.Event != "" {
		return "event on " + name
	}
	return "thread " + name
}

// Finish ends the trace and returns the report.
func (d *Detector) Finish() (*Report, error) {
	if d.finished {
		return nil, errFinished
	}
	d.finished = true
	if err := d.eng.Finish(); err != nil {
		return nil, err
	}
	rep := &Report{Trace: d.name, Ops: d.ops, Window: d.cfg.Window, All: d.cfg.All}
	var races []*Race
	hits := make([]int, d.cfg.Harmless.Len())
	for _, k := range []Kind{UseFree, DataRace} {
		if !d.wants(k) {
			continue
		}
		ks := KindSummary{Kind: k}
		var fs []*found
		for i := range d.found {
			if f := &d.found[i]; f.kind == k {
				fs = append(fs, f)
			}
		}
		ks.Found = len(fs)
		var kept []*found
		var reported []*Race
		for _, f := range fs {
			if k == UseFree && !d.cfg.Unfiltered && d.sameLooper(f) {
				use, free := &f.first, &f.second
				if use.write {
					use, free = free, use
				}
				switch {
				case use.flags&fGuarded != 0:
					ks.IfGuard++
					continue
				case use.flags&fAllocated != 0 || d.realloc[free.line]:
					ks.IntraAlloc++
					continue
				}
			}
			r := d.race(f)
			if rule := d.cfg.Harmless.match(r); rule >= 0 {
				ks.Harmless++
				hits[rule]++
				continue
			}
			kept = append(kept, f)
			reported = append(reported, r)
		}
		for i, c := range coverage(kept) {
			if c >= 0 {
				reported[i].Covered, reported[i].CoveredBy = true, reported[c]
			}
		}
		groups := group(reported, k)
		for _, g := range groups {
			ks.Groups++
			for _, r := range g.Races {
				ks.Races++
				if r.Covered {
					ks.Covered++
				}
				if r.InThread {
					ks.InThread++
				}
				races = append(races, r)
			}
		}
		rep.Groups = append(rep.Groups, groups...)
		rep.Summary.Kinds = append(rep.Summary.Kinds, ks)
	}
	for i, n := range hits {
		if r := &d.cfg.Harmless.rules[i]; n > 0 {
			rep.Summary.Harmless = append(rep.Summary.Harmless, RuleCount{Line: r.line, Rule: r.text, Races: n})
		}
	}
	for i, r := range races {
		r.ID = "R" + strconv.Itoa(i+1)
	}
	for i, g := range rep.Groups {
		g.ID = "G" + strconv.Itoa(i+1)
	}
	d.found = nil
	return rep, nil
}

// sameLooper reports whether both accesses of f are by events of one
// looper thread: CAFA's filters apply to them.
func (d *Detector) sameLooper(f *found) bool {
	return f.first.flags&f.second.flags&fLooper != 0 && f.first.thread == f.second.thread
}

// race turns a found race into a report's race.
func (d *Detector) race(f *found) *Race {
	r := &Race{
		Kind:     f.kind,
		Location: d.reportLocation(f.loc),
		First:    d.reportAccess(f.kind, &f.first),
		Second:   d.reportAccess(f.kind, &f.second),
		InThread: d.sameLooper(f),
	}
	return r
}

func (d *Detector) str(y traces.Sym) string { return d.syms.String(y) }

// reportLocation returns the report form of loc.
func (d *Detector) reportLocation(loc traces.Location) Location {
	l := Location{Name: d.locName(loc), Object: d.str(loc.Obj), Field: d.str(loc.Field), Static: loc.Static}
	if o := int(loc.Obj); !loc.Static && o < len(d.site) {
		l.Site, l.Type = d.str(d.site[o]), d.str(d.typ[o])
	}
	return l
}

// locName returns the symbolic name of loc (see [Location.Name]).
func (d *Detector) locName(loc traces.Location) string {
	var base string
	switch o := int(loc.Obj); {
	case loc.Static:
		base = d.str(loc.Obj)
	case o < len(d.site) && d.site[o] != traces.NoSym:
		base = d.str(d.site[o])
	default:
		base = "@" + d.str(loc.Obj)
	}
	field := d.str(loc.Field)
	if len(field) > 0 && field[0] == '[' {
		return base + field
	}
	return base + "." + field
}

// reportAccess returns the report form of a.
func (d *Detector) reportAccess(k Kind, a *access) Access {
	r := Access{
		Line:    int(a.line),
		Task:    d.str(a.task),
		Handler: d.str(a.handler),
		Thread:  d.str(a.thread),
		Src:     d.str(a.src),
		TS:      a.ts,
		HasTS:   a.flags&fHasTS != 0,
		Value:   valueJSON(a.val, d.syms),
	}
	switch {
	case k == UseFree && a.write:
		r.Op = "free"
	case k == UseFree:
		r.Op = "use"
	case a.write:
		r.Op = "write"
	default:
		r.Op = "read"
	}
	if a.flags&fEvent != 0 {
		r.Event = r.Task
	}
	if th, ok := d.threads[a.thread]; ok {
		r.ThreadName = d.str(th.name)
	}
	for _, l := range d.locks.sets[a.locks] {
		r.Locks = append(r.Locks, d.str(l))
	}
	slices.Sort(r.Locks)
	return r
}

// valueJSON returns v as the trace's text form spells it ("" if absent).
func valueJSON(v traces.Value, syms *traces.Symbols) string {
	switch v.Kind() {
	case traces.NullValue:
		return "null"
	case traces.RefValue:
		return `{"ref":` + quoteJSON(syms.String(v.Sym())) + "}"
	case traces.IntValue:
		return strconv.FormatInt(v.Int(), 10)
	case traces.FloatValue:
		s := strconv.FormatFloat(v.Float(), 'g', -1, 64)
		if !containsAny(s, ".eEn") { // keep it a float: 2 → 2.0
			s += ".0"
		}
		return s
	case traces.BoolValue:
		return strconv.FormatBool(v.Bool())
	case traces.StringValue:
		return quoteJSON(syms.String(v.Sym()))
	}
	return ""
}

func containsAny(s, chars string) bool {
	for i := range len(s) {
		for j := range len(chars) {
			if s[i] == chars[j] {
				return true
			}
		}
	}
	return false
}

// group sorts the races of one kind into groups, in report order.
func group(races []*Race, k Kind) []*Group {
	type key struct {
		loc      string
		handlers [2]string
	}
	byKey := make(map[key]*Group)
	var groups []*Group
	for _, r := range races {
		h := [2]string{r.First.Context(), r.Second.Context()}
		if h[1] < h[0] {
			h[0], h[1] = h[1], h[0]
		}
		kk := key{r.Location.Name, h}
		g := byKey[kk]
		if g == nil {
			g = &Group{Kind: k, Location: kk.loc, Handlers: h}
			byKey[kk] = g
			groups = append(groups, g)
		}
		g.Races = append(g.Races, r)
	}
	for _, g := range groups {
		slices.SortFunc(g.Races, compareRaces)
	}
	// Groups with an uncovered race first, then by their first race.
	slices.SortFunc(groups, func(a, b *Group) int {
		ua, ub := a.Uncovered() > 0, b.Uncovered() > 0
		if ua != ub {
			if ua {
				return -1
			}
			return 1
		}
		return cmp.Or(compareRaces(a.Races[0], b.Races[0]),
			cmp.Compare(a.Location, b.Location),
			cmp.Compare(a.Handlers[0], b.Handlers[0]),
			cmp.Compare(a.Handlers[1], b.Handlers[1]))
	})
	return groups
}

// compareRaces orders uncovered races first, then by their lines.
func compareRaces(a, b *Race) int {
	if a.Covered != b.Covered {
		if !a.Covered {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.Second.Line, b.Second.Line), cmp.Compare(a.First.Line, b.First.Line))
}
