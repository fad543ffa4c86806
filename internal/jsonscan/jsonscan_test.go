package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// walk checks the value at start inside depth containers by descending
// into every object and array through the callbacks, as a reader that
// looks inside does: it must accept what Valid accepts.
func walk(data []byte, start, depth int) (int, error) {
	start = SkipSpace(data, start)
	if start < len(data) {
		switch data[start] {
		case '{':
			return ObjectAt(data, start, depth, func(_ string, s, d int) (int, error) { return walk(data, s, d) })
		case '[':
			return ArrayAt(data, start, depth, func(s, d int) (int, error) { return walk(data, s, d) })
		}
	}
	return ValueAt(data, start, depth)
}

func walkValid(data []byte) bool {
	end, err := walk(data, 0, 0)
	return err == nil && SkipSpace(data, end) == len(data)
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`0`, true},
		{` -0.5e+10 `, true},
		{`1E2`, true},
		{`01`, false},
		{`-`, false},
		{`1.`, false},
		{`1e`, false},
		{`.5`, false},
		{`"a\"b\\c\/\b\f\n\r\t\u00e9"`, true},
		{`"\x"`, false},
		{`"\u12g4"`, false},
		{"\"a\tb\"", false},
		{`"unterminated`, false},
		{"\"\xff\xfe\"", true},
		{`true`, true},
		{`tru`, false},
		{`nul`, false},
		{`{}`, true},
		{`{"a":1,"b":[1,2,{"c":null}]}`, true},
		{`{"a":1,}`, false},
		{`{"a" 1}`, false},
		{`{a:1}`, false},
		{`[1,2,]`, false},
		{`[1 2]`, false},
		{`[`, false},
		{`[] []`, false},
		{``, false},
		{` `, false},
		{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), true},
		{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), false},
		{strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth), true},
		{strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), false},
		{strings.Repeat(`{"a":[`, MaxDepth/2) + "1" + strings.Repeat("]}", MaxDepth/2), true},
		{strings.Repeat(`{"a":[`, MaxDepth/2) + "[1]" + strings.Repeat("]}", MaxDepth/2), false},
	} {
		if got := Valid([]byte(tc.in)); got != tc.want {
			t.Errorf("Valid(%.40q) = %v, want %v", tc.in, got, tc.want)
		}
		if got := walkValid([]byte(tc.in)); got != tc.want {
			t.Errorf("walking %.40q: valid %v, want %v", tc.in, got, tc.want)
		}
		if std := json.Valid([]byte(tc.in)); std != tc.want {
			t.Errorf("the table is wrong: json.Valid(%.40q) = %v", tc.in, std)
		}
	}
}

func TestValueEnd(t *testing.T) {
	data := []byte(`  {"a": [1, "x]"]}  , 7`)
	end, err := Value(data, 0)
	if err != nil || string(data[:end]) != `  {"a": [1, "x]"]}` {
		t.Fatalf("Value = %d, %v", end, err)
	}
	_, err = Value([]byte(`[1, x]`), 0)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 4 {
		t.Fatalf("error %v, want a SyntaxError at offset 4", err)
	}
}

func TestObjectMembers(t *testing.T) {
	data := []byte(`{"a": 1, "b\u00e9" : {"c": [2]}, "": "s", "a": null}`)
	var keys, vals []string
	end, err := Object(data, 0, func(key string, start, depth int) (int, error) {
		end, err := ValueAt(data, start, depth)
		keys = append(keys, key)
		vals = append(vals, string(data[start:end]))
		return end, err
	})
	if err != nil || end != len(data) {
		t.Fatalf("Object = %d, %v", end, err)
	}
	if want := []string{"a", "bé", "", "a"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if want := []string{"1", `{"c": [2]}`, `"s"`, "null"}; !reflect.DeepEqual(vals, want) {
		t.Errorf("values %q, want %q", vals, want)
	}
	stop := errors.New("stop")
	if _, err := Object(data, 0, func(string, int, int) (int, error) { return 0, stop }); err != stop {
		t.Errorf("the function's error: %v", err)
	}
	if _, err := Object([]byte(`[1]`), 0, nil); err == nil {
		t.Error("an array taken for an object")
	}
}

func TestArrayElements(t *testing.T) {
	data := []byte(`[ 1 , {"a":[]}, "x" ]`)
	var got []string
	if _, err := Array(data, 0, func(start, depth int) (int, error) {
		end, err := ValueAt(data, start, depth)
		got = append(got, string(data[start:end]))
		return end, err
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", `{"a":[]}`, `"x"`}; !reflect.DeepEqual(got, want) {
		t.Errorf("elements %q, want %q", got, want)
	}
	if _, err := Array([]byte(`{}`), 0, nil); err == nil {
		t.Error("an object taken for an array")
	}
}

// FuzzValue checks Valid against encoding/json's, and an object's members
// against what encoding/json's decoder reads.
func FuzzValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"x\u0041"],"b":{"c":null}}`, `[true,false]`, `"\ud800"`, `-0`, `{"\u00e9":1}`, "{\"\xff\":2}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		if got := Valid(data); got != valid {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, valid)
		}
		if got := walkValid(data); got != valid {
			t.Fatalf("walking %q: valid %v, encoding/json says %v", data, got, valid)
		}
		if !valid {
			return
		}
		start := SkipSpace(data, 0)
		if data[start] != '{' {
			return
		}
		var keys []string
		var vals []json.RawMessage
		if _, err := Object(data, 0, func(key string, s, depth int) (int, error) {
			e, err := ValueAt(data, s, depth)
			if err != nil {
				return e, err
			}
			keys = append(keys, key)
			vals = append(vals, data[s:e])
			return e, nil
		}); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.Token()
		for i := 0; dec.More(); i++ {
			k, _ := dec.Token()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if k != keys[i] || !bytes.Equal(bytes.TrimSpace(v), vals[i]) {
				t.Fatalf("member %d: %q: %s, encoding/json reads %q: %s", i, keys[i], vals[i], k, v)
			}
		}
	})
}
