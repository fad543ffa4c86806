package invariants

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

func TestValueJSON(t *testing.T) {
	tests := []struct {
		v    Value
		json string
	}{
		{NullValue(), "null"},
		{IntValue(-42), "-42"},
		{IntValue(math.MaxInt64), "9223372036854775807"},
		{FloatValue(2), "2.0"},
		{FloatValue(math.Copysign(0, -1)), "-0.0"},
		{FloatValue(1e21), "1e+21"},
		{FloatValue(0.1), "0.1"},
		{FloatValue(math.NaN()), `{"float":"NaN"}`},
		{FloatValue(math.Inf(-1)), `{"float":"-Inf"}`},
		{BoolValue(true), "true"},
		{StringValue("a\"b\n"), `"a\"b\n"`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.json {
			t.Errorf("marshal %v = %s, %v; want %s", tc.v, b, err, tc.json)
			continue
		}
		var back Value
		if err := json.Unmarshal(b, &back); err != nil || Compare(back, tc.v) != 0 || back.Kind() != tc.v.Kind() {
			t.Errorf("round trip of %s: %v, %v", b, back, err)
		}
	}
	if _, err := json.Marshal(RefValue(3)); err == nil {
		t.Error("a reference has a JSON form")
	}
	for _, bad := range []string{`1.2.3`, `{"float":"Infinity"}`, `tru`, `99999999999999999999`, `[]`} {
		var v Value
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s read as %v", bad, v)
		}
	}
}

func TestCompareIsATotalOrder(t *testing.T) {
	vals := []Value{{}, NullValue(), RefValue(1), RefValue(2), BoolValue(false), BoolValue(true),
		IntValue(-1), FloatValue(-0.5), IntValue(0), FloatValue(0), FloatValue(math.Copysign(0, -1)),
		IntValue(1), FloatValue(1), FloatValue(math.Inf(1)), FloatValue(math.NaN()),
		StringValue(""), StringValue("a"), StringValue("b")}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		a, b, c := vals[r.IntN(len(vals))], vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]
		if Compare(a, b) != -Compare(b, a) {
			t.Fatalf("antisymmetry: %v %v", a, b)
		}
		if Compare(a, b) <= 0 && Compare(b, c) <= 0 && Compare(a, c) > 0 {
			t.Fatalf("transitivity: %v %v %v", a, b, c)
		}
		if Compare(a, b) == 0 && a != b {
			t.Fatalf("distinct values compare equal: %#v %#v", a, b)
		}
	}
	sorted := slices.Clone(vals)
	slices.SortFunc(sorted, Compare)
	if !slices.Equal(sorted, vals) {
		t.Errorf("order: %v", sorted)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b Value
		want bool
	}{
		{IntValue(1), FloatValue(1), true},
		{FloatValue(math.NaN()), FloatValue(math.NaN()), false},
		{RefValue(1), RefValue(1), true},
		{RefValue(1), RefValue(2), false},
		{NullValue(), NullValue(), true},
		{NullValue(), StringValue(""), false},
		{StringValue("a"), StringValue("a"), true},
		{BoolValue(true), IntValue(1), false},
		{Value{}, Value{}, false},
	}
	for _, tc := range tests {
		if got := Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

func TestFromTrace(t *testing.T) {
	syms := traces.NewSymbols()
	o, s := syms.Intern("o7"), syms.Intern("hello")
	tests := []struct {
		in   traces.Value
		want Value
	}{
		{traces.Null(), NullValue()},
		{traces.Ref(o), RefValue(uint64(o))},
		{traces.Int(-3), IntValue(-3)},
		{traces.Float(0.5), FloatValue(0.5)},
		{traces.Bool(true), BoolValue(true)},
		{traces.String(s), StringValue("hello")},
		{traces.Value{}, Value{}},
	}
	for _, tc := range tests {
		if got := FromTrace(tc.in, syms); got != tc.want {
			t.Errorf("FromTrace(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
