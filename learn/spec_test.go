package learn

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/invariants"
)

const goodSpec = `{
  "licorice_spec": 1,
  "params": {"limit": 0.01, "min_samples": 5},
  "traces": 2,
  "handlers": [
    {
      "handler": "A.run",
      "samples": 10,
      "traces": 2,
      "conditions": [
        {"text": "A.run: this.p != null", "template": "nonnull", "vars": ["this.p"], "support": 10, "confidence": 1},
        {"text": "", "template": "range", "vars": ["this.n"], "constants": {"a": 0, "b": 9}, "support": 10, "confidence": 0.99, "disabled": true},
        {"text": "", "template": "pairs", "vars": ["L.language", "L.country"], "constants": {"p": [{"x": "de", "y": "DE"}, {"x": "en", "y": "US"}]}, "support": 10, "confidence": 0.999}
      ]
    }
  ]
}
`

func TestParseSpec(t *testing.T) {
	sp, err := ParseSpec("s.json", []byte(goodSpec))
	if err != nil {
		t.Fatal(err)
	}
	h := sp.Handler("A.run")
	if h == nil || len(h.Conditions) != 3 || h.State != nil {
		t.Fatalf("handler: %+v", h)
	}
	if got := h.Conditions[0].Text(); got != "A.run: this.p != null" {
		t.Errorf("text %q: the text is derived, not read", got)
	}
	if got := sp.Conditions(); len(got) != 2 {
		t.Errorf("enabled conditions: %d, want 2 (one is disabled)", len(got))
	}
	if got, want := h.Conditions[2].Body(), `(L.language, L.country) in {("de", "DE"), ("en", "US")}`; got != want {
		t.Errorf("pair one-of: %q, want %q", got, want)
	}
	if !h.Conditions[2].holds2(`en`, `US`) || h.Conditions[2].holds2(`en`, `DE`) {
		t.Errorf("pair one-of evaluates wrongly")
	}
}

// holds2 evaluates a two-string condition (for tests).
func (c *Condition) holds2(x, y string) bool {
	h, ok := c.Eval([]invariants.Value{invariants.StringValue(x), invariants.StringValue(y)})
	return h && ok
}

