package invariants

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/traces"
)

// Kind is the form of a [Value].
type Kind uint8

const (
	Absent Kind = iota // no value: the datum was not observed
	Null               // the null pointer
	Ref                // a pointer to an object, compared by identity only
	Int                // an int64
	Float              // a float64
	Bool               // true or false
	String             // a string
)

var kindNames = [...]string{Absent: "absent", Null: "null", Ref: "ref", Int: "int", Float: "float", Bool: "bool", String: "string"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Value is one observed value of a datum. Unlike [traces.Value] it carries
// the contents of strings, so values compare across traces and symbol
// tables. A Ref carries an object identity that is meaningful only within
// one sample (two pointers to the same object have the same identity);
// conditions never fit constants to references.
type Value struct {
	kind Kind
	bits uint64
	str  string
}

// NullValue returns the null pointer.
func NullValue() Value { return Value{kind: Null} }

// RefValue returns a pointer to the object with identity id.
func RefValue(id uint64) Value { return Value{kind: Ref, bits: id} }

// IntValue returns an integer.
func IntValue(v int64) Value { return Value{kind: Int, bits: uint64(v)} }

// FloatValue returns a floating-point number. Every NaN is the same NaN.
func FloatValue(v float64) Value {
	if v != v {
		v = math.NaN()
	}
	return Value{kind: Float, bits: math.Float64bits(v)}
}

// BoolValue returns a boolean.
func BoolValue(v bool) Value {
	if v {
		return Value{kind: Bool, bits: 1}
	}
	return Value{kind: Bool}
}

// StringValue returns a string.
func StringValue(s string) Value { return Value{kind: String, str: s} }

// FromTrace converts a trace value; syms is the table its references and
// strings were interned in. A reference's identity is its object's Sym.
func FromTrace(v traces.Value, syms *traces.Symbols) Value {
	switch v.Kind() {
	case traces.NullValue:
		return NullValue()
	case traces.RefValue:
		return RefValue(uint64(v.Sym()))
	case traces.IntValue:
		return IntValue(v.Int())
	case traces.FloatValue:
		return FloatValue(v.Float())
	case traces.BoolValue:
		return BoolValue(v.Bool())
	case traces.StringValue:
		return StringValue(syms.String(v.Sym()))
	}
	return Value{}
}

// Kind returns the form of v.
func (v Value) Kind() Kind { return v.kind }

// IsNumber reports whether v is an int or a float.
func (v Value) IsNumber() bool { return v.kind == Int || v.kind == Float }

// IsNaN reports whether v is a float NaN.
func (v Value) IsNaN() bool { return v.kind == Float && math.IsNaN(v.Float()) }

// Int returns the integer of an Int (0 otherwise).
func (v Value) Int() int64 {
	if v.kind != Int {
		return 0
	}
	return int64(v.bits)
}

// Float returns the number of a Float or Int as a float64 (0 otherwise).
func (v Value) Float() float64 {
	switch v.kind {
	case Float:
		return math.Float64frombits(v.bits)
	case Int:
		return float64(int64(v.bits))
	}
	return 0
}

// Bool returns the boolean of a Bool (false otherwise).
func (v Value) Bool() bool { return v.kind == Bool && v.bits != 0 }

// Str returns the contents of a String ("" otherwise).
func (v Value) Str() string { return v.str }

// RefID returns the identity of a Ref (0 otherwise).
func (v Value) RefID() uint64 {
	if v.kind != Ref {
		return 0
	}
	return v.bits
}

// class groups kinds whose values can be compared for equality: pointers
// (null, references, strings: Java strings are references too), numbers,
// booleans.
type class uint8

const (
	classNone class = iota
	classPointer
	classNumber
	classBool
)

func (v Value) class() class {
	switch v.kind {
	case Null, Ref, String:
		return classPointer
	case Int, Float:
		return classNumber
	case Bool:
		return classBool
	}
	return classNone
}

// Equal reports whether a and b are the same value as a condition sees it:
// numbers numerically (1 == 1.0; NaN equals nothing), pointers by identity,
// strings by contents. Values of different classes are never equal.
func Equal(a, b Value) bool {
	switch {
	case a.IsNumber() && b.IsNumber():
		if a.kind == Int && b.kind == Int {
			return a.bits == b.bits
		}
		return a.Float() == b.Float()
	case a.kind != b.kind:
		return false
	case a.kind == String:
		return a.str == b.str
	case a.kind == Absent:
		return false
	}
	return a.bits == b.bits
}

// cmpNum compares two numbers: -1, 0, +1; ok is false if either is NaN.
func cmpNum(a, b Value) (c int, ok bool) {
	if a.kind == Int && b.kind == Int {
		x, y := int64(a.bits), int64(b.bits)
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	x, y := a.Float(), b.Float()
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	case x == y:
		return 0, true
	}
	return 0, false
}

// Compare is a total order on values used to keep canonical sets: by kind
// group (absent, null, ref, bool, number, string), numbers numerically with
// ties broken int before float and then by bits (so 0 and -0.0 differ and
// NaN sorts last), strings by bytes.
func Compare(a, b Value) int {
	ra, rb := rank(a.kind), rank(b.kind)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch a.kind {
	case Int, Float:
		an, bn := a.IsNaN(), b.IsNaN()
		switch {
		case an && bn:
			return cmp.Compare(a.bits, b.bits)
		case an:
			return 1
		case bn:
			return -1
		}
		if c, _ := cmpNum(a, b); c != 0 {
			return c
		}
		if a.kind != b.kind {
			return cmp.Compare(int(a.kind), int(b.kind))
		}
		return cmp.Compare(a.bits, b.bits)
	case String:
		return strings.Compare(a.str, b.str)
	}
	return cmp.Compare(a.bits, b.bits)
}

func rank(k Kind) int {
	switch k {
	case Int, Float:
		return 4
	case String:
		return 5
	case Bool:
		return 3
	}
	return int(k) // Absent 0, Null 1, Ref 2
}

// String formats v as it appears in a condition's text: null, 42, 1.5,
// true, "text" (quoted), &17 for a reference.
func (v Value) String() string { return string(v.appendText(nil)) }

func (v Value) appendText(b []byte) []byte {
	switch v.kind {
	case Null:
		return append(b, "null"...)
	case Ref:
		return strconv.AppendUint(append(b, '&'), v.bits, 10)
	case Int:
		return strconv.AppendInt(b, int64(v.bits), 10)
	case Float:
		return appendFloat(b, v.Float())
	case Bool:
		return strconv.AppendBool(b, v.bits != 0)
	case String:
		return strconv.AppendQuote(b, v.str)
	}
	return append(b, "absent"...)
}

// appendFloat writes f so that it reads back as a float: 2.0, not 2.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	if !bytes.ContainsAny(b[n:], ".eE") {
		b = append(b, ".0"...)
	}
	return b
}

