package droidracer

import (
	"fmt"
	"strconv"
	"strings"
)

// A record is one line of the trace part of a log: an operation
// ("17 CALL tid:1 msg:2") or a field access ("rwId:70 WRITE tid:1 ...").
type record struct {
	line   int    // 1-based line in the log
	id     int64  // the op id, or the rwId of an access
	kw     string // the keyword: "CALL", "WRITE", ...
	access bool   // a field access line (rwId:...)
	known  bool   // kw is a keyword this package maps
	fields []field
	name   string // NATIVE-ENTRY/EXIT: the thread's name
	text   string // the line as in the log, without its newline
	obj    string // accesses: the object, class or database; LOCK, UNLOCK: the lock
}

// A field is one key:value of a line. Values are kept as written; numbers
// were checked when the line was parsed.
type field struct{ key, val string }

// str returns the value of key, or "" if the line has none.
func (r *record) str(key string) string {
	for _, f := range r.fields {
		if f.key == key {
			return f.val
		}
	}
	return ""
}

// has reports whether the line has key.
func (r *record) has(key string) bool {
	for _, f := range r.fields {
		if f.key == key {
			return true
		}
	}
	return false
}

// num returns the integer value of key, 0 if absent. Keys that a keyword's
// spec declares as integers were checked by parseLine.
func (r *record) num(key string) int64 {
	n, _ := strconv.ParseInt(r.str(key), 10, 64)
	return n
}

// tidKey is the key that names the thread doing the operation: "tid",
// "src" for a POST, "par-tid" for FORK and JOIN.
func (r *record) tidKey() string {
	switch r.kw {
	case "POST":
		return "src"
	case "FORK", "JOIN":
		return "par-tid"
	}
	return "tid"
}

// tid is the thread doing the operation.
func (r *record) tid() int64 { return r.num(r.tidKey()) }

// hasTid reports whether the line names the thread doing it.
// ADD_IDLE_HANDLER and REMOVE_IDLE_HANDLER do not.
func (r *record) hasTid() bool { return r.has(r.tidKey()) }

// A spec says which fields a keyword's line must have: integers in ints,
// non-empty strings in strs. Other fields are optional.
type spec struct{ ints, strs []string }

func sp(ints, strs string) spec { return spec{strings.Fields(ints), strings.Fields(strs)} }

// specs lists the operation keywords this package maps, with their fields.
// The formats are those DroidRacer's abc.cpp writes.
var specs = map[string]spec{
	"START":                {},
	"THREADINIT":           sp("tid", ""),
	"THREADEXIT":           sp("tid", ""),
	"FORK":                 sp("par-tid child-tid", ""),
	"JOIN":                 sp("par-tid child-tid", ""),
	"ATTACH-Q":             sp("tid queue", ""),
	"LOOP":                 sp("tid queue", ""),
	"POST":                 sp("src msg delay", ""),
	"CALL":                 sp("tid msg", ""),
	"RET":                  sp("tid msg", ""),
	"ACCESS":               sp("tid accessId", ""),
	"LOCK":                 sp("tid", "lock-obj"),
	"UNLOCK":               sp("tid", "lock-obj"),
	"NOTIFY":               sp("tid notifiedTid", ""),
	"WAIT":                 sp("tid", ""),
	"NATIVE-ENTRY":         sp("tid", ""),
	"NATIVE-EXIT":          sp("tid", ""),
	"ENABLE-LIFECYCLE":     sp("tid id", "state"),
	"TRIGGER-LIFECYCLE":    sp("tid id", "state"),
	"INSTANCE-INTENT":      sp("tid instance intentId", ""),
	"ENABLE-EVENT":         sp("tid view event", ""),
	"TRIGGER-EVENT":        sp("tid view event", ""),
	"ENABLE-WINDOW-FOCUS":  sp("tid windowHash", ""),
	"TRIGGER-WINDOW-FOCUS": sp("tid windowHash", ""),
	"ADD_IDLE_HANDLER":     sp("idler queue", ""),
	"QUEUE_IDLE":           sp("tid idler queue", ""),
	"REMOVE_IDLE_HANDLER":  sp("idler queue", ""),
	"TRIGGER-BROADCAST":    sp("tid component intent onRecLater", "action state"),
	"REGISTER-RECEIVER":    sp("tid", "action"),
	"TRIGGER-RECEIVER":     sp("tid", "action"),
	"TRIGGER-SERVICE":      sp("tid id", "state"),
}

// The keywords of field access lines.
var accessKeywords = map[string]bool{"READ": true, "WRITE": true, "READ-STATIC": true, "WRITE-STATIC": true}

// lineKind is what a line of the trace part is.
type lineKind uint8

