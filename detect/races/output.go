package races

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/internal/jsonout"
)

var errFinished = errors.New("races: Finish called twice")

// Merged is a race group seen across several traces: the groups of the
// same kind, location and handlers of every trace.
type Merged struct {
	Kind      Kind
	Location  string
	Handlers  [2]string
	Traces    []string // the traces it occurs in, in the order given
	Races     int
	Uncovered int
	InThread  int
}

// Merge merges the groups of several reports: groups with uncovered
// races first, then those seen in more traces, then with more races.
func Merge(reports []*Report) []*Merged {
	type key struct {
		kind     Kind
		loc      string
		handlers [2]string
	}
	byKey := make(map[key]*Merged)
	var out []*Merged
	for _, rep := range reports {
		for _, g := range rep.Groups {
			k := key{g.Kind, g.Location, g.Handlers}
			m := byKey[k]
			if m == nil {
				m = &Merged{Kind: g.Kind, Location: g.Location, Handlers: g.Handlers}
				byKey[k] = m
				out = append(out, m)
			}
			if len(m.Traces) == 0 || m.Traces[len(m.Traces)-1] != rep.Trace {
				m.Traces = append(m.Traces, rep.Trace)
			}
			m.Races += g.Count
			m.Uncovered += g.Uncovered()
			m.InThread += g.InThread
		}
	}
	slices.SortFunc(out, func(a, b *Merged) int {
		ua, ub := a.Uncovered > 0, b.Uncovered > 0
		if ua != ub {
			if ua {
				return -1
			}
			return 1
		}
		return cmp.Or(kindRank(a.Kind)-kindRank(b.Kind),
			cmp.Compare(len(b.Traces), len(a.Traces)),
			cmp.Compare(b.Races, a.Races),
			cmp.Compare(a.Location, b.Location),
			cmp.Compare(a.Handlers[0], b.Handlers[0]),
			cmp.Compare(a.Handlers[1], b.Handlers[1]))
	})
	return out
}

// kindRank is the order kinds are reported in: use-free races first.
func kindRank(k Kind) int {
	if k == UseFree {
		return 0
	}
	return 1
}

// WriteText prints reports for people: per trace a summary and the race
// groups, and, for several traces, the groups merged across them.
func WriteText(w io.Writer, reports []*Report) error {
	bw := bufio.NewWriter(w)
	for i, rep := range reports {
		if i > 0 {
			bw.WriteString("\n")
		}
		rep.writeText(bw)
	}
	if len(reports) > 1 {
		writeMergedText(bw, reports)
	}
	return bw.Flush()
}

func (rep *Report) writeText(w *bufio.Writer) {
	window := "exact (no time window)"
	if rep.Window > 0 {
		window = "time window " + rep.Window.String()
	}
	all := ""
	if rep.All {
		all = ", every racing pair"
	}
	fmt.Fprintf(w, "trace %s: %d ops, %s%s\n", rep.Trace, rep.Ops, window, all)
	for _, ks := range rep.Summary.Kinds {
		fmt.Fprintf(w, "  %s races: %s\n", ks.Kind, ks.text())
	}
	for _, rc := range rep.Summary.Harmless {
		fmt.Fprintf(w, "  harmless rule at line %d (%s): %s\n", rc.Line, rc.Rule, plural(rc.Races, "race"))
	}
	for _, g := range rep.Groups {
		w.WriteString("\n")
		g.writeText(w)
	}
}

func (ks *KindSummary) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d found", ks.Found)
	if ks.Kind == UseFree {
		fmt.Fprintf(&b, ", %d dropped by if-guard, %d by intra-event allocation", ks.IfGuard, ks.IntraAlloc)
	}
	if ks.Harmless > 0 {
		fmt.Fprintf(&b, ", %d harmless", ks.Harmless)
	}
	fmt.Fprintf(&b, " → %s in %s (%d in-thread); ", plural(ks.Races, "race"), plural(ks.Groups, "group"), ks.InThread)
	if ks.ListedGroups < ks.Groups && ks.Listed > 0 {
		fmt.Fprintf(&b, "the first %s listed, with %s, %d of them covered", plural(ks.ListedGroups, "group"), plural(ks.Listed, "race"), ks.Covered)
	} else {
		fmt.Fprintf(&b, "%d listed, %d of them covered", ks.Listed, ks.Covered)
	}
	return b.String()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func (g *Group) writeText(w *bufio.Writer) {
	fmt.Fprintf(w, "%s %s race on %s between %s and %s: %s (%d in-thread)",
		g.ID, g.Kind, g.Location, g.Handlers[0], g.Handlers[1], plural(g.Count, "race"), g.InThread)
	if len(g.Races) < g.Count {
		fmt.Fprintf(w, ", the first %d listed", len(g.Races))
	}
	fmt.Fprintf(w, ", %d uncovered\n", g.Uncovered())
	for _, r := range g.Races {
		where := "between threads"
		if r.InThread {
			where = "in-thread, on " + r.First.thread()
		}
		fmt.Fprintf(w, "  %s %s", r.ID, where)
		if r.CoveredBy != nil {
			fmt.Fprintf(w, ", covered by %s", r.CoveredBy.ID)
		}
		w.WriteString("\n")
		r.First.writeText(w)
		r.Second.writeText(w)
	}
}

