package invariants

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomSamples draws samples over a fixed set of data whose values are
// related often enough for many templates to be proposed, with noise,
// absent values and a user template or two.
func randomSamples(r *rand.Rand, n int) [][]Var {
	out := make([][]Var, n)
	mode := r.IntN(4)
	for i := range out {
		x := int64(r.IntN(6))
		var vs []Var
		add := func(name string, v Value, group int32) {
			if r.IntN(12) == 0 {
				return // absent in this sample
			}
			vs = append(vs, Var{Name: name, Val: v, Group: group, Deref: r.IntN(2) == 0})
		}
		add("a", IntValue(x), 1)
		add("b", IntValue(2*x+1), 1)
		add("c", IntValue(x*x), 1)
		add("d", IntValue(int64(r.IntN(3))<<4), 1)
		add("e", FloatValue(float64(x)/2+float64(r.IntN(2))), 1)
		add("f", IntValue(x|8), 1)
		add("g", IntValue(3-x), 1)
		// -x as an int, as a float, and for x == 0 as 0.0 or -0.0: equal
		// numbers of different kinds and signs must learn the same line
		// in any order.
		h := FloatValue(-float64(x))
		switch r.IntN(3) {
		case 0:
			h = IntValue(-x)
		case 1:
			h = FloatValue(0 - float64(x))
		}
		add("h", h, 1)
		if mode == 0 && r.IntN(50) == 0 {
			add("b", IntValue(99), 1) // noise: a rare outlier breaks some relations
		}
		p := RefValue(uint64(r.IntN(3) + 1))
		if r.IntN(20) == 0 {
			p = NullValue()
		}
		add("p", p, 2)
		add("q", p, 2)
		k := r.IntN(2 + mode%2)
		add("s", StringValue([]string{"on", "no", "ok"}[k]), 3)
		add("v", StringValue([]string{"ON", "NO", "OK"}[(k+r.IntN(2)*r.IntN(2))%3]), 3) // mostly s's pair
		add("t", BoolValue(x > 0), 4)
		add("u", BoolValue(true), 4)
		// Names must be distinct within a sample: keep the first.
		seen := map[string]bool{}
		vs = slices.DeleteFunc(vs, func(v Var) bool {
			if seen[v.Name] {
				return true
			}
			seen[v.Name] = true
			return false
		})
		r.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
		out[i] = vs
	}
	return out
}