func TestParseSpecErrors(t *testing.T) {
	edit := func(old, new string) string { return strings.Replace(goodSpec, old, new, 1) }
	tests := []struct {
		name, src, want string
	}{
		{"syntax", edit(`"traces": 2,`, `"traces": 2,,`), "s.json:4:15: invalid character ','"},
		{"type", edit(`"traces": 2,`, `"traces": "2",`), "s.json:4:13: traces: want an integer, not a JSON string"},
		{"truncated", goodSpec[:40], "unexpected end of file"},
		{"trailing", goodSpec + "{}", "unexpected text after the spec"},
		{"unknown field", edit(`"traces": 2,`, `"trace": 2,`), `unknown field "trace"`},
		{"version", edit(`"licorice_spec": 1`, `"licorice_spec": 2`), "unsupported spec version 2"},
		{"not a spec", `{"licorice_trace": 1}`, `unknown field "licorice_trace"`},
		{"limit", edit(`"limit": 0.01`, `"limit": 0`), "limit 0 is not a probability"},
		{"min samples", edit(`"min_samples": 5`, `"min_samples": 0`), "s.json:3:44: params: min_samples 0 is out of range 1..1099511627776"},
		{"template", edit(`"template": "nonnull"`, `"template": "notnull"`), `handler A.run: condition 1 ("A.run: this.p != null"): unknown template "notnull"`},
		{"arity", edit(`"vars": ["this.p"]`, `"vars": ["this.p", "this.q"]`), "template nonnull takes 1 data, not 2"},
		{"missing constant", edit(`"constants": {"a": 0, "b": 9}`, `"constants": {"a": 0}`), "template range needs constant b"},
		{"extra constant", edit(`"support": 10, "confidence": 1}`, `"constants": {"a": 1}, "support": 10, "confidence": 1}`), "template nonnull has no constant a"},
		{"constant type", edit(`{"a": 0, "b": 9}`, `{"a": "0", "b": 9}`), "s.json:12:82: handler A.run: condition 2 (\"\"): constant a must be a finite number"},
		{"pairs without p", edit(`"constants": {"p": [{"x": "de", "y": "DE"}, {"x": "en", "y": "US"}]}, `, ``), "template pairs needs a non-empty set p of pairs"},
		{"pairs of floats", edit(`{"x": "de", "y": "DE"}`, `{"x": 1.5, "y": "DE"}`), "the pairs of p must be integers or strings"},
		{"p elsewhere", edit(`{"a": 0, "b": 9}`, `{"a": 0, "b": 9, "p": [{"x": 1, "y": 2}]}`), "template range has no constant p"},
		{"unknown field placed", edit(`"traces": 2,`, `"trace": 2,`), `s.json:4:3: unknown field "trace"`},
		{"truncated placed", goodSpec[:40], "s.json:3:17: unexpected end of file"},
		{"min samples huge", edit(`"min_samples": 5`, `"min_samples": 4611686018427387904`), "min_samples 4611686018427387904 is out of range"},
		{"negative traces", edit(`"traces": 2,
  "handlers"`, `"traces": -1,
  "handlers"`), "s.json:4:13: traces -1 is negative"},
		{"handlers null", edit(`"handlers": [`, `"handlers": null, "x": [`), "unknown field"},
		{"handlers null alone", strings.Replace(goodSpec[:strings.Index(goodSpec, `"handlers"`)], `"traces": 2,`, `"traces": 2, "handlers": null`, 1) + "}", "s.json:4:28: handlers: want a list"},
		{"negative support", edit(`"support": 10, "confidence": 1}`, `"support": -5, "confidence": 1}`), `s.json:11:97: handler A.run: condition 1 ("A.run: this.p != null"): support -5 is out of range 0..10`},
		{"support beyond samples", edit(`"support": 10, "confidence": 1}`, `"support": 11, "confidence": 1}`), "support 11 is out of range 0..10"},
		{"negative samples", edit(`"samples": 10,`, `"samples": -10,`), "s.json:8:18: handler A.run: samples -10 is out of range"},
		{"empty bounds", edit(`{"a": 0, "b": 9}`, `{"a": 10, "b": 1}`), `s.json:12:91: handler A.run: condition 2 (""): bounds 10..1 are empty`},
		{"unknown template placed", edit(`"template": "nonnull"`, `"template": "notnull"`), `s.json:11:55: handler A.run`},
		{"infinite bound", edit(`{"a": 0, "b": 9}`, `{"a": 0, "b": {"float": "+Inf"}}`), "constant b must be a finite number"},
		{"one-of twice", edit(`"template": "range", "vars": ["this.n"], "constants": {"a": 0, "b": 9}`, `"template": "oneof", "vars": ["this.n"], "constants": {"s": [1, 2, 1]}`), `condition 2 (""): 1 is twice in s`},
		{"one-of mixed", edit(`"template": "range", "vars": ["this.n"], "constants": {"a": 0, "b": 9}`, `"template": "oneof", "vars": ["this.n"], "constants": {"s": [1, "1"]}`), `the values of s must be of one type: 1 and "1"`},
		{"one-of too many", edit(`"template": "range", "vars": ["this.n"], "constants": {"a": 0, "b": 9}`, `"template": "oneof", "vars": ["this.n"], "constants": {"s": [1, 2, 3, 4]}`), "a set s of more than 3 values"},
		{"one-of of numbers", edit(`"template": "range", "vars": ["this.n"], "constants": {"a": 0, "b": 9}`, `"template": "oneof", "vars": ["this.n"], "constants": {"s": [1, 2.5]}`), ""},
		{"text edited alone", edit(`"text": "A.run: this.p != null"`, `"text": "A.run: this.p == null"`), `s.json:11:18: handler A.run: condition 1 ("A.run: this.p == null"): the text does not say what the condition is ("A.run: this.p != null")`},
		{"duplicate handler", edit(`"handlers": [`, `"handlers": [{"handler": "A.run", "samples": 0, "traces": 0, "conditions": []},`), "handler A.run is listed twice"},
		{"duplicate condition", edit(`"disabled": true}`, `"disabled": true}, {"text": "", "template": "nonnull", "vars": ["this.p"], "support": 1, "confidence": 1}`), "is listed twice"},
		{"user template", edit(`"traces": 2,`, `"traces": 2, "templates": [{"name": "x", "types": ["int"], "expr": "x +"}],`), `template "x": expr: unexpected token EOF`},
		{"bad state", edit(`"traces": 2,
      "conditions"`, `"traces": 2, "state": {"samples": 1, "pairs": [{"x": "b", "y": "a"}]},
      "conditions"`), "names must be given in increasing order"},
		{"state of the wrong type", edit(`"traces": 2,
      "conditions"`, `"traces": 2, "state": {"samples": 10, "vars": 5},
      "conditions"`), `handlers.state.vars: want an object, not a JSON number`},
		{"a datum the state does not know", edit(`"traces": 2,
      "conditions"`, `"traces": 2, "state": {"samples": 10, "vars": {"this.p": {"n": 10, "ref": 10}}},
      "conditions"`), `condition 2 (""): "this.n": the handler read no such datum in training, so the condition would never be checked (it read this.p)`},
		{"impossible state", edit(`"traces": 2,
      "conditions"`, `"traces": 2, "state": {"samples": 30, "vars": {"this.n": {"n": 30, "int": 30}}},
      "conditions"`), `handler A.run: state: datum "this.n": bad numeric bounds`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSpec("s.json", []byte(tc.src))
			if tc.want == "" {
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tc.want)
			}
		})
		// Without the learning state, the same, but for the state's own
		// contents, which only merging reads.
		t.Run(tc.name+"/skip state", func(t *testing.T) {
			_, err := parseSpec("s.json", []byte(tc.src), ReadOptions{SkipState: true})
			want := tc.want
			if strings.Contains(tc.name, "state") && !strings.Contains(tc.name, "does not know") {
				// The state's contents are not read.
				if err != nil && strings.Contains(err.Error(), "state:") {
					t.Errorf("err = %v, want none about the state's contents", err)
				}
				return
			}
			if want == "" {
				if err != nil {
					t.Errorf("err = %v, want none", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v\nwant it to contain %q", err, want)
			}
		})
	}
}