// thread names the access's thread, with its name if it differs from its id.
func (a *Access) thread() string {
	if a.ThreadName != "" && a.ThreadName != a.Thread {
		return a.Thread + " (" + a.ThreadName + ")"
	}
	return a.Thread
}

func (a *Access) writeText(w *bufio.Writer) {
	fmt.Fprintf(w, "    %-5s line %d: ", a.Op, a.Line)
	if a.Event != "" {
		fmt.Fprintf(w, "event %s", a.Event)
		if a.Handler != "" {
			fmt.Fprintf(w, " in %s", a.Handler)
		}
		fmt.Fprintf(w, " on %s", a.thread())
	} else {
		fmt.Fprintf(w, "thread %s", a.thread())
		if a.Handler != "" {
			fmt.Fprintf(w, " in %s", a.Handler)
		}
	}
	if a.HasTS {
		fmt.Fprintf(w, ", at %s ms", strconv.FormatFloat(a.TS, 'f', -1, 64))
	}
	if a.Src != "" {
		fmt.Fprintf(w, ", %s", a.Src)
	}
	if a.Value != "" {
		fmt.Fprintf(w, ", value %s", a.Value)
	}
	if len(a.Locks) > 0 {
		fmt.Fprintf(w, ", holding %s", strings.Join(a.Locks, " "))
	}
	w.WriteString("\n")
}

func writeMergedText(w *bufio.Writer, reports []*Report) {
	merged := Merge(reports)
	fmt.Fprintf(w, "\nmerged over %d traces: %s\n", len(reports), plural(len(merged), "group"))
	for _, m := range merged {
		fmt.Fprintf(w, "  %s race on %s between %s and %s: %s (%d in-thread) in %s (%s), %d listed uncovered\n",
			m.Kind, m.Location, m.Handlers[0], m.Handlers[1], plural(m.Races, "race"), m.InThread,
			plural(len(m.Traces), "trace"), strings.Join(m.Traces, ", "), m.Uncovered)
	}
}

// JSONVersion is the version of the JSON form of reports (docs/json.md).
const JSONVersion = 1

// WriteJSON prints reports for machines, as one JSON document whose schema
// docs/races.md describes.
func WriteJSON(w io.Writer, reports []*Report) error {
	doc := jsonDoc{Version: JSONVersion, Traces: make([]jsonReport, 0, len(reports))}
	for _, rep := range reports {
		doc.Traces = append(doc.Traces, rep.json())
	}
	if len(reports) > 1 {
		doc.Merged = []jsonMerged{}
		for _, m := range Merge(reports) {
			doc.Merged = append(doc.Merged, jsonMerged{
				Kind: m.Kind.String(), Location: m.Location, Handlers: m.Handlers[:], Traces: m.Traces,
				Races: m.Races, Uncovered: m.Uncovered, InThread: m.InThread,
			})
		}
	}
	return jsonout.Write(w, doc)
}

type jsonDoc struct {
	Version int          `json:"licorice_races"`
	Traces  []jsonReport `json:"traces"`
	Merged  []jsonMerged `json:"merged,omitempty"`
}

type jsonReport struct {
	Trace    string      `json:"trace"`
	Ops      int64       `json:"ops"`
	WindowMS int64       `json:"window_ms"`
	All      bool        `json:"all"`
	Summary  jsonSummary `json:"summary"`
	Groups   []jsonGroup `json:"groups"`
}

type jsonSummary struct {
	Kinds    []jsonKind `json:"kinds"`
	Harmless []jsonRule `json:"harmless_rules"`
}

type jsonKind struct {
	Kind       string `json:"kind"`
	Found      int    `json:"found"`
	IfGuard    *int   `json:"if_guard,omitempty"`
	IntraAlloc *int   `json:"intra_event_allocation,omitempty"`
	Harmless   int    `json:"harmless"`
	Races      int    `json:"races"`
	InThread   int    `json:"in_thread"`
	Groups     int    `json:"groups"`
	ListedG    int    `json:"listed_groups"`
	Listed     int    `json:"listed"`
	Covered    int    `json:"covered"`
}

type jsonRule struct {
	Line  int    `json:"line"`
	Rule  string `json:"rule"`
	Races int    `json:"races"`
}

