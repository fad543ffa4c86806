package invariants

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// withRareData adds to samples data met in few of them (of 40 names, in
// the types of randomSamples' numbers and references), some absent, some
// flags (guards), and now and then a type of more data than pairs are
// formed from.
func withRareData(r *rand.Rand, samples [][]Var) [][]Var {
	for i, vs := range samples {
		for range r.IntN(8) {
			name := fmt.Sprintf("r%02d", r.IntN(40))
			if slices.ContainsFunc(vs, func(v Var) bool { return v.Name == name }) {
				continue
			}
			v := Var{Name: name, Val: IntValue(int64(r.IntN(4))), Group: int32(1 + r.IntN(2))}
			switch r.IntN(4) {
			case 0:
				v.Val = Value{} // absent
			case 1:
				v.Val, v.Flag, v.Tested = BoolValue(r.IntN(4) != 0), true, true
			}
			vs = append(vs, v)
		}
		// Pairs whose tuples are too many for a one-of set, whose
		// orderings all occur but one (never equal), or whose every
		// relation but the line breaks: spent only if a test forgets one.
		w := int64(r.IntN(41) - 20)
		vs = append(vs,
			Var{Name: "wa", Val: IntValue(int64(r.IntN(2000) - 1000)), Group: 1},
			Var{Name: "wb", Val: IntValue(int64(r.IntN(1000)*2 + 1 - 1000)), Group: 1},
			Var{Name: "la", Val: IntValue(w), Group: 1},
			Var{Name: "lb", Val: IntValue(-w), Group: 1})
		if r.IntN(30) == 0 {
			for k := range MaxPairGroup + 1 {
				vs = append(vs, Var{Name: fmt.Sprintf("w%02d", k), Val: IntValue(int64(k)), Group: 9})
			}
		}
		samples[i] = vs
	}
	return samples
}

// slowSupport counts the samples of each datum and pair by Learner.Add's
// rule, written out plainly.
func slowSupport(samples [][]Var, least int64) (data map[string]bool, pairs map[[2]string]bool, met int) {
	n := map[string]int64{}
	pn := map[[2]string]int64{}
	for _, vs := range samples {
		byGroup := map[int32][]string{}
		for _, v := range vs {
			if v.Val.Kind() != Absent {
				n[v.Name]++
				byGroup[v.Group] = append(byGroup[v.Group], v.Name)
			}
		}
		for _, names := range byGroup {
			if len(names) > MaxPairGroup {
				continue
			}
			for i, x := range names {
				for _, y := range names[i+1:] {
					pn[[2]string{min(x, y), max(x, y)}]++
				}
			}
		}
	}
	data, pairs = map[string]bool{}, map[[2]string]bool{}
	for name, c := range n {
		if c >= least {
			data[name] = true
		}
	}
	for p, c := range pn {
		if c >= least && data[p[0]] && data[p[1]] {
			pairs[p] = true
		}
	}
	return data, pairs, len(pn)
}

// TestSupportCounter: the data and pairs a counter finds supported, from
// samples counted in runs and merged, are those counted plainly.
func TestSupportCounter(t *testing.T) {
	for seed := range 100 {
		r := newRand(uint64(seed))
		var all [][]Var
		total := NewSupportCounter()
		for range 1 + r.IntN(5) {
			run := withRareData(r, randomSamples(r, 1+r.IntN(40)))
			all = append(all, run...)
			c := NewSupportCounter()
			for _, s := range run {
				c.Add(s)
			}
			total.Merge(c)
		}
		for _, min := range []int64{1, 2, 5} {
			s := total.Supported(min)
			data, pairs, met := slowSupport(all, min)
			var gotData []string
			for name := range s.ids {
				gotData = append(gotData, name)
			}
			var wantData []string
			for name := range data {
				wantData = append(wantData, name)
			}
			slices.Sort(gotData)
			slices.Sort(wantData)
			if !slices.Equal(gotData, wantData) {
				t.Fatalf("seed %d, min %d: supported data %q, want %q", seed, min, gotData, wantData)
			}
			for x := range data {
				for y := range data {
					if x < y && s.pair(s.id(x), s.id(y)) != pairs[[2]string{x, y}] {
						t.Fatalf("seed %d, min %d: pair (%s, %s) supported %v, want %v", seed, min, x, y, !pairs[[2]string{x, y}], pairs[[2]string{x, y}])
					}
				}
			}
			if got, gotMet := s.Pairs(); got != int64(len(pairs)) || gotMet != int64(met) {
				t.Fatalf("seed %d, min %d: %d pairs supported of %d met, want %d of %d", seed, min, got, gotMet, len(pairs), met)
			}
		}
	}
}

