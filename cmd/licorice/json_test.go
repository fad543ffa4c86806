package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// documentedVersions reads the table of docs/json.md: the version of each
// first key ("licorice_races" → 1).
func documentedVersions(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile("../../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `licorice [^`]*` \\| `(licorice_[a-z]+)` \\| ([0-9]+) \\|")
	out := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	if len(out) == 0 {
		t.Fatal("docs/json.md: no table of versions")
	}
	return out
}

// firstKey returns the first key of the JSON object doc and its value.
func firstKey(doc []byte) (string, json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", nil, fmt.Errorf("not an object (%v, %v)", tok, err)
	}
	tok, err := dec.Token()
	if err != nil {
		return "", nil, err
	}
	key, _ := tok.(string)
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return "", nil, err
	}
	return key, v, nil
}

// walk calls f for every key of every object in v, with its value.
func walk(v any, f func(key string, val any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			f(k, x)
			walk(x, f)
		}
	case []any:
		for _, x := range v {
			walk(x, f)
		}
	}
}

// valueForm checks a program value as every JSON output writes it: null,
// a boolean, a number, a string, {"ref": ID} or {"unknown": true}.
func valueForm(v any) error {
	switch v := v.(type) {
	case nil, bool, float64:
		return nil
	case string:
		// A string is a string of the program. Values once printed as
		// text ("null", "o3") would land here.
		if v == "null" || regexp.MustCompile(`^o[0-9]+$`).MatchString(v) {
			return fmt.Errorf("%q: a value written as text, not in the trace's form", v)
		}
		return nil
	case map[string]any:
		if len(v) == 1 {
			if id, ok := v["ref"].(string); ok && id != "" {
				return nil
			}
			if v["unknown"] == true {
				return nil
			}
		}
	}
	return fmt.Errorf("%v: not a value in the trace's form", v)
}

// Every JSON output starts with its version key, at the version
// docs/json.md gives; names a trace "trace", never "file"; and writes the
// program's values in the trace's own form.
func TestJSONOutputs(t *testing.T) {
	versions := documentedVersions(t)
	tests := []struct {
		name   string
		args   []string
		key    string
		lines  bool // JSON Lines: the first line is the header
		values bool // has program values to check
	}{
		{"races", []string{"races", "--format", "json", mytracks, mytracks2}, "licorice_races", false, true},
		{"detect", []string{"detect", "--format", "json", "--spec", detectSpec, detectTrace}, "licorice_detect", false, true},
		{"hb pair", []string{"hb", "--format", "json", hbChain, "D", "E"}, "licorice_hb", false, false},
		{"hb all pairs", []string{"hb", hbChain}, "licorice_hb", true, false},
		{"traces stat", []string{"traces", "stat", "--format", "json", mytracks}, "licorice_stat", false, false},
		{"compare droidracer", []string{"compare", "droidracer", "--format", "json", remindMe}, "licorice_compare", false, false},
		{"eval", []string{"eval", "--app", "eventracer", "--train-runs", "4", "--train-actions", "100", "--test-runs", "1", "--test-actions", "100", "--format", "json"}, "licorice_eval", false, false},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errs, code := runCLI(t, nil, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			doc := []byte(out)
			if tt.lines {
				doc, _, _ = bytes.Cut(doc, []byte("\n"))
				sc := bufio.NewScanner(strings.NewReader(out))
				for sc.Scan() {
					if !json.Valid(sc.Bytes()) {
						t.Fatalf("not a JSON line: %s", sc.Text())
					}
				}
			}
			key, val, err := firstKey(doc)
			if err != nil {
				t.Fatalf("%v:\n%.300s", err, out)
			}
			seen[key] = true
			if key != tt.key || string(val) != strconv.Itoa(versions[tt.key]) {
				t.Errorf("first key %q: %s; want %q: %d (docs/json.md)", key, val, tt.key, versions[tt.key])
			}
			var v any
			if err := json.Unmarshal(doc, &v); err != nil {
				t.Fatal(err)
			}
			traceKeys, values := 0, 0
			walk(v, func(k string, x any) {
				switch k {
				case "file":
					t.Errorf(`key "file": a trace is named "trace" in every JSON output`)
				case "trace":
					traceKeys++
				case "value":
					values++
					if err := valueForm(x); err != nil {
						t.Errorf("%s: %v", k, err)
					}
				case "values", "before", "after":
					xs, ok := x.([]any)
					if !ok {
						t.Errorf("%s: %v is not a list of values", k, x)
						return
					}
					for _, e := range xs {
						values++
						if err := valueForm(e); err != nil {
							t.Errorf("%s: %v", k, err)
						}
					}
				}
			})
			if tt.key != "licorice_eval" && tt.key != "licorice_compare" && traceKeys == 0 {
				t.Errorf(`no "trace" key: which trace is this about?`)
			}
			if tt.values && values == 0 {
				t.Errorf("no program value to check: the test's input should have some")
			}
		})
	}
	for key := range versions {
		if !seen[key] {
			t.Errorf("docs/json.md lists %s, which no case here checks", key)
		}
	}
}
