package invariants

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestTemplateFileValid(t *testing.T) {
	src := `{
  "licorice_templates": 1,
  "templates": [
    {"name": "even", "doc": "an even number", "types": ["int"], "expr": "x % 2 == 0"},
    {"name": "gap", "types": ["number"], "expr": "y - x", "fitter": "bounds"},
    {"name": "same-len", "types": ["string"], "expr": "len(x) == len(y)", "symmetric": true, "min_distinct": 3},
    {"name": "nonempty", "types": ["string"], "expr": "len(x) > 0"},
    {"name": "alive", "types": ["pointer"], "expr": "x != nil"}
  ]
}`
	us, err := ParseTemplateFile("t.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cat, err := NewCatalog(us...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tm := range cat.Templates() {
		if !tm.Builtin() {
			got = append(got, tm.Name+"/"+tm.Types.String()+"/"+tm.Form)
		}
	}
	want := []string{"even/int/x % 2 == 0", "gap/int|float/a <= y - x <= b", "same-len/string/len(x) == len(y)",
		"nonempty/string/len(x) > 0", "alive/pointer/x != nil"}
	if !slices.Equal(got, want) {
		t.Errorf("catalog:\n got %q\nwant %q", got, want)
	}
	if d := cat.User(); len(d) != 5 || d[1].Arity != 2 || d[0].Arity != 1 {
		t.Errorf("declarations: %+v", d)
	}

	// Learn with them.
	var samples [][]Var
	for i := range 40 {
		samples = append(samples, []Var{
			{Name: "n", Val: IntValue(int64(2 * i))},
			{Name: "m", Val: IntValue(int64(2*i + 3 + i%2))},
			{Name: "s", Val: StringValue(strings.Repeat("a", 1+i%6)), Group: 1},
			{Name: "t", Val: StringValue(strings.Repeat("b", 1+i%6)), Group: 1},
			{Name: "p", Val: RefValue(uint64(i + 1)), Group: 2},
		})
	}
	got = texts(t, cat, Options{}, samples...)
	for _, w := range []string{"n % 2 == 0", "3 <= m - n <= 4", "len(s) == len(t)", "len(s) > 0", "p != nil"} {
		if !slices.Contains(got, w) {
			t.Errorf("%q not learned; got %q", w, got)
		}
	}
	// gap is not symmetric, so it is tried both ways (-4 <= n - m <= -3
	// too); same-len is, so it is tried one way only.
	for _, w := range []string{"m % 2 == 0", "len(t) == len(s)"} {
		if slices.Contains(got, w) {
			t.Errorf("%q learned; got %q", w, got)
		}
	}
}

func TestTemplateFileErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // each error, in order
	}{
		{"syntax", "{\"templates\": [\n  {\"name\": \"a\",, }\n]}", []string{"t.json:2:16: invalid character ',' looking for beginning of object key string"}},
		{"truncated", "{\"templates\": [\n", []string{"t.json:2:1: unexpected end of file"}},
		{"empty", "  ", []string{`t.json:1:1: empty file: want {"templates": [...]}`}},
		{"no list", `{}`, []string{`t.json:1:1: no "templates" list`}},
		{"top key", `{"template": []}`, []string{`t.json:1:2: unknown key "template" (want "licorice_templates" or "templates")`}},
		{"version", `{"licorice_templates": 2, "templates": []}`, []string{"t.json:1:24: unsupported templates file version 2 (this licorice reads version 1)"}},
		{"trailing", `{"templates": []} x`, []string{"t.json:1:19: invalid character 'x' after top-level value"}},
		{"expr syntax", "{\"templates\": [\n  {\"name\": \"odd\", \"types\": [\"int\"], \"expr\": \"x % 2 ==\"}\n]}",
			[]string{`t.json:2:53: template "odd": expr: unexpected token EOF`}},
		{"expr type", "{\"templates\": [\n  {\"name\": \"s\", \"types\": [\"string\"], \"expr\": \"x + 1 > 0\"}\n]}",
			[]string{`t.json:2:49: template "s": expr: invalid operation: + (mismatched types string and int)`}},
		{"expr type of one type", "{\"templates\": [{\"name\": \"s\", \"types\": [\"int\", \"string\"], \"expr\": \"x > 0\"}]}",
			[]string{`t.json:1:69: template "s": expr: invalid operation: > (mismatched types string and int) (for string operands)`}},
		{"not bool", `{"templates": [{"name": "v", "types": ["int"], "expr": "x + 1"}]}`,
			[]string{`t.json:1:56: template "v": expr: expected bool, but got int`}},
		{"fitter result", `{"templates": [{"name": "v", "types": ["int"], "expr": "x > 1", "fitter": "bounds"}]}`,
			[]string{`t.json:1:56: template "v": expr: the bounds fitter needs a number, but the expression gives bool`}},
		{"unknown name", `{"templates": [{"name": "v", "types": ["int"], "expr": "x > a"}]}`,
			[]string{`t.json:1:61: template "v": expr: unknown name a`}},
		{"y in unary", `{"templates": [{"name": "v", "arity": 1, "types": ["int"], "expr": "x > y"}]}`,
			[]string{`t.json:1:73: template "v": expr: arity is 1 but the expression uses y`}},
		{"no x", `{"templates": [{"name": "v", "types": ["int"], "expr": "y > 0"}]}`,
			[]string{`t.json:1:56: template "v": expr: the expression does not use x`}},
		{"escapes", `{"templates": [{"name": "v", "types": ["string"], "expr": "x == \"\u00e9\" &&"}]}`,
			[]string{`t.json:1:77: template "v": expr: unexpected token EOF`}},
		{"builtin name", `{"templates": [{"name": "lt", "types": ["int"], "expr": "x < 0"}]}`,
			[]string{`t.json:1:25: template "lt": name: "lt" is a built-in template`}},
		{"bad name", `{"templates": [{"name": "9a", "types": ["int"], "expr": "x < 0"}]}`,
			[]string{`t.json:1:25: template "9a": name: "9a" is not a template name (a letter, then letters, digits, '_', '-', '.')`}},
		{"bad type", `{"templates": [{"name": "v", "types": ["long"], "expr": "x < 0"}]}`,
			[]string{`t.json:1:39: template "v": types: unknown type "long" (want pointer, int, float, number, bool, string or any)`}},
		{"types not list", `{"templates": [{"name": "v", "types": "int", "expr": "x < 0"}]}`,
			[]string{`t.json:1:39: template key "types": a JSON string cannot be []string`}},
		{"bad fitter", `{"templates": [{"name": "v", "types": ["int"], "expr": "x", "fitter": "max"}]}`,
			[]string{`t.json:1:71: template "v": fitter: unknown fitter "max" (want none, const, oneof, bounds or nonzero)`}},
		{"unknown key", `{"templates": [{"name": "v", "type": ["int"], "expr": "x < 0"}]}`,
			[]string{`t.json:1:30: unknown template key "type" (want name, doc, arity, types, expr, fitter, symmetric, min_distinct)`}},
		{"missing expr", `{"templates": [{"name": "v", "types": ["int"]}]}`, []string{`t.json:1:16: template has no "expr"`}},
		{"min_distinct", `{"templates": [{"name": "v", "types": ["int"], "expr": "x < 0", "min_distinct": 100}]}`,
			[]string{`t.json:1:81: template "v": min_distinct: 100 is out of range 1..64`}},
		{"twice and more", "{\"templates\": [\n{\"name\": \"v\", \"types\": [\"int\"], \"expr\": \"x < 0\"},\n{\"name\": \"v\", \"types\": [\"int\"], \"expr\": \"x > 0\"},\n{\"name\": \"w\", \"types\": [], \"expr\": \"x > 0\"}\n]}",
			[]string{`t.json:3:10: template "v" is declared twice`, `t.json:4:24: template "w": types: no types: say which operand types the template applies to`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTemplateFile("t.json", []byte(tc.src))
			var fe FileErrors
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want FileErrors", err)
			}
			var got []string
			for _, e := range fe {
				got = append(got, e.Error())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

func TestUserTemplateEvaluationErrors(t *testing.T) {
	// A runtime error on some sample falsifies the template there.
	u, err := CompileTemplate(TemplateDecl{Name: "q", Types: []string{"int"}, Expr: "x / y", Fitter: "bounds"})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := NewCatalog(u)
	var samples [][]Var
	for i := range 30 {
		samples = append(samples, sample("a", 4*(i%3+1), "b", 2))
	}
	if got := texts(t, cat, Options{}, samples...); !slices.Contains(got, "2.0 <= a / b <= 6.0") {
		t.Errorf("got %q", got)
	}
	u2, _ := CompileTemplate(TemplateDecl{Name: "m", Types: []string{"int"}, Expr: "x % y", Fitter: "bounds"})
	cat2, _ := NewCatalog(u2)
	samples = append(samples, sample("a", 1, "b", 0)) // integer divide by zero
	for _, c := range texts(t, cat2, Options{All: true, Limit: 1, MinSupport: 1}, samples...) {
		if strings.Contains(c, "a % b") {
			t.Errorf("template with an evaluation error reported: %s", c)
		}
	}
}

// A template file is untrusted input: what would take the process's stack,
// memory or time, or the clock or the environment, is an error with its
// place, at once.
func TestTemplateFileUntrusted(t *testing.T) {
	file := func(expr string) string {
		b, _ := json.Marshal(expr)
		return `{"templates": [{"name": "v", "types": ["int"], "expr": ` + string(b) + `}]}`
	}
	tests := []struct {
		name, expr, want string // want "" when the template compiles
	}{
		{"a megabyte of unary minus", strings.Repeat("-", 1<<20) + "x > 0", "1048581 characters long; at most 1000"},
		{"200 KB of parentheses", strings.Repeat("(", 100<<10) + "x" + strings.Repeat(")", 100<<10) + " > 0", "at most 1000"},
		{"a terabyte string", `len(repeat(repeat("a", 999999), 999999)) > x`, "unknown name repeat"},
		{"a long predicate", `len(filter(1..999999, # > 0)) > x`, "filter is not allowed in a template"},
		{"a range", `len(1..999999) > x`, "ranges (a..b) are not allowed"},
		{"a predicate", `any([1, 2], # > x)`, "any is not allowed in a template"},
		{"nested predicates", strings.Repeat("all([1, 2, 3], ", 30) + "x > 0" + strings.Repeat(")", 30), "all is not allowed"},
		{"the clock", `now().Unix() > x`, "unknown name now"},
		{"$env", `$env.x > 0 && x > 0`, "$env is not allowed"},
		{"variables", `let a = x; a > 0`, "variables are not allowed"},
		{"pipes", `x | abs() > 0`, "pipes are not allowed"},
		{"many nodes", strings.Repeat("x + ", 240) + "x > 0", "exceeds maximum allowed nodes"},
		{"deep but short", strings.Repeat("(", 450) + "x" + strings.Repeat(")", 450) + " > 0", ""},
		{"arithmetic builtins", `abs(x) < 10 && max(x, 1) >= 1 && int(float(x)) == x`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTemplateFile("t.json", []byte(file(tc.expr)))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %.300v, want one with %q", err, tc.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "t.json:1:") {
				t.Errorf("err = %.100v, want it placed in t.json", err)
			}
		})
	}
}
