package races

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/licorice-dev/licorice/internal/limitedfile"
	"github.com/licorice-dev/licorice/traces"
)

// Filter names the races a user declares harmless, from a file of rules
// (docs/races.md, "Declaring races harmless"). Each line is a rule of
// terms key=pattern, all of which must match a race for the rule to drop
// it:
//
//	# counters that commutative events increment
//	field=mCount
//	class=android.view.* field=mLayout*
//	handler=*.onDraw                          # either access in onDraw
//	handler=*.onPause handler=*.onResume      # one access in each
//	kind=data location="@db:Users.*"
//
// Keys: kind ("data" or "use-free"), class (a static field's class, or the
// object's type), site (the object's allocation site), field, location
// (the symbolic name the report prints), handler (the context of an
// access: its handler, or "event on T" / "thread T" outside any; one
// handler term matches either access, two match one access each). A
// missing class, site or handler is the empty string, which only a
// pattern such as "*" matches. Patterns are globs: * is any run of
// characters, ? one character, \ makes the next character literal; a
// pattern with spaces or # is written in double quotes. # starts a comment.
type Filter struct {
	rules []filterRule
}

type filterRule struct {
	line     int
	text     string
	keys     map[string]string // kind, class, site, field, location
	handlers []string
}

// filterKeys are the keys a rule may have, but handler.
var filterKeys = []string{"kind", "class", "site", "field", "location"}

// maxFilterErrors is how many mistakes ParseFilter reports before it stops.
const maxFilterErrors = 20

// maxFilterSize bounds a filter file.
const maxFilterSize = 16 << 20

// LoadFilter reads the filter file at path.
func LoadFilter(path string) (*Filter, error) {
	data, err := limitedfile.Read(path, maxFilterSize, "a filter file")
	if err != nil {
		return nil, fmt.Errorf("harmless filter: %w", err)
	}
	return ParseFilter(path, bytes.NewReader(data))
}

// ParseFilter reads a filter from r; name is the file name errors carry.
// It reports every mistake it finds (up to 20), each with its line.
func ParseFilter(name string, r io.Reader) (*Filter, error) {
	f := &Filter{}
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		rule, err := parseRule(sc.Text())
		if err != nil {
			errs = append(errs, &traces.LineError{File: name, Line: line, Msg: err.Error()})
			if len(errs) == maxFilterErrors {
				errs = append(errs, fmt.Errorf("%s: stopped after %d errors", name, maxFilterErrors))
				break
			}
			continue
		}
		if rule != nil {
			rule.line = line
			f.rules = append(f.rules, *rule)
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f, nil
}

// Len returns the number of rules.
func (f *Filter) Len() int {
	if f == nil {
		return 0
	}
	return len(f.rules)
}

// parseRule parses one line; nil for a line without terms.
func parseRule(s string) (*filterRule, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("invalid UTF-8")
	}
	rule := &filterRule{keys: make(map[string]string)}
	var text []string
	rest := s
	for {
		rest = strings.TrimLeft(rest, " \t\r")
		if rest == "" || rest[0] == '#' {
			break
		}
		eq := strings.IndexAny(rest, "= \t")
		if eq < 0 || rest[eq] != '=' {
			word, _, _ := strings.Cut(strings.TrimRight(rest, " \t\r"), " ")
			return nil, fmt.Errorf("%q is not a term: write key=pattern (keys: %s, handler)", word, strings.Join(filterKeys, ", "))
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var pat string
		if strings.HasPrefix(rest, `"`) {
			var err error
			if pat, rest, err = quoted(rest); err != nil {
				return nil, fmt.Errorf("%s: %v", key, err)
			}
		} else {
			end := strings.IndexAny(rest, " \t\r")
			if end < 0 {
				end = len(rest)
			}
			pat, rest = rest[:end], rest[end:]
		}
		if pat == "" {
			return nil, fmt.Errorf("%s= needs a pattern", key)
		}
		if err := checkGlob(pat); err != nil {
			return nil, fmt.Errorf("%s=%s: %v", key, pat, err)
		}
		switch {
		case key == "handler":
			if len(rule.handlers) == 2 {
				return nil, errors.New("a rule has at most two handler terms, one for each access")
			}
			rule.handlers = append(rule.handlers, pat)
		case isFilterKey(key):
			if _, dup := rule.keys[key]; dup {
				return nil, fmt.Errorf("%s appears twice", key)
			}
			if key == "kind" && !matchGlob(pat, DataRace.String()) && !matchGlob(pat, UseFree.String()) {
				return nil, fmt.Errorf("kind=%s matches no kind: want data or use-free", pat)
			}
			rule.keys[key] = pat
		default:
			return nil, fmt.Errorf("unknown key %q: want %s or handler", key, strings.Join(filterKeys, ", "))
		}
		text = append(text, key+"="+quoteIfNeeded(pat))
	}
	if len(text) == 0 {
		return nil, nil
	}
	rule.text = strings.Join(text, " ")
	return rule, nil
}

func isFilterKey(k string) bool {
	for _, x := range filterKeys {
		if x == k {
			return true
		}
	}
	return false
}

// quoted reads a double-quoted pattern at the start of s (\" and \\ are
// escapes; other backslashes stay for the glob) and returns it and the
// rest of s.
func quoted(s string) (string, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			rest := s[i+1:]
			if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\r' {
				return "", "", errors.New("a quoted pattern must be followed by a space or the end of the line")
			}
			return b.String(), rest, nil
		case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte('\\')
			b.WriteByte(s[i+1])
			i++
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("the quote is not closed")
}