// Read without its learning state, a spec has the same conditions and
// encodes the same but for the state.
func TestSkipState(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "cmd", "licorice", "testdata", "learn", "box.spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := ParseSpec("s.json", data)
	if err != nil {
		t.Fatal(err)
	}
	light, err := parseSpec("s.json", data, ReadOptions{SkipState: true})
	if err != nil {
		t.Fatal(err)
	}
	hasState := false
	for i, h := range full.Handlers {
		hasState = hasState || h.State != nil
		h.State = nil
		if l := light.Handlers[i]; l.State != nil {
			t.Errorf("%s: state read despite SkipState", l.Name)
		}
	}
	if !hasState {
		t.Fatal("the test spec has no learning state: the test cannot tell")
	}
	if a, b := encode(t, full), encode(t, light); string(a) != string(b) {
		t.Errorf("the specs differ:\n%s", firstDiff(a, b))
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add([]byte(goodSpec))
	if b, err := os.ReadFile(filepath.Join("..", "cmd", "licorice", "testdata", "learn", "box.spec.json")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := ParseSpec("f.json", data)
		if err != nil {
			return
		}
		// A spec that parses encodes, re-parses to the same bytes, and
		// merges with itself without panicking.
		a := encode(t, sp)
		back, err := ParseSpec("g.json", a)
		if err != nil {
			t.Fatalf("encoded spec does not parse: %v\n%s", err, a)
		}
		if b := encode(t, back); string(a) != string(b) {
			t.Fatalf("encoding is not stable\n%s", firstDiff(b, a))
		}
		Merge(sp, back)
	})
}

