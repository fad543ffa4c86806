package detect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// schema validates JSON values against a JSON Schema (draft 04): the
// keywords the SARIF 2.1.0 schema uses — type, $ref (within the schema),
// properties, required, additionalProperties, items, minItems,
// uniqueItems, enum, minimum, maximum, pattern, format (uri,
// uri-reference, date-time), anyOf, oneOf. Any other keyword that could
// constrain a value is refused, so that nothing is silently unchecked.
type schema struct {
	root     map[string]any
	patterns map[string]*regexp.Regexp
}

// annotations are keywords that constrain nothing.
var annotations = map[string]bool{"$schema": true, "id": true, "title": true, "description": true, "default": true, "definitions": true}

func loadSchema(t *testing.T, path string) *schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	return &schema{root: root, patterns: map[string]*regexp.Regexp{}}
}

// validate returns the ways x breaks schema s (at JSON path at).
func (v *schema) validate(s map[string]any, x any, at string) []string {
	if ref, ok := s["$ref"].(string); ok {
		name, ok := strings.CutPrefix(ref, "#/definitions/")
		target, found := v.root["definitions"].(map[string]any)[name].(map[string]any)
		if !ok || !found {
			return []string{fmt.Sprintf("%s: unresolvable $ref %q", at, ref)}
		}
		return v.validate(target, x, at)
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, args...)) }
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kw := s[k]
		switch k {
		case "type":
			var types []string
			switch tv := kw.(type) {
			case string:
				types = []string{tv}
			case []any:
				for _, e := range tv {
					types = append(types, e.(string))
				}
			}
			if !slices.ContainsFunc(types, func(t string) bool { return hasType(x, t) }) {
				fail("a %s, want %s", typeOf(x), strings.Join(types, " or "))
				return errs // the other keywords would only repeat it
			}
		case "properties":
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			for name, ps := range kw.(map[string]any) {
				if val, ok := obj[name]; ok {
					errs = append(errs, v.validate(ps.(map[string]any), val, at+"."+name)...)
				}
			}
		case "required":
			if obj, ok := x.(map[string]any); ok {
				for _, r := range kw.([]any) {
					if _, ok := obj[r.(string)]; !ok {
						fail("missing required property %q", r)
					}
				}
			}
		case "additionalProperties":
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			props, _ := s["properties"].(map[string]any)
			for name, val := range obj {
				if _, declared := props[name]; declared {
					continue
				}
				switch ap := kw.(type) {
				case bool:
					if !ap {
						fail("property %q is not allowed", name)
					}
				case map[string]any:
					errs = append(errs, v.validate(ap, val, at+"."+name)...)
				}
			}
		case "items":
			if arr, ok := x.([]any); ok {
				for i, e := range arr {
					errs = append(errs, v.validate(kw.(map[string]any), e, fmt.Sprintf("%s[%d]", at, i))...)
				}
			}
		case "minItems":
			if arr, ok := x.([]any); ok && float64(len(arr)) < kw.(float64) {
				fail("%d items, want at least %v", len(arr), kw)
			}
		case "uniqueItems":
			if arr, ok := x.([]any); ok && kw.(bool) {
				seen := map[string]bool{}
				for _, e := range arr {
					b, _ := json.Marshal(e)
					if seen[string(b)] {
						fail("duplicate item %s", b)
					}
					seen[string(b)] = true
				}
			}
		case "enum":
			b, _ := json.Marshal(x)
			if !slices.ContainsFunc(kw.([]any), func(e any) bool { eb, _ := json.Marshal(e); return bytes.Equal(eb, b) }) {
				fail("%s is not one of %v", b, kw)
			}
		case "minimum":
			if f, ok := x.(float64); ok && f < kw.(float64) {
				fail("%v is less than %v", f, kw)
			}
		case "maximum":
			if f, ok := x.(float64); ok && f > kw.(float64) {
				fail("%v is more than %v", f, kw)
			}
		case "pattern":
			str, ok := x.(string)
			if !ok {
				continue
			}
			re := v.patterns[kw.(string)]
			if re == nil {
				var err error
				if re, err = regexp.Compile(kw.(string)); err != nil {
					fail("pattern %q: %v", kw, err)
					continue
				}
				v.patterns[kw.(string)] = re
			}
			if !re.MatchString(str) {
				fail("%q does not match %q", str, kw)
			}
		case "format":
			str, ok := x.(string)
			if !ok {
				continue
			}
			switch kw {
			case "uri":
				if u, err := url.Parse(str); err != nil || !u.IsAbs() {
					fail("%q is not an absolute URI", str)
				}
			case "uri-reference":
				if _, err := url.Parse(str); err != nil {
					fail("%q is not a URI reference", str)
				}
			case "date-time":
				if _, err := time.Parse(time.RFC3339, str); err != nil {
					fail("%q is not a date-time", str)
				}
			default:
				fail("unknown format %q", kw)
			}
		case "anyOf", "oneOf":
			n := 0
			for _, alt := range kw.([]any) {
				if len(v.validate(alt.(map[string]any), x, at)) == 0 {
					n++
				}
			}
			if n == 0 || k == "oneOf" && n > 1 {
				fail("%d of the %s alternatives match", n, k)
			}
		default:
			if !annotations[k] {
				fail("schema keyword %q is not supported by this validator", k)
			}
		}
	}
	return errs
}