// quoteIfNeeded returns pattern p as a rule would spell it.
func quoteIfNeeded(p string) string {
	// Quoted if it holds what ends or comments out an unquoted pattern,
	// or starts like a quoted one.
	if !strings.ContainsAny(p, " \t\r#") && !strings.HasPrefix(p, `"`) {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
		case p[i] == '"':
			b.WriteString(`\"`)
		default:
			b.WriteByte(p[i])
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkGlob reports a pattern that ends in a lone backslash.
func checkGlob(p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' {
			if i+1 == len(p) {
				return errors.New(`the pattern ends with \, which escapes nothing`)
			}
			i++
		}
	}
	return nil
}

// matchGlob reports whether s matches the glob pattern p (* any run of
// characters, ? one character, \ escapes).
func matchGlob(p, s string) bool {
	// Backtrack to the last star only: globs with * and ? need no more.
	star, starS := -1, 0
	i, j := 0, 0
	for j < len(s) {
		if i < len(p) {
			switch c := p[i]; c {
			case '*':
				star, starS = i, j
				i++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[j:])
				i, j = i+1, j+n
				continue
			case '\\':
				if i+1 < len(p) && p[i+1] == s[j] {
					i, j = i+2, j+1
					continue
				}
			default:
				if c == s[j] {
					i, j = i+1, j+1
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		i, j = star+1, starS
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

// match returns the index of the first rule that matches r, or -1.
func (f *Filter) match(r *Race) int {
	if f == nil {
		return -1
	}
	for i := range f.rules {
		if f.rules[i].matches(r) {
			return i
		}
	}
	return -1
}

func (fr *filterRule) matches(r *Race) bool {
	for k, p := range fr.keys {
		var v string
		switch k {
		case "kind":
			v = r.Kind.String()
		case "class":
			v = r.Location.Class()
		case "site":
			v = r.Location.Site
		case "field":
			v = r.Location.Field
		case "location":
			v = r.Location.Name
		}
		if !matchGlob(p, v) {
			return false
		}
	}
	a, b := r.First.Context(), r.Second.Context()
	switch len(fr.handlers) {
	case 1:
		return matchGlob(fr.handlers[0], a) || matchGlob(fr.handlers[0], b)
	case 2:
		h0, h1 := fr.handlers[0], fr.handlers[1]
		return matchGlob(h0, a) && matchGlob(h1, b) || matchGlob(h0, b) && matchGlob(h1, a)
	}
	return true
}
