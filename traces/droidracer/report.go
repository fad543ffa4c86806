package droidracer

import (
	"fmt"
	"strconv"
	"strings"
)

// Report is DroidRacer's own race report: what follows the line " HB Graph"
// in a log. It lists one witness per race (two accesses to one location
// that DroidRacer's happens-before relation leaves unordered), then sorts
// the racy fields into categories.
type Report struct {
	GraphSize  int // "HB Graph size : N": operations left after DroidRacer's clean-up
	Races      []Race
	Categories []Category
	// Unrecognized lists the lines of the report this package could not
	// read (a malformed witness, an unknown heading), so that a comparison
	// can say what it ignored.
	Unrecognized []Line
}

// Line is one line of a log.
type Line struct {
	N    int    // 1-based line number
	Text string // the line, without its newline
}

// Race is one witness: "RACE rwId1:… type - …" and the "rwId2:…" line after it.
type Race struct {
	Line          int // the line of "RACE"
	First, Second Access
}

// Location is where the two accesses of a race meet: the location of the
// first. DroidRacer names objects by their addresses, so the second may be
// an access to another object that lived at the same address, which the
// import names apart ("<address>#2"): then the two locations differ.
func (r *Race) Location() Location { return r.First.Loc }

// Access is one of the two accesses of a race witness: the fields DroidRacer
// prints, and where the access is in the trace part of the log.
type Access struct {
	RW       int64  // rwId: the access's line in the trace is "rwId:<RW> ..."
	Write    bool   // a WRITE (else a READ)
	Obj      string // the object's address, "0" for statics and databases
	Class    string // the object's class (DroidRacer prints the first access's class for both)
	Field    string // the field's name, where DroidRacer knew it (often empty)
	FieldIdx int64  // the field's offset (instance fields) or index (statics)
	DBPath   string // the database, for a race on a database
	Tid      int64  // the thread that made the access
	AccessID int64  // the access set (ACCESS line "accessId:<AccessID>") it belongs to

	// Loc is the location in the imported trace: the one the import gave
	// the access's rwId line, or, if the trace part has no such line, one
	// built from the witness's own fields.
	Loc Location
	// Where the access is in the log's trace part; zero if it is not there.
	RWLine int   // the line "rwId:<RW> ..."
	Op     int64 // the op id of the ACCESS line that closes its block
	OpLine int   // the line of that ACCESS
}

// Src is the src the imported trace gives this access's read or write op.
func (a *Access) Src() string { return rwSrc(a.RW) }

// Location is a heap location as the imported trace names it: an object's
// field, a static field of a class, or a database (Obj "db:<path>", Field "*").
type Location struct {
	Obj    string // object id, class descriptor (Static), or "db:<path>"
	Field  string // field offset or index as DroidRacer logs it, "*" for a database
	Static bool
}

func (l Location) String() string {
	if l.Static {
		return l.Obj + "." + l.Field + " (static)"
	}
	return l.Obj + "." + l.Field
}

// CategoryKind is one of DroidRacer's race categories.
type CategoryKind uint8

const (
	MultiThreaded CategoryKind = iota + 1 // "Multithreaded races"
	DelayedPost                           // "Races due to a delayed post in ancestor asyncblocks"
	CrossPost                             // "Races due to cross thread post in ancestor asyncblocks"
	CoEnabled                             // "Races due to co-enabled events"
	Uncategorized                         // "Uncategorized races"
)

var categoryHeadings = map[string]CategoryKind{
	"Multithreaded races": MultiThreaded,
	"Races due to a delayed post in ancestor asyncblocks":    DelayedPost,
	"Races due to cross thread post in ancestor asyncblocks": CrossPost,
	"Races due to co-enabled events":                         CoEnabled,
	"Uncategorized races":                                    Uncategorized,
}

var categoryNames = [...]string{
	MultiThreaded: "multithreaded", DelayedPost: "delayed-post", CrossPost: "cross-post",
	CoEnabled: "co-enabled", Uncategorized: "uncategorized",
}

func (k CategoryKind) String() string {
	if k > 0 && int(k) < len(categoryNames) {
		return categoryNames[k]
	}
	return "invalid"
}

// Category is one section of DroidRacer's categorization: the racy fields
// it put in that category.
type Category struct {
	Kind    CategoryKind
	Entries []CategoryEntry
}

// CategoryEntry is one racy field of a category: "class: C  field:N",
// "object: 0x…  field:N co-enabled trigger opIds:A, B" or "database path: P".
type CategoryEntry struct {
	Line     int
	Class    string  // by class and field
	Object   string  // by object and field (co-enabled races)
	Field    int64   // the field offset or index
	DBPath   string  // a database
	Triggers []int64 // co-enabled races: the op ids of the two unordered triggers
}

