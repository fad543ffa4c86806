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

// Races is the number of races the report reports, of every kind (those
// found less those the filters dropped).
func (r *Report) Races() int {
	n := 0
	for _, k := range r.Summary.Kinds {
		n += k.Races
	}
	return n
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
	InThread   int // reported races between events of one looper thread
	Groups     int // groups of the reported races
	// ListedGroups is how many of those the report lists (Config.Groups:
	// the first found), Listed how many races they list (Config.PerGroup).
	ListedGroups int
	Listed       int
	Covered      int // listed races covered by another listed race
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
	// Races are the races listed: all of the group's, or the first
	// [Config.PerGroup] found; uncovered first, then by line.
	Races    []*Race
	Count    int // the group's races, listed or not
	InThread int // of those, the ones between events of one looper thread
}

// Uncovered returns how many of g's listed races no other race covers.
func (g *Group) Uncovered() int {
	n := 0
	for _, r := range g.Races {
		if !r.Covered {
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
	// Covered says that another race the report lists covers this one
	// (EventRacer): its first access happens after (or is) this race's
	// first, and its second before (or is) this race's second, so treating
	// that race as synchronization would order this one. Races dropped as
	// harmless cover nothing: a commutative pair is no synchronization.
	// A race can only be shown to cover another if the detector still
	// remembers the time of its first access (the 16384 most recent task
	// versions), and a race is compared with the 1024 listed races whose
	// first access comes soonest after its own (see coverage.go).
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
// else the thread it ran on, by name, with every run of digits replaced by
// * so that the instances of a thread of one kind share it ("event on
// main", "thread AsyncTask #*").
func (a *Access) Context() string {
	if a.Handler != "" {
		return a.Handler
	}
	name := threadPattern(cmp.Or(a.ThreadName, a.Thread))
	if a.Event != "" {
		return "event on " + name
	}
	return "thread " + name
}

// threadPattern replaces every run of digits of a thread name by *.
func threadPattern(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			b = append(b, c)
		} else if i == 0 || s[i-1] < '0' || s[i-1] > '9' {
			b = append(b, '*')
		}
	}
	return string(b)
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
	// Use-free races of events still running when the trace ended.
	var pending []found
	for _, t := range d.tasks {
		pending = append(pending, t.pending...)
	}
	slices.SortFunc(pending, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.second.line, b.second.line), cmp.Compare(a.first.line, b.first.line))
	})
	for i := range pending {
		d.process(&pending[i])
	}
	rep := &Report{Trace: d.name, Ops: d.ops, Window: d.cfg.Window, All: d.cfg.All}
	var listed []*Race
	for _, k := range []Kind{UseFree, DataRace} {
		if !d.wants(k) {
			continue
		}
		ks := d.kinds[k]
		ks.Kind = k
		var rs []*Race
		var groups []*Group
		races := make(map[*found]*Race)
		for _, g := range d.order {
			if g.kind != k {
				continue
			}
			gr := &Group{Kind: k, Count: g.count, InThread: g.inThread}
			for _, f := range g.races {
				r := d.reportRace(f)
				races[f] = r
				rs = append(rs, r)
				gr.Races = append(gr.Races, r)
			}
			gr.Location = gr.Races[0].Location.Name
			gr.Handlers = [2]string{gr.Races[0].First.Context(), gr.Races[0].Second.Context()}
			if gr.Handlers[1] < gr.Handlers[0] {
				gr.Handlers[0], gr.Handlers[1] = gr.Handlers[1], gr.Handlers[0]
			}
			groups = append(groups, gr)
		}
		for f, r := range races {
			if f.cover != nil {
				r.Covered, r.CoveredBy = true, races[f.cover]
				ks.Covered++
			}
		}
		ks.Listed = len(rs)
		sortGroups(groups)
		for _, g := range groups {
			listed = append(listed, g.Races...)
		}
		rep.Groups = append(rep.Groups, groups...)
		rep.Summary.Kinds = append(rep.Summary.Kinds, ks)
	}
	for i, n := range d.hits {
		if r := &d.cfg.Harmless.rules[i]; n > 0 {
			rep.Summary.Harmless = append(rep.Summary.Harmless, RuleCount{Line: r.line, Rule: r.text, Races: n})
		}
	}
	for i, r := range listed {
		r.ID = "R" + strconv.Itoa(i+1)
	}
	for i, g := range rep.Groups {
		g.ID = "G" + strconv.Itoa(i+1)
	}
	d.groups, d.order = newGroupSet(), nil
	return rep, nil
}

// reportRace turns a found race into a report's race.
func (d *Detector) reportRace(f *found) *Race {
	return &Race{
		Kind:     f.kind,
		Location: d.reportLocation(f.loc),
		First:    d.reportAccess(f.kind, &f.first),
		Second:   d.reportAccess(f.kind, &f.second),
		InThread: d.sameLooper(f),
	}
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
	if v.IsAbsent() {
		return ""
	}
	return string(traces.AppendValueJSON(nil, v, syms))
}

// sortGroups puts groups in report order: each group's races uncovered
// first, then by line; groups with an uncovered race first, then by their
// first race.
func sortGroups(groups []*Group) {
	for _, g := range groups {
		slices.SortFunc(g.Races, compareRaces)
	}
	// Races are sorted uncovered first: a group's first says it all.
	slices.SortFunc(groups, func(a, b *Group) int {
		ra, rb := a.Races[0], b.Races[0]
		if ra.Covered != rb.Covered {
			if !ra.Covered {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(ra.Second.Line, rb.Second.Line); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(ra.First.Line, rb.First.Line),
			cmp.Compare(a.Location, b.Location),
			cmp.Compare(a.Handlers[0], b.Handlers[0]),
			cmp.Compare(a.Handlers[1], b.Handlers[1]))
	})
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