// TestRestrictProperty: learners restricted to what the samples support
// infer the same conditions as learners of everything, and their state
// is that of everything without the data and pairs met too rarely (so
// it cannot pass by learning nothing, or everything).
func TestRestrictProperty(t *testing.T) {
	noFitter, err := CompileTemplate(TemplateDecl{Name: "close", Types: []string{"int"}, Expr: "x - y < 1500 && y - x < 1500"})
	if err != nil {
		t.Fatal(err)
	}
	withNoFitter, err := NewCatalog(noFitter)
	if err != nil {
		t.Fatal(err)
	}
	cats := []*Catalog{Builtins(), withNoFitter, testCatalog(t)}
	rounds := 30
	if testing.Short() {
		rounds = 9
	}
	dropped, spent := 0, 0
	for seed := range rounds {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		cat := cats[seed%len(cats)]
		var runs [][][]Var
		count := NewSupportCounter()
		for range 1 + r.IntN(6) {
			run := withRareData(r, randomSamples(r, 1+r.IntN(30)))
			runs = append(runs, run)
			c := NewSupportCounter()
			for _, s := range run {
				c.Add(s)
			}
			count.Merge(c)
		}
		for _, min := range []int64{2, 5} {
			s := count.Supported(min)
			all, restricted := NewLearner(cat), NewLearner(cat)
			restricted.Restrict(s)
			for _, run := range runs {
				a, b := NewLearner(cat), NewLearner(cat)
				b.Restrict(s)
				for _, sample := range run {
					a.Add(sample)
					b.Add(sample)
				}
				all.Merge(a)
				restricted.Merge(b)
			}
			opts := Options{MinSupport: min}
			if a, b := conditionTexts(all, opts), conditionTexts(restricted, opts); !slices.Equal(a, b) {
				t.Fatalf("seed %d, min %d: conditions differ\nall:        %q\nrestricted: %q", seed, min, a, b)
			}
			want := filterState(all, all.State(), s)
			dropped += len(all.State().Pairs) - len(want.Pairs)
			for _, p := range all.State().Pairs {
				if spentEntry(all, p) {
					spent++
				}
			}
			checkSpent(t, all, s)
			if a, b := jsonOf(t, want), jsonOf(t, restricted.State()); a != b {
				t.Fatalf("seed %d, min %d: restricted state differs at byte %d:\nwant: ...%s\ngot:  ...%s", seed, min, diffAt(a, b), around(a, diffAt(a, b)), around(b, diffAt(a, b)))
			}
		}
	}
	if dropped == 0 || spent == 0 {
		t.Fatalf("%d pairs left out, %d spent: the samples do not test Restrict", dropped, spent)
	}
}

// conditionTexts is inferred with options.
func conditionTexts(l *Learner, opts Options) []string {
	var out []string
	for _, c := range l.Infer(opts) {
		out = append(out, fmt.Sprintf("%s support=%d chance=%g", c.Text(), c.Support, c.Chance))
	}
	return out
}

// filterState is st without the data, pairs and guards s does not hold.
func filterState(l *Learner, st *State, s *Supported) *State {
	out := &State{Samples: st.Samples, Vars: map[string]*VarState{}}
	for name, vs := range st.Vars {
		if s.id(name) >= 0 {
			c := *vs
			c.forgetValues()
			out.Vars[name] = &c
		}
	}
	for _, p := range st.Pairs {
		if s.pair(s.id(p.X), s.id(p.Y)) && !spentEntry(l, p) {
			out.Pairs = append(out.Pairs, p)
		}
	}
	for g, gs := range st.Guards {
		if s.id(g) >= 0 {
			if out.Guards == nil {
				out.Guards = map[string]*State{}
			}
			out.Guards[g] = filterState(l.guards[g], gs, s)
		}
	}
	return out
}

// checkSpent checks, against Infer, that a pair the restricted learner
// drops as spent yields no condition at all from all's state (at any
// chance and support, implied ones too), nor in any of its guards'.
func checkSpent(t *testing.T, all *Learner, s *Supported) {
	t.Helper()
	proposed := map[[2]string]bool{}
	for _, c := range all.Infer(Options{Limit: 1, MinSupport: 1, All: true}) {
		if len(c.Vars) == 2 && c.Guard == "" {
			proposed[[2]string{min(c.Vars[0], c.Vars[1]), max(c.Vars[0], c.Vars[1])}] = true
		}
	}
	for _, p := range all.State().Pairs {
		if spentEntry(all, p) && proposed[[2]string{p.X, p.Y}] {
			t.Fatalf("pair (%s, %s) is spent, but conditions are proposed on it: %+v", p.X, p.Y, *p.State())
		}
	}
	for _, g := range all.guards {
		checkSpent(t, g, s)
	}
}

// spentEntry reports whether l would spend the pair of a stored entry (a
// pair met once included).
func spentEntry(l *Learner, p *PairEntry) bool {
	r := p.pairRec
	r.state = r.State()
	return l.pairSpent(&r)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestManyValuesStored: a stored summary may say it saw many values
// instead of listing the smallest, if it has had as many, and then
// proposes no constant or one-of set.
func TestManyValuesStored(t *testing.T) {
	const bounds = `"min":1,"max":9,"min_n":1,"max_n":1,"min_runs":1,"max_runs":1`
	tests := []struct {
		vars string
		ok   bool
	}{
		{`{"x":{"n":5,"int":5,` + bounds + `,"many":true}}`, true},
		{`{"x":{"n":5,"int":5,` + bounds + `,"small":[1,2,3,4]}}`, true},
		{`{"x":{"n":5,"int":5,` + bounds + `,"small":[1],"many":true}}`, false},
		{`{"x":{"n":3,"int":3,` + bounds + `,"many":true}}`, false},
		{`{"x":{"n":5,"null":5,"many":true}}`, false},
	}
	for _, tc := range tests {
		var st State
		if err := json.Unmarshal([]byte(`{"samples":5,"vars":`+tc.vars+`}`), &st); err != nil {
			t.Fatal(err)
		}
		l, err := NewLearnerFromState(Builtins(), &st)
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.vars, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		for _, c := range l.Infer(Options{MinSupport: 1, Limit: 1}) {
			if name := c.Template.Name; name == "const" || name == "oneof" {
				t.Errorf("%s: %s proposed", tc.vars, c.Text())
			}
		}
	}
}