// parseReport reads the report part of a log; first is the line number of
// lines[0]. Lines it cannot read go to Unrecognized.
func parseReport(lines []string, first int) *Report {
	rep := &Report{}
	var cat *Category
	bad := func(i int) { rep.Unrecognized = append(rep.Unrecognized, Line{first + i, lines[i]}) }
	for i := 0; i < len(lines); i++ {
		s := strings.TrimSpace(lines[i])
		n := first + i
		switch {
		case s == "" || s == "HB Graph" || s == "Races detected" || s == "Categorization of detected races" ||
			s == "Async races (on single thread)":
		case strings.HasPrefix(s, "HB Graph size"):
			_, v, _ := strings.Cut(s, ":")
			size, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				bad(i)
				continue
			}
			rep.GraphSize = size
		case strings.HasPrefix(s, "RACE "):
			if i+1 >= len(lines) {
				bad(i)
				continue
			}
			a, err1 := parseWitness(strings.TrimPrefix(s, "RACE "), "rwId1:")
			b, err2 := parseWitness(strings.TrimSpace(lines[i+1]), "rwId2:")
			if err1 != nil || err2 != nil {
				bad(i)
				continue
			}
			rep.Races = append(rep.Races, Race{Line: n, First: a, Second: b})
			i++
		case categoryHeadings[s] != 0:
			rep.Categories = append(rep.Categories, Category{Kind: categoryHeadings[s]})
			cat = &rep.Categories[len(rep.Categories)-1]
		case s == "Memory used for race detection":
			return rep // what follows is memory statistics
		case cat != nil:
			e, ok := parseCategoryEntry(s, n)
			if !ok {
				bad(i)
				continue
			}
			cat.Entries = append(cat.Entries, e)
		default:
			bad(i)
		}
	}
	return rep
}

// witnessKeys are the keys of a witness line, each followed by " - value"
// (the value may be empty).
var witnessKeys = map[string]bool{
	"type": true, "obj": true, "class": true, "field": true, "fieldIdx": true,
	"dbPath": true, "tid": true, "accessId": true,
}

// parseWitness reads "rwId1:7286 type - WRITE  obj - 0x41105448  class - …".
func parseWitness(s, prefix string) (Access, error) {
	var a Access
	if !strings.HasPrefix(s, prefix) {
		return a, fmt.Errorf("want %q", prefix)
	}
	toks := strings.Fields(s[len(prefix):])
	if len(toks) == 0 {
		return a, fmt.Errorf("no rwId")
	}
	rw, err := strconv.ParseInt(toks[0], 10, 64)
	if err != nil {
		return a, err
	}
	a.RW = rw
	vals := map[string]string{}
	isKey := func(i int) bool { return i+1 < len(toks) && witnessKeys[toks[i]] && toks[i+1] == "-" }
	for i := 1; i < len(toks); {
		if !isKey(i) {
			return a, fmt.Errorf("unexpected %q", toks[i])
		}
		k := toks[i]
		if i+2 < len(toks) && !isKey(i+2) {
			vals[k] = toks[i+2]
			i += 3
		} else {
			vals[k] = ""
			i += 2
		}
	}
	switch vals["type"] {
	case "READ":
	case "WRITE":
		a.Write = true
	default:
		return a, fmt.Errorf("type %q", vals["type"])
	}
	a.Obj, a.Class, a.Field, a.DBPath = vals["obj"], vals["class"], vals["field"], vals["dbPath"]
	for _, kv := range []struct {
		key string
		dst *int64
	}{{"fieldIdx", &a.FieldIdx}, {"tid", &a.Tid}, {"accessId", &a.AccessID}} {
		n, err := strconv.ParseInt(vals[kv.key], 10, 64)
		if err != nil {
			return a, fmt.Errorf("%s: %v", kv.key, err)
		}
		*kv.dst = n
	}
	return a, nil
}

// parseCategoryEntry reads one entry of a category.
func parseCategoryEntry(s string, line int) (CategoryEntry, bool) {
	e := CategoryEntry{Line: line}
	if rest, ok := strings.CutPrefix(s, "database path:"); ok {
		path, trig, _ := strings.Cut(rest, " co-enabled trigger opIds:")
		e.DBPath = strings.TrimSpace(path)
		if trig != "" && !parseTriggers(trig, &e) {
			return e, false
		}
		return e, e.DBPath != ""
	}
	main, trig, _ := strings.Cut(s, " co-enabled trigger opIds:")
	toks := strings.Fields(main)
	if len(toks) != 3 || !strings.HasPrefix(toks[2], "field:") {
		return e, false
	}
	switch toks[0] {
	case "class:":
		e.Class = toks[1]
	case "object:":
		e.Object = toks[1]
	default:
		return e, false
	}
	f, err := strconv.ParseInt(strings.TrimPrefix(toks[2], "field:"), 10, 64)
	if err != nil {
		return e, false
	}
	e.Field = f
	if trig != "" && !parseTriggers(trig, &e) {
		return e, false
	}
	return e, true
}

// parseTriggers reads "563, 712".
func parseTriggers(s string, e *CategoryEntry) bool {
	for _, t := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil {
			return false
		}
		e.Triggers = append(e.Triggers, n)
	}
	return len(e.Triggers) == 2
}
