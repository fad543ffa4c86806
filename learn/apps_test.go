package learn

import (
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/shuffle/apps"
)

// TestAppPreconditions learns from recorded runs of every benchmark app
// and checks that the precondition each harmful race hinges on is learned:
// a condition of one of the race's handlers on the datum the race is about
// (MyTracks: onUpdateResults requires this.dataHub != null).
func TestAppPreconditions(t *testing.T) {
	runs, actions := 24, 300
	if testing.Short() {
		runs, actions = 12, 150
	}
	for _, app := range apps.All() {
		t.Run(app.Name, func(t *testing.T) {
			res := learnResult(t, recorded(t, app.Name, runs, actions), Options{})
			if res.Traces < runs/2 {
				t.Fatalf("only %d of %d runs are correct executions", res.Traces, runs)
			}
			for _, race := range app.Harmful {
				cs := raceConditions(res.Spec, race)
				if len(cs) == 0 {
					t.Errorf("%s / %s on %s: no precondition learned; the handlers have:\n%s",
						race.A, race.B, race.Data, handlerConditions(res.Spec, race.A, race.B))
					continue
				}
				t.Logf("%s / %s on %s: %s", race.A, race.B, race.Data, strings.Join(cs, "; "))
				if want := hingeForm[app.Name]; want != "" && !strings.Contains(strings.Join(cs, "\n"), want) {
					t.Errorf("%s / %s on %s: no condition of the form %q among\n%s", race.A, race.B, race.Data, want, strings.Join(cs, "\n"))
				}
			}
		})
	}
}

// hingeForm is, for the apps whose bug hinges on more than one datum being
// set, a piece of the condition that expresses it.
var hingeForm = map[string]string{
	// Each of language and country takes four values; the pair one of four.
	"firefox": `(Locale.country, Locale.language) in {("BR", "pt"), ("DE", "de"), ("FR", "fr"), ("US", "en")}`,
}

// raceConditions returns the conditions of the race's handlers on its
// datum: a name whose last field is the race's Data.
func raceConditions(sp *Spec, race apps.Race) []string {
	var out []string
	for _, name := range []string{race.A, race.B} {
		h := sp.Handler(name)
		if h == nil {
			continue
		}
		for _, c := range h.Conditions {
			if c.Disabled {
				continue
			}
			for _, v := range c.Vars {
				if fieldOf(v) == race.Data {
					out = append(out, c.Text())
					break
				}
			}
		}
	}
	return out
}

// fieldOf returns the last field of a symbolic name: "dataHub" for
// "this.dataHub", "items" for "S#1.items[2]".
func fieldOf(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	return name[strings.LastIndexByte(name, '.')+1:]
}

func handlerConditions(sp *Spec, names ...string) string {
	var b strings.Builder
	for _, n := range names {
		h := sp.Handler(n)
		if h == nil {
			b.WriteString("  " + n + ": never ran\n")
			continue
		}
		for _, c := range h.Conditions {
			b.WriteString("  " + c.Text() + "\n")
		}
	}
	return b.String()
}