// MarshalJSON writes v in the spec's value form: null, an integer, a
// number with a fraction or exponent for floats (1.0, not 1), true/false,
// a string, and {"float":"NaN"|"+Inf"|"-Inf"} for floats JSON cannot spell.
// References have no JSON form: they are never stored.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.kind {
	case Null:
		return []byte("null"), nil
	case Int:
		return strconv.AppendInt(nil, int64(v.bits), 10), nil
	case Float:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return []byte(`{"float":"` + string(appendFloat(nil, f)) + `"}`), nil
		}
		return appendFloat(nil, f), nil
	case Bool:
		return strconv.AppendBool(nil, v.bits != 0), nil
	case String:
		return json.Marshal(v.str)
	}
	return nil, fmt.Errorf("invariants: a %s value has no JSON form", v.kind)
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("empty value")
	}
	switch b[0] {
	case 'n':
		if string(b) != "null" {
			break
		}
		*v = NullValue()
		return nil
	case 't', 'f':
		switch string(b) {
		case "true":
			*v = BoolValue(true)
			return nil
		case "false":
			*v = BoolValue(false)
			return nil
		}
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = StringValue(s)
		return nil
	case '{':
		var sp struct {
			Float string `json:"float"`
		}
		if err := json.Unmarshal(b, &sp); err != nil {
			return err
		}
		switch sp.Float {
		case "NaN":
			*v = FloatValue(math.NaN())
		case "+Inf":
			*v = FloatValue(math.Inf(1))
		case "-Inf":
			*v = FloatValue(math.Inf(-1))
		default:
			return fmt.Errorf("bad special float %q (want NaN, +Inf or -Inf)", sp.Float)
		}
		return nil
	default:
		s := string(b)
		if !strings.ContainsAny(s, ".eE") {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("bad integer %s", s)
			}
			*v = IntValue(n)
			return nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("bad number %s", s)
		}
		*v = FloatValue(f)
		return nil
	}
	return fmt.Errorf("bad value %s", b)
}