// FuzzDecodeSpecStream: the handler-at-a-time decoder and the skimming
// one (ReadOptions.SkipState) accept only what decoding the document at
// once accepts, and read the same from it; they may refuse more (the
// caller then decodes at once, which places errors).
func FuzzDecodeSpecStream(f *testing.F) {
	f.Add([]byte(goodSpec))
	if b, err := os.ReadFile(filepath.Join("..", "cmd", "licorice", "testdata", "learn", "box.spec.json")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		`{"licorice_spec": 1, "handlers": null}`,
		`{"licorice_spec": 1, "Handlers": []}`,
		`{"licorice_spec": 1, "handlers": [], "handlers": [{"handler": "A.b"}]}`,
		`{"licorice_spec": 1, "handlers": []} {}`,
		`{"licorice_spec": 1, "handlers": [{"handler": "A.b", "extra": 1}]}`,
		`{"licorice_spec": 1, "handlers": [{"handler": "A.b", "state": {"vars": {"a": 1}}, "state": {"samples": 2, "vars": {"b": {}}}}]}`,
		`{"licorice_spec": 1, "handlers": [{"handler": "A.b", "state": {"vars": {"a": 1}}, "state": null}]}`,
		`{"licorice_spec": 1, "handlers": [{"handler": "A.b", "state": {"vars": null}}]}`,
		`{"licorice_spec": 1, "handlers": [{"handler": "A.b", "state": {"pairs": [1, {"x": [}]}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(stream, whole any, streamErr error) {
			t.Helper()
			if streamErr != nil {
				return
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(whole); err != nil || dec.More() {
				t.Fatalf("the stream decoder accepted what the document decoder refuses (%v): %q", err, data)
			}
			if !reflect.DeepEqual(stream, whole) {
				t.Fatalf("the two decoders read different specs from %q", data)
			}
		}
		var s1, w1 specJSON
		check(&s1, &w1, decodeSpecStream(data, &s1))
		var s2, w2 specJSONOf[*stateNames]
		check(&s2, &w2, decodeSpecStream(data, &s2))
		var s3, w3 specJSONOf[*stateNames]
		check(&s3, &w3, decodeSpecSkim(data, &s3))
	})
}

// TestSkimReadsWrittenSpecs: the fast reader of ReadOptions.SkipState
// takes what licorice writes (were it to refuse it, reading would fall
// back to the slow decoder and still work, only slowly).
func TestSkimReadsWrittenSpecs(t *testing.T) {
	box, err := os.ReadFile(filepath.Join("..", "cmd", "licorice", "testdata", "learn", "box.spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ParseSpec("box.spec.json", box)
	if err != nil {
		t.Fatal(err)
	}
	written := encode(t, sp)
	var light specJSONOf[*stateNames]
	if err := decodeSpecSkim(written, &light); err != nil {
		t.Fatalf("the skimming reader refuses a written spec: %v", err)
	}
	var names int
	for _, h := range light.Handlers {
		if h.State != nil {
			names += len(h.State.Vars)
		}
	}
	if len(light.Handlers) != len(sp.Handlers) || names == 0 {
		t.Fatalf("read %d handlers and %d data names, want %d handlers and some names", len(light.Handlers), names, len(sp.Handlers))
	}
}

// TestPairWrittenAsEncoded checks that a pair's state, written by
// calling its MarshalJSON directly, comes out as the encoder wrote it,
// also for names with characters JSON may escape.
func TestPairWrittenAsEncoded(t *testing.T) {
	for _, text := range []string{
		`{"x":"C0.init:11#1.f0","y":"this.f2","n":3,"int":2,"eq":1}`,
		`{"x":"<anonymous> a&b","y":"fs.readFile \"x\"\\y","n":1,"many_tuples":true}`,
		`{"x":"a\u2028b","y":"\u00e9t\u00e9","n":2}`,
	} {
		var p invariants.PairEntry
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		write := func(f func(e *specWriter)) string {
			var b strings.Builder
			e := newSpecWriter(&b)
			f(e)
			if err := e.flush(); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		encoded := write(func(e *specWriter) { e.item(5, &p, ",") })
		direct := write(func(e *specWriter) { e.pair(&p, ",") })
		if direct != encoded {
			t.Errorf("%s: written as\n%s, the encoder writes\n%s", text, direct, encoded)
		}
	}
}