func testCatalog(t testing.TB) *Catalog {
	t.Helper()
	var user []*UserTemplate
	for _, d := range []TemplateDecl{
		{Name: "even", Types: []string{"int"}, Expr: "x % 2 == 0"},
		{Name: "gap", Types: []string{"number"}, Expr: "y - x", Fitter: "bounds"},
		{Name: "sum", Types: []string{"int"}, Expr: "x + y", Fitter: "oneof", Symmetric: true},
		{Name: "len", Types: []string{"string"}, Expr: "len(x)", Fitter: "const"},
		{Name: "nz", Types: []string{"int"}, Expr: "x - 7", Fitter: "nonzero"},
	} {
		u, err := CompileTemplate(d)
		if err != nil {
			t.Fatal(err)
		}
		user = append(user, u)
	}
	cat, err := NewCatalog(user...)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func stateJSON(t testing.TB, l *Learner) string {
	t.Helper()
	b, err := json.Marshal(l.State())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func inferred(l *Learner) []string {
	var out []string
	for _, c := range l.Infer(Options{MinSupport: 1}) {
		out = append(out, fmt.Sprintf("%s support=%d chance=%g", c.Text(), c.Support, c.Chance))
	}
	return out
}

// TestMergeProperty: learning on a random split of the runs and merging
// gives exactly the state (and so the conditions) of learning on all runs,
// in any order — also after the parts went through their stored JSON form.
func TestMergeProperty(t *testing.T) {
	cat := testCatalog(t)
	rounds := 200
	if testing.Short() {
		rounds = 30
	}
	for seed := range rounds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		// A few runs of a few samples each, each run learned on its own.
		var runs []*Learner
		for range 1 + r.IntN(8) {
			run := NewLearner(cat)
			for _, s := range randomSamples(r, 1+r.IntN(30)) {
				run.Add(s)
			}
			runs = append(runs, run)
		}
		all := NewLearner(cat)
		for _, run := range runs {
			all.Merge(run)
		}
		parts := []*Learner{NewLearner(cat), NewLearner(cat), NewLearner(cat)}
		for _, i := range r.Perm(len(runs)) {
			parts[r.IntN(len(parts))].Merge(runs[i])
		}
		// Round-trip one part through JSON.
		var st State
		if err := json.Unmarshal([]byte(stateJSON(t, parts[1])), &st); err != nil {
			t.Fatal(err)
		}
		stored, err := NewLearnerFromState(cat, &st)
		if err != nil {
			t.Fatal(err)
		}
		merged := NewLearner(cat)
		merged.Merge(parts[2])
		merged.Merge(stored)
		merged.Merge(parts[0])
		if a, b := stateJSON(t, all), stateJSON(t, merged); a != b {
			t.Fatalf("seed %d: merged state differs at byte %d:\nall:    ...%s\nmerged: ...%s", seed, diffAt(a, b), around(a, diffAt(a, b)), around(b, diffAt(a, b)))
		}
		if a, b := inferred(all), inferred(merged); !slices.Equal(a, b) {
			t.Fatalf("seed %d: conditions differ\nall:    %q\nmerged: %q", seed, a, b)
		}
	}
}

func diffAt(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(s string, i int) string { return s[max(0, i-200):min(len(s), i+200)] }

// TestConditionsHoldOnTheirSamples: every condition a learner reports
// (implied ones too) evaluates to true on every sample it was learned
// from — the learner's fitting and the evaluator agree.
func TestConditionsHoldOnTheirSamples(t *testing.T) {
	cat := testCatalog(t)
	reported := map[string]bool{}
	seeds := 60
	if testing.Short() {
		seeds = 10
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		samples := randomSamples(r, 200)
		l := NewLearner(cat)
		for _, s := range samples {
			l.Add(s)
		}
		cs := l.Infer(Options{MinSupport: 1, Limit: 1, All: true})
		for _, c := range cs {
			reported[c.Template.Name] = true
			for _, s := range samples {
				vals := make([]Value, len(c.Vars))
				present := true
				for i, name := range c.Vars {
					j := slices.IndexFunc(s, func(v Var) bool { return v.Name == name })
					if j < 0 {
						present = false
						break
					}
					vals[i] = s[j].Val
				}
				if !present {
					continue
				}
				if holds, ok := c.Eval(vals); !holds || !ok {
					t.Fatalf("seed %d: %s (%s) is false on %v", seed, c.Text(), c.Template.Name, vals)
				}
			}
		}
	}
	// The generator must exercise most templates, or this test proves little.
	for _, name := range []string{"nonnull", "const", "oneof", "range", "lower", "upper", "eq", "lt", "le",
		"linear", "square", "subset", "disjoint", "even", "gap", "sum", "len"} {
		if !reported[name] {
			t.Errorf("template %s was never reported", name)
		}
	}
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 3)) }

// TestPairStateOrder: a pair's state is the same whatever the order of
// its samples, also for equal numbers that Compare tells apart (0.0 and
// -0.0, 1 and 1.0) at one x.
func TestPairStateOrder(t *testing.T) {
	tests := [][]Point{
		{{IntValue(0), FloatValue(0)}, {IntValue(0), FloatValue(math.Copysign(0, -1))}, {IntValue(1), FloatValue(-1)}},
		{{IntValue(2), IntValue(1)}, {IntValue(2), FloatValue(1)}, {IntValue(3), IntValue(2)}},
		{{FloatValue(0), IntValue(5)}, {FloatValue(0), IntValue(6)}, {FloatValue(math.Copysign(0, -1)), IntValue(5)}},
		{{IntValue(0), IntValue(0)}, {IntValue(0), IntValue(1)}, {IntValue(1), IntValue(2)}},
	}
	for _, pts := range tests {
		var want string
		for i, perm := range permutations(len(pts)) {
			var p PairState
			for _, j := range perm {
				p.Add(pts[j].X, pts[j].Y)
			}
			b, err := json.Marshal(&p)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				want = string(b)
			} else if string(b) != want {
				t.Errorf("%v in the order %v: %s, want %s (the first order's)", pts, perm, b, want)
			}
		}
	}
}

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			out = append(out, slices.Insert(slices.Clone(p), i, n-1))
		}
	}
	return out
}
