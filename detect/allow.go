package detect

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/licorice-dev/licorice/internal/limitedfile"
)

// AllowList is a user's list of handlers, classes and conditions known to
// commute: findings it matches are not reported, only counted. The file
// has one rule per line; '#' starts a comment:
//
//	handler GLOB                       a finding with an event of a matching handler
//	class GLOB                         ... of a handler of a matching class
//	condition GLOB                     a finding on a matching condition
//	pair GLOB GLOB                     a finding between two matching handlers, in either order
//	pair GLOB GLOB condition GLOB      ... on a matching condition
//
// Handlers are matched by their full name ("TrackDetailActivity.onPause"),
// classes by the name before the handler's last dot; a condition glob
// matches either the condition's full text
// ("TrackDetailActivity.refreshStats: this.tab in {0, 1, 2}") or its body
// ("this.tab in {0, 1, 2}"), and extends to the end of the line. In a
// glob, * matches any run of characters, ? any one character, and \
// makes the next character literal.
type AllowList struct {
	Name  string
	Rules []AllowRule
}

// AllowRule is one rule of an allow-list.
type AllowRule struct {
	Line int    // its line in the file
	Text string // as written, without the comment
	kind string
	a, b string // handler or class globs
	cond string // condition glob, or ""
}

// MaxAllowListSize bounds an allow-list file.
const MaxAllowListSize = 16 << 20

// ReadAllowList reads the allow-list file at path.
func ReadAllowList(path string) (*AllowList, error) {
	data, err := limitedfile.Read(path, MaxAllowListSize, "an allow-list")
	if err != nil {
		return nil, fmt.Errorf("read allow-list: %w", err)
	}
	return ParseAllowList(path, data)
}

// ParseAllowList reads an allow-list from data, the contents of the file
// name. It reports every malformed line, each with its line number.
func ParseAllowList(name string, data []byte) (*AllowList, error) {
	l := &AllowList{Name: name}
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		r, err := parseRule(text)
		if err != nil {
			errs = append(errs, fmt.Errorf("allow-list %s:%d: %w", name, n, err))
			continue
		}
		r.Line, r.Text = n, text
		l.Rules = append(l.Rules, r)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("allow-list %s: %w", name, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return l, nil
}

func parseRule(text string) (AllowRule, error) {
	kind, rest, _ := strings.Cut(text, " ")
	rest = strings.TrimSpace(rest)
	r := AllowRule{kind: kind}
	switch kind {
	case "handler", "class":
		f := strings.Fields(rest)
		if len(f) != 1 {
			return r, fmt.Errorf("%s takes one pattern, got %d", kind, len(f))
		}
		r.a = f[0]
	case "condition":
		if rest == "" {
			return r, errors.New("condition takes a pattern")
		}
		r.cond = rest
	case "pair":
		f := strings.Fields(rest)
		switch {
		case len(f) == 2:
		case len(f) > 3 && f[2] == "condition":
			_, r.cond, _ = strings.Cut(rest, " condition ")
			r.cond = strings.TrimSpace(r.cond)
		default:
			return r, errors.New(`pair takes two handler patterns, then optionally "condition" and a pattern`)
		}
		r.a, r.b = f[0], f[1]
	default:
		return r, fmt.Errorf("unknown rule %q (want handler, class, condition or pair)", kind)
	}
	for _, p := range []string{r.a, r.b, r.cond} {
		if strings.HasSuffix(p, `\`) && !strings.HasSuffix(p, `\\`) {
			return r, fmt.Errorf("pattern %q ends with a lone backslash", p)
		}
	}
	return r, nil
}

// match returns the index of the first rule that allows a finding between
// events of the given handlers on condition c, or -1.
func (l *AllowList) match(handlers []string, c *Condition) int {
	if l == nil {
		return -1
	}
	for i := range l.Rules {
		if l.Rules[i].matches(handlers, c) {
			return i
		}
	}
	return -1
}

func (r *AllowRule) matches(handlers []string, c *Condition) bool {
	if r.cond != "" && !glob(r.cond, c.Text) && !glob(r.cond, c.Body) {
		return false
	}
	switch r.kind {
	case "handler", "class":
		for _, h := range handlers {
			name := h
			if r.kind == "class" {
				name = classOf(h)
			}
			if glob(r.a, name) {
				return true
			}
		}
		return false
	case "pair":
		if len(handlers) != 2 {
			return false
		}
		x, y := handlers[0], handlers[1]
		return glob(r.a, x) && glob(r.b, y) || glob(r.a, y) && glob(r.b, x)
	}
	return true // condition
}

// classOf returns the class of a handler: "TrackDetailActivity" for
// "TrackDetailActivity.onPause".
func classOf(handler string) string {
	if i := strings.LastIndexByte(handler, '.'); i >= 0 {
		return handler[:i]
	}
	return handler
}

// glob reports whether s matches pattern p as a whole (* any run, ? one
// character, \ escapes).
func glob(p, s string) bool {
	// Backtrack to the last star only: linear in practice, quadratic at
	// worst.
	pi, si := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch c := p[pi]; {
			case c == '*':
				starP, starS = pi, si
				pi++
				continue
			case c == '?':
				_, n := utf8.DecodeRuneInString(s[si:])
				pi, si = pi+1, si+n
				continue
			case c == '\\' && pi+1 < len(p) && p[pi+1] == s[si]:
				pi, si = pi+2, si+1
				continue
			case c != '\\' && c == s[si]:
				pi, si = pi+1, si+1
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		pi, si = starP+1, starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
