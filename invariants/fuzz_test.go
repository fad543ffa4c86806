package invariants

import (
	"encoding/json"
	"testing"
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
