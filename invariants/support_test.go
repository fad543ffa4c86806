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
func slowSupport(samples [][]Var, least int64) (data map[string]bool, pairs map[[2]string]bool) {
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
	return data, pairs
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
			data, pairs := slowSupport(all, min)
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
			if got, _ := s.Pairs(); got != int64(len(pairs)) {
				t.Fatalf("seed %d, min %d: %d pairs supported, want %d", seed, min, got, len(pairs))
			}
		}
	}
}

// TestRestrictProperty: learners restricted to what the samples support
// infer the same conditions as learners of everything, and their state
// is that of everything without the data and pairs met too rarely (so
// it cannot pass by learning nothing, or everything).
func TestRestrictProperty(t *testing.T) {
	cat := testCatalog(t)
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	dropped := 0
	for seed := range rounds {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
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
			want := filterState(all.State(), s)
			dropped += len(all.State().Pairs) - len(want.Pairs)
			if a, b := jsonOf(t, want), jsonOf(t, restricted.State()); a != b {
				t.Fatalf("seed %d, min %d: restricted state differs at byte %d:\nwant: ...%s\ngot:  ...%s", seed, min, diffAt(a, b), around(a, diffAt(a, b)), around(b, diffAt(a, b)))
			}
		}
	}
	if dropped == 0 {
		t.Fatal("no pair was ever left out: the samples do not test Restrict")
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
func filterState(st *State, s *Supported) *State {
	out := &State{Samples: st.Samples, Vars: map[string]*VarState{}}
	for name, vs := range st.Vars {
		if s.id(name) >= 0 {
			out.Vars[name] = vs
		}
	}
	for _, p := range st.Pairs {
		if s.pair(s.id(p.X), s.id(p.Y)) {
			out.Pairs = append(out.Pairs, p)
		}
	}
	for g, gs := range st.Guards {
		if s.id(g) >= 0 {
			if out.Guards == nil {
				out.Guards = map[string]*State{}
			}
			out.Guards[g] = filterState(gs, s)
		}
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