const (
	blankLine  lineKind = iota // empty, or white space only
	opLine                     // "<opId> KEYWORD ..."
	accessLine                 // "rwId:<n> READ|WRITE... ..."
	methodLine                 // "METHOD ENTRY|EXIT ...": DroidRacer's method trace
	otherLine                  // anything else (the log's title, stray output)
)

// classify tells what a line is without parsing its fields.
func classify(s string) lineKind {
	t := strings.TrimLeft(s, " \t")
	switch {
	case t == "" || strings.TrimSpace(t) == "":
		return blankLine
	case strings.HasPrefix(t, "rwId:"):
		return accessLine
	case strings.HasPrefix(t, "METHOD "):
		return methodLine
	case t[0] >= '0' && t[0] <= '9':
		return opLine
	}
	return otherLine
}

// parseLine parses an op or access line (see classify). Keywords this
// package does not know are returned with known false and their fields
// unchecked: they are reported, not fatal.
func parseLine(s string, line int) (record, error) {
	r := record{line: line, text: s}
	t := strings.TrimLeft(s, " \t")
	head, rest := cutSpace(t)
	if strings.HasPrefix(head, "rwId:") {
		r.access = true
		id, err := strconv.ParseInt(head[len("rwId:"):], 10, 64)
		if err != nil || id < 0 {
			return r, fmt.Errorf("access id %q is not a number", head)
		}
		r.id = id
	} else {
		id, err := strconv.ParseInt(head, 10, 64)
		if err != nil || id < 0 {
			return r, fmt.Errorf("operation id %q is not a number", head)
		}
		r.id = id
	}
	r.kw, rest = cutSpace(rest)
	if r.kw == "" {
		return r, fmt.Errorf("no keyword after id %s", head)
	}
	// "NATIVE-ENTRY tid:2thread-name:Binder Thread #1": the name is glued
	// to the tid and runs to the end of the line.
	if i := strings.Index(rest, "thread-name:"); i >= 0 {
		r.name = strings.TrimSpace(rest[i+len("thread-name:"):])
		rest = rest[:i]
	}
	for _, tok := range strings.Fields(rest) {
		k, v, ok := strings.Cut(tok, ":")
		if !ok {
			// A value with a space in it: glue the word back on.
			if n := len(r.fields); n > 0 {
				r.fields[n-1].val += " " + tok
				continue
			}
			return r, fmt.Errorf("%s: %q is not key:value", r.kw, tok)
		}
		if !r.has(k) {
			r.fields = append(r.fields, field{k, v})
		}
	}
	if r.access {
		r.known = accessKeywords[r.kw]
		if !r.known {
			return r, nil
		}
		return r, checkAccess(&r)
	}
	sc, ok := specs[r.kw]
	if !ok {
		return r, nil
	}
	r.known = true
	for _, k := range sc.ints {
		if !r.has(k) {
			return r, fmt.Errorf("%s: missing field %q", r.kw, k)
		}
		if _, err := strconv.ParseInt(r.str(k), 10, 64); err != nil {
			return r, fmt.Errorf("%s: field %q: %q is not an integer", r.kw, k, r.str(k))
		}
	}
	for _, k := range sc.strs {
		if !r.has(k) {
			return r, fmt.Errorf("%s: missing field %q", r.kw, k)
		}
		if r.str(k) == "" {
			return r, fmt.Errorf("%s: empty field %q", r.kw, k)
		}
	}
	return r, nil
}

// checkAccess checks the fields of an access line: a thread, and either an
// object's field, a static field or a database.
func checkAccess(r *record) error {
	what := fmt.Sprintf("access rwId:%d", r.id)
	if !r.has("tid") {
		return fmt.Errorf("%s: missing field \"tid\"", what)
	}
	if _, err := strconv.ParseInt(r.str("tid"), 10, 64); err != nil {
		return fmt.Errorf("%s: field \"tid\": %q is not an integer", what, r.str("tid"))
	}
	static := strings.HasSuffix(r.kw, "-STATIC")
	switch {
	case !static && r.has("database"):
		if r.str("database") == "" {
			return fmt.Errorf("%s: empty database path", what)
		}
		return nil
	case !static && !r.has("obj"):
		return fmt.Errorf("%s: missing field \"obj\" (or \"database\")", what)
	case !static && r.str("obj") == "":
		return fmt.Errorf("%s: empty field \"obj\"", what)
	}
	for _, k := range []string{"class", "field"} {
		if r.str(k) == "" {
			return fmt.Errorf("%s: missing field %q", what, k)
		}
	}
	return nil
}

// cutSpace splits s at its first run of spaces or tabs.
func cutSpace(s string) (head, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimLeft(s[i:], " \t")
}
