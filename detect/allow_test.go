package detect

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/licorice-dev/licorice/internal/golden"
)

func TestParseAllowListErrors(t *testing.T) {
	tests := []struct {
		text  string
		want  string // in the error, each part split by |; "" for none
		rules int
	}{
		{"# only a comment\n\n", "", 0},
		{"handler Act.on*   # trailing comment\nclass android.*\ncondition this.tab in *\npair A.x B.*\npair A.x B.y condition * != null\n", "", 5},
		{"handler\n", "f:1: handler takes one pattern, got 0", 0},
		{"\nhandler a b\n", "f:2: handler takes one pattern, got 2", 0},
		{"class\n", "f:1: class takes one pattern", 0},
		{"condition\n", "f:1: condition takes a pattern", 0},
		{"pair A\n", "f:1: pair takes two handler patterns", 0},
		{"pair A B C\n", "f:1: pair takes two handler patterns", 0},
		{"pair A B condition\n", "f:1: pair takes two handler patterns", 0},
		{"allow A\n", `f:1: unknown rule "allow"`, 0},
		{`handler A\` + "\n", `ends with a lone backslash`, 0},
		{"handler A\nbogus\nclass\n", "allow-list f:2: unknown rule \"bogus\"|allow-list f:3: class takes one pattern", 0},
	}
	for _, tt := range tests {
		l, err := ParseAllowList("f", []byte(tt.text))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", tt.text, err)
		case tt.want == "" && len(l.Rules) != tt.rules:
			t.Errorf("%q: %d rules, want %d", tt.text, len(l.Rules), tt.rules)
		case tt.want != "" && err == nil:
			t.Errorf("%q: no error, want %q", tt.text, tt.want)
		case tt.want != "":
			for _, part := range strings.Split(tt.want, "|") {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("%q: error %v, want one with %q", tt.text, err, part)
				}
			}
		}
	}
}

func TestAllowMatch(t *testing.T) {
	c := &Condition{Text: "Act.refresh: this.tab in {0, 1, 2}", Body: "this.tab in {0, 1, 2}"}
	tests := []struct {
		rule     string
		handlers []string
		want     bool
	}{
		{"handler Act.refresh", []string{"Act.onTab", "Act.refresh"}, true},
		{"handler Act.refresh", []string{"Act.onTab"}, false},
		{"handler *.on*", []string{"Act.refresh", "Other.onTab"}, true},
		{"class Act", []string{"Act.onTab", "Other.x"}, true},
		{"class Ac", []string{"Act.onTab"}, false},
		{"class *Activity", []string{"TrackDetailActivity.onPause"}, true},
		{"pair Act.onTab Act.refresh", []string{"Act.refresh", "Act.onTab"}, true},
		{"pair Act.onTab Act.refresh", []string{"Act.refresh"}, false},
		{"pair Act.* Act.* condition this.tab in *", []string{"Act.a", "Act.b"}, true},
		{"pair Act.* Act.* condition this.n *", []string{"Act.a", "Act.b"}, false},
		{"condition Act.refresh: *", []string{"X.y"}, true},
		{`condition this.tab in \{0, 1, 2\}`, []string{"X.y"}, true},
		{"condition this.tab in {0, 1}", []string{"X.y"}, false},
	}
	for _, tt := range tests {
		l, err := ParseAllowList("f", []byte(tt.rule))
		if err != nil {
			t.Fatal(err)
		}
		if got := l.match(tt.handlers, c) >= 0; got != tt.want {
			t.Errorf("%q on %q: %v, want %v", tt.rule, tt.handlers, got, tt.want)
		}
	}
	var none *AllowList
	if none.match([]string{"a"}, c) != -1 {
		t.Error("a nil allow-list matches")
	}
}

// globRegexp is glob the slow, obvious way.
func globRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*':
			b.WriteString(`.*`)
		case c == '?':
			b.WriteString(`.`)
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

func FuzzGlob(f *testing.F) {
	for _, seed := range [][2]string{
		{"*", ""}, {"a*b", "axxb"}, {"a*b", "axxbc"}, {"*.on*", "Act.onPause"}, {`\*`, "*"}, {`\*`, "x"},
		{"a?c", "abc"}, {"**a", "ba"}, {"*a*a*", "aaa"}, {"?", "é"}, {`x\`, "x"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if !utf8.ValidString(p) || !utf8.ValidString(s) || strings.HasSuffix(p, `\`) && !strings.HasSuffix(p, `\\`) {
			t.Skip()
		}
		if got, want := glob(p, s), globRegexp(p).MatchString(s); got != want {
			t.Errorf("glob(%q, %q) = %v, the regexp says %v", p, s, got, want)
		}
	})
}

func FuzzParseAllowList(f *testing.F) {
	f.Add([]byte("handler Act.*\nclass X\ncondition a b c\npair a b condition *\n# x\n"))
	f.Add([]byte("pair\n\x00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseAllowList("f", data)
		if err != nil {
			return
		}
		// Every rule reads back from its own text.
		for _, r := range l.Rules {
			again, err := ParseAllowList("g", []byte(r.Text))
			if err != nil || len(again.Rules) != 1 || again.Rules[0].kind != r.kind || again.Rules[0].a != r.a ||
				again.Rules[0].b != r.b || again.Rules[0].cond != r.cond {
				t.Errorf("rule %q does not read back: %v", r.Text, err)
			}
		}
		_ = l.match([]string{"A.b", "C.d"}, &Condition{Text: "A.b: x != null", Body: "x != null"})
	})
}

// TestAllowDetect suppresses reports of the golden trace and counts them.
func TestAllowDetect(t *testing.T) {
	l, err := ParseAllowList("allow.txt", []byte("pair Act.onLoad Act.refresh\ncondition this.q != null\nhandler Nothing.matches\n"))
	if err != nil {
		t.Fatal(err)
	}
	res, spec := goldenResult(t, l)
	var kinds []Kind
	for _, r := range res.Reports {
		kinds = append(kinds, r.Kind)
	}
	if want := []Kind{Violation, ReqKill, ReqKill}; !equalKinds(kinds, want) {
		t.Errorf("reports of kinds %v, want %v", kinds, want)
	}
	if res.AllowedFindings != 4 || res.AllowedReports != 2 {
		t.Errorf("allowed %d findings, %d reports; want 4, 2", res.AllowedFindings, res.AllowedReports)
	}
	want := []RuleUse{
		{Line: 1, Rule: "pair Act.onLoad Act.refresh", Findings: 2, Reports: 1},
		{Line: 2, Rule: "condition this.q != null", Findings: 2, Reports: 1},
		{Line: 3, Rule: "handler Nothing.matches"},
	}
	if len(res.Allowed) != len(want) {
		t.Fatalf("rule uses %v, want %v", res.Allowed, want)
	}
	for i := range want {
		if res.Allowed[i] != want[i] {
			t.Errorf("rule %d: %+v, want %+v", i, res.Allowed[i], want[i])
		}
	}
	var b bytes.Buffer
	if err := WriteText(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/allow.txt.golden", b.Bytes())
	_ = spec
}