type jsonGroup struct {
	ID        string     `json:"id"`
	Kind      string     `json:"kind"`
	Location  string     `json:"location"`
	Handlers  []string   `json:"handlers"`
	Count     int        `json:"count"`
	InThread  int        `json:"in_thread"`
	Listed    int        `json:"listed"`
	Uncovered int        `json:"uncovered"`
	Races     []jsonRace `json:"races"`
}

type jsonRace struct {
	ID        string       `json:"id"`
	Kind      string       `json:"kind"`
	Location  jsonLocation `json:"location"`
	InThread  bool         `json:"in_thread"`
	Covered   bool         `json:"covered"`
	CoveredBy string       `json:"covered_by,omitempty"`
	First     jsonAccess   `json:"first"`
	Second    jsonAccess   `json:"second"`
}

type jsonLocation struct {
	Name   string `json:"name"`
	Object string `json:"object,omitempty"`
	Class  string `json:"class,omitempty"`
	Field  string `json:"field"`
	Site   string `json:"site,omitempty"`
	Type   string `json:"type,omitempty"`
}

type jsonAccess struct {
	Access     string          `json:"access"`
	Line       int             `json:"line"`
	Task       string          `json:"task"`
	Event      string          `json:"event,omitempty"`
	Handler    string          `json:"handler,omitempty"`
	Context    string          `json:"context"`
	Thread     string          `json:"thread"`
	ThreadName string          `json:"thread_name,omitempty"`
	TS         *float64        `json:"ts,omitempty"`
	Src        string          `json:"src,omitempty"`
	Value      json.RawMessage `json:"value,omitempty"`
	Locks      []string        `json:"locks,omitempty"`
}

type jsonMerged struct {
	Kind      string   `json:"kind"`
	Location  string   `json:"location"`
	Handlers  []string `json:"handlers"`
	Traces    []string `json:"traces"`
	Races     int      `json:"races"`
	Uncovered int      `json:"uncovered"`
	InThread  int      `json:"in_thread"`
}

func (rep *Report) json() jsonReport {
	jr := jsonReport{
		Trace: rep.Trace, Ops: rep.Ops, WindowMS: rep.Window.Milliseconds(), All: rep.All,
		Summary: jsonSummary{Kinds: []jsonKind{}, Harmless: []jsonRule{}},
		Groups:  []jsonGroup{},
	}
	for _, ks := range rep.Summary.Kinds {
		jk := jsonKind{
			Kind: ks.Kind.String(), Found: ks.Found, Harmless: ks.Harmless, Races: ks.Races,
			InThread: ks.InThread, Groups: ks.Groups, ListedG: ks.ListedGroups, Listed: ks.Listed, Covered: ks.Covered,
		}
		if ks.Kind == UseFree {
			jk.IfGuard, jk.IntraAlloc = &ks.IfGuard, &ks.IntraAlloc
		}
		jr.Summary.Kinds = append(jr.Summary.Kinds, jk)
	}
	for _, rc := range rep.Summary.Harmless {
		jr.Summary.Harmless = append(jr.Summary.Harmless, jsonRule(rc))
	}
	for _, g := range rep.Groups {
		jg := jsonGroup{
			ID: g.ID, Kind: g.Kind.String(), Location: g.Location, Handlers: g.Handlers[:],
			Count: g.Count, InThread: g.InThread, Listed: len(g.Races), Uncovered: g.Uncovered(),
		}
		for _, r := range g.Races {
			jg.Races = append(jg.Races, r.json())
		}
		jr.Groups = append(jr.Groups, jg)
	}
	return jr
}

func (r *Race) json() jsonRace {
	l := &r.Location
	jl := jsonLocation{Name: l.Name, Field: l.Field, Site: l.Site, Type: l.Type}
	if l.Static {
		jl.Class = l.Object
	} else {
		jl.Object = l.Object
	}
	jr := jsonRace{
		ID: r.ID, Kind: r.Kind.String(), Location: jl, InThread: r.InThread, Covered: r.Covered,
		First: r.First.json(), Second: r.Second.json(),
	}
	if r.CoveredBy != nil {
		jr.CoveredBy = r.CoveredBy.ID
	}
	return jr
}

func (a *Access) json() jsonAccess {
	ja := jsonAccess{
		Access: a.Op, Line: a.Line, Task: a.Task, Event: a.Event, Handler: a.Handler, Context: a.Context(),
		Thread: a.Thread, ThreadName: a.ThreadName, Src: a.Src, Locks: a.Locks,
	}
	if a.HasTS {
		ts := a.TS
		ja.TS = &ts
	}
	if a.Value != "" {
		ja.Value = json.RawMessage(a.Value)
	}
	return ja
}

// quoteJSON returns s as a JSON string.
func quoteJSON(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\'
	}
	if plain {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
