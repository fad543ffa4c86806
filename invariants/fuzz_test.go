package invariants

import (
	"encoding/json"
	"testing"
	"time"
)

func FuzzParseTemplateFile(f *testing.F) {
	f.Add([]byte(`{"templates": [{"name": "even", "types": ["int"], "expr": "x % 2 == 0"}]}`))
	f.Add([]byte(`{"licorice_templates": 1, "templates": [{"name": "g", "types": ["number"], "expr": "y - x", "fitter": "bounds", "symmetric": true}]}`))
	f.Add([]byte(`{"templates": [{"name": "s", "types": ["string"], "expr": "x == \"\u00e9\" &&"}]}`))
	f.Add([]byte("{\"templates\": [\n{\"name\": \"v\", \"types\": [\"int\"], \"expr\": \"x < 0\"},\n{\"name\": \"v\"}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		us, err := ParseTemplateFile("f.json", data)
		if err != nil {
			fe, ok := err.(FileErrors)
			if !ok || len(fe) == 0 {
				t.Fatalf("error is not FileErrors: %v", err)
			}
			for _, e := range fe {
				if e.Line < 1 || e.Col < 1 {
					t.Fatalf("bad position: %v", e)
				}
			}
			return
		}
		if _, err := NewCatalog(us...); err != nil {
			t.Fatalf("parsed templates do not make a catalog: %v", err)
		}
	})
}

func FuzzValueJSON(f *testing.F) {
	for _, s := range []string{`null`, `1`, `-1.5e3`, `true`, `"x"`, `{"float":"NaN"}`, `2.0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v Value
		if err := v.UnmarshalJSON(data); err != nil {
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%q read as %v, which does not marshal: %v", data, v, err)
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil || Compare(back, v) != 0 {
			t.Fatalf("%q: %s does not read back (%v, %v)", data, b, back, err)
		}
	})
}

func FuzzLearnerState(f *testing.F) {
	cat := testCatalog(f)
	l := NewLearner(cat)
	for _, s := range randomSamples(newRand(1), 30) {
		l.Add(s)
	}
	b, _ := json.Marshal(l.State())
	f.Add(b)
	f.Add([]byte(`{"samples":1,"pairs":[{"x":"b","y":"a"}]}`))
	// A restricted learner's state: data with "many" values.
	samples := withRareData(newRand(2), randomSamples(newRand(2), 30))
	count := NewSupportCounter()
	for _, s := range samples {
		count.Add(s)
	}
	r := NewLearner(cat)
	r.Restrict(count.Supported(3))
	for _, s := range samples {
		r.Add(s)
	}
	b, _ = json.Marshal(r.State())
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var st State
		if json.Unmarshal(data, &st) != nil {
			return
		}
		l, err := NewLearnerFromState(cat, &st)
		if err != nil {
			return
		}
		// Whatever a stored state says, inferring and merging must not panic.
		l.Infer(Options{})
		m := NewLearner(cat)
		m.Merge(l)
		m.Merge(l)
		m.Infer(Options{All: true})
	})
}

// FuzzTemplateEval compiles an expression as a template of every type and
// evaluates it on operands of that type: whatever the expression, each
// evaluation ends quickly (the builtins it may call are bounded by their
// operands), with a value or an error, and never panics.
func FuzzTemplateEval(f *testing.F) {
	f.Add("x % 2 == 0", int64(3), "a")
	f.Add("abs(x - y) < 10", int64(-7), "bc")
	f.Add("len(x) > len(y) || upper(x) == y", int64(0), "é")
	f.Add("[1, 2, 3][x % 3] > y && max(x, 1) >= 1", int64(2), "")
	f.Add("x / 0 > y", int64(1), "z")
	f.Fuzz(func(t *testing.T, expr string, n int64, s string) {
		for _, types := range [][]string{{"int"}, {"float"}, {"string"}, {"bool"}, {"pointer"}, {"any"}} {
			for _, fitter := range []string{"", "bounds"} {
				u, err := CompileTemplate(TemplateDecl{Name: "f", Types: types, Expr: expr, Fitter: fitter})
				if err != nil {
					continue
				}
				operands := []Value{IntValue(n), FloatValue(float64(n) / 3), StringValue(s), BoolValue(n%2 == 0), NullValue(), {}}
				for _, x := range operands {
					for _, y := range operands {
						start := time.Now()
						u.eval(x, y)
						if d := time.Since(start); d > time.Second {
							t.Fatalf("%q on %v, %v took %v", expr, x, y, d)
						}
					}
				}
			}
		}
	})
}