func hasType(x any, t string) bool {
	switch t {
	case "integer":
		f, ok := x.(float64)
		return ok && f == float64(int64(f))
	case "number":
		_, ok := x.(float64)
		return ok
	}
	return typeOf(x) == t
}

func typeOf(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// TestSARIFSchema validates the SARIF output against the official SARIF
// 2.1.0 schema (testdata/README.md says where it comes from), and checks
// that the validator rejects logs that break it.
func TestSARIFSchema(t *testing.T) {
	v := loadSchema(t, filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	res, spec := goldenResult(t, nil)
	var b bytes.Buffer
	if err := WriteSARIF(&b, res, spec, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	check := func(data []byte) []string {
		var x any
		if err := json.Unmarshal(data, &x); err != nil {
			t.Fatal(err)
		}
		return v.validate(v.root, x, "$")
	}
	if errs := check(b.Bytes()); len(errs) > 0 {
		t.Errorf("the SARIF log breaks the schema:\n%s", strings.Join(errs, "\n"))
	}
	var empty bytes.Buffer
	if err := WriteSARIF(&empty, &Result{}, spec, "1.2.3"); err != nil {
		t.Fatal(err)
	}
	if errs := check(empty.Bytes()); len(errs) > 0 {
		t.Errorf("an empty SARIF log breaks the schema:\n%s", strings.Join(errs, "\n"))
	}
	// The validator must catch what the schema forbids.
	for _, bad := range []struct{ from, to string }{
		{`"version": "2.1.0"`, `"version": "2.0.0"`},                 // enum
		{`"ruleIndex": 1`, `"ruleIndex": -2`},                        // minimum
		{`"startLine": `, `"startLine": "`},                          // type (string, then broken JSON fixed below)
		{`"$schema": "https://docs.oasis`, `"$schema": "docs.oasis`}, // format uri
		{`"results": [`, `"resultz": [`},                             // additionalProperties
		{`"driver": {`, `"driver": {"extra": 1, `},                   // additionalProperties, nested
	} {
		data := strings.Replace(b.String(), bad.from, bad.to, 1)
		if bad.to == `"startLine": "` {
			data = regexp.MustCompile(`"startLine": "(\d+)`).ReplaceAllString(data, `"startLine": "$1"`)
		}
		if data == b.String() {
			t.Fatalf("mutation %q did not apply", bad.from)
		}
		if errs := check([]byte(data)); len(errs) == 0 {
			t.Errorf("the validator accepts a log with %q replaced by %q", bad.from, bad.to)
		}
	}
}
