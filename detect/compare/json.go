package compare

import (
	"io"

	"github.com/licorice-dev/licorice/internal/jsonout"

	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/traces/droidracer"
)

// JSONVersion is the version of the JSON form WriteJSON prints; a new
// version means a change that breaks readers (fields may be added without
// one).
const JSONVersion = 1

type jsonPoint struct {
	Line  int    `json:"line"`
	Op    string `json:"op"`
	Task  string `json:"task,omitempty"`
	Event string `json:"event,omitempty"`
	What  string `json:"what"`
}

type jsonStep struct {
	Rule    string     `json:"rule"`
	From    jsonPoint  `json:"from"`
	To      jsonPoint  `json:"to"`
	Why     string     `json:"why"`
	Premise []jsonStep `json:"premise,omitempty"`
}

type jsonAccess struct {
	RW     int64  `json:"rw"`
	Op     string `json:"op"`
	Object string `json:"object"`
	Line   int    `json:"line"`
	Task   string `json:"task"`
	Event  string `json:"event,omitempty"`
	Thread string `json:"thread"`
}

type jsonConcurrency struct {
	Events  [2]string `json:"events"`
	Reasons []string  `json:"reasons"`
}

type jsonPair struct {
	First       jsonAccess       `json:"first"`
	Second      jsonAccess       `json:"second"`
	Order       string           `json:"order"`
	Locks       []string         `json:"locks,omitempty"`
	Chain       []jsonStep       `json:"chain,omitempty"`
	Concurrency *jsonConcurrency `json:"concurrency,omitempty"`
}

type jsonWitness struct {
	Line       int      `json:"line"`
	Categories []string `json:"categories"`
	Reason     string   `json:"reason"`
	jsonPair
}

type jsonLocation struct {
	Name       string        `json:"name"`
	Object     string        `json:"object"`
	Field      string        `json:"field"`
	Static     bool          `json:"static,omitempty"`
	Class      string        `json:"class,omitempty"`
	Verdict    string        `json:"verdict"`
	Reason     string        `json:"reason"`
	Categories []string      `json:"categories"`
	Witnesses  []jsonWitness `json:"witnesses"`
	Races      int           `json:"races"`
	Example    *jsonPair     `json:"example,omitempty"`
	RuleChain  []jsonStep    `json:"rule_chain,omitempty"`
}

type jsonCounts struct {
	Verdict   string `json:"verdict"`
	Reason    string `json:"reason"`
	Locations int    `json:"locations"`
	Witnesses int    `json:"witnesses"`
}

// WriteJSON prints the comparison as one JSON document (docs/json.md
// gives its schema).
func (c *Comparison) WriteJSON(w io.Writer) error {
	doc := struct {
		Version   int            `json:"licorice_compare"`
		Tool      string         `json:"tool"`
		Log       string         `json:"log"`
		App       string         `json:"app,omitempty"`
		Lifecycle bool           `json:"lifecycle"`
		Ops       int            `json:"ops"`
		Witnesses int            `json:"witnesses"`
		Races     int            `json:"races"`
		Unplaced  []int          `json:"unplaced,omitempty"`
		Unread    int            `json:"unreadable_report_lines,omitempty"`
		Counts    []jsonCounts   `json:"counts"`
		Locations []jsonLocation `json:"locations"`
	}{Version: JSONVersion, Tool: "droidracer", Log: c.Log, App: c.App, Lifecycle: c.Options.Lifecycle,
		Ops: c.Ops, Witnesses: c.Witnesses, Races: c.Races, Unplaced: c.Unplaced, Unread: c.Unreadable,
		Counts: []jsonCounts{}, Locations: []jsonLocation{}}
	for _, n := range c.Counts() {
		doc.Counts = append(doc.Counts, jsonCounts{Verdict: n.Verdict.String(), Reason: n.Reason.String(), Locations: n.Locations, Witnesses: n.Witnesses})
	}
	for _, loc := range c.Locations {
		jl := jsonLocation{
			Name: loc.Key.String(), Object: loc.Key.Object, Field: loc.Key.Field, Static: loc.Key.Static, Class: loc.Class,
			Verdict: loc.Verdict.String(), Reason: loc.Reason.String(), Categories: categoryNames(loc.Categories),
			Witnesses: []jsonWitness{}, Races: loc.Races, RuleChain: jsonChain(loc.RuleChain),
		}
		for _, wi := range loc.Witnesses {
			jl.Witnesses = append(jl.Witnesses, jsonWitness{Line: wi.Line, Categories: categoryNames(wi.Categories), Reason: wi.Reason.String(), jsonPair: jsonPairOf(&wi.Pair)})
		}
		if loc.Example != nil {
			p := jsonPairOf(loc.Example)
			jl.Example = &p
		}
		doc.Locations = append(doc.Locations, jl)
	}
	return jsonout.Write(w, doc)
}

func jsonPairOf(p *Pair) jsonPair {
	jp := jsonPair{First: jsonAccessOf(&p.First), Second: jsonAccessOf(&p.Second), Order: p.Order.String(), Locks: p.Locks, Chain: jsonChain(p.Chain)}
	if c := p.Concurrency; c != nil {
		jp.Concurrency = &jsonConcurrency{Events: [2]string{c.First, c.Second}, Reasons: c.Reasons}
	}
	return jp
}

func jsonAccessOf(a *Access) jsonAccess {
	return jsonAccess{RW: a.RW, Op: a.Op, Object: a.Object, Line: a.Line, Task: a.Task, Event: a.Event, Thread: a.Thread}
}

func jsonChain(steps []Step) []jsonStep {
	var out []jsonStep
	for _, s := range steps {
		out = append(out, jsonStep{Rule: s.Rule.String(), From: jsonPointOf(s.From), To: jsonPointOf(s.To), Why: s.Why, Premise: jsonChain(s.Premise)})
	}
	return out
}

func jsonPointOf(p races.Point) jsonPoint {
	return jsonPoint{Line: p.Line, Op: p.Op, Task: p.Task, Event: p.Event, What: p.What}
}

func categoryNames(ks []droidracer.CategoryKind) []string {
	out := []string{}
	for _, k := range ks {
		out = append(out, k.String())
	}
	return out
}
