package traces

import "math"

// ValueKind is the form of a [Value].
type ValueKind uint8

const (
	NoValue     ValueKind = iota // absent: the access's value was not recorded
	NullValue                    // the null pointer
	RefValue                     // a pointer to an object
	IntValue                     // an int64
	FloatValue                   // a float64
	BoolValue                    // true or false
	StringValue                  // a string
)

var valueKindNames = [...]string{
	NoValue: "none", NullValue: "null", RefValue: "ref", IntValue: "int",
	FloatValue: "float", BoolValue: "bool", StringValue: "string",
}

func (k ValueKind) String() string {
	if int(k) < len(valueKindNames) {
		return valueKindNames[k]
	}
	return "invalid"
}

// Value is a value read or written by a heap access: a small tagged union
// that holds no pointers. References and strings hold a [Sym] of the trace's
// [Symbols]. The zero Value is absent ([NoValue]). Values are comparable
// with ==, which is exact identity (0.0 and -0.0 differ).
type Value struct {
	kind ValueKind
	bits uint64
}

// Null returns the null pointer.
func Null() Value { return Value{kind: NullValue} }

// Ref returns a pointer to the object with id obj.
func Ref(obj Sym) Value { return Value{kind: RefValue, bits: uint64(obj)} }

// Int returns an integer value.
func Int(v int64) Value { return Value{kind: IntValue, bits: uint64(v)} }

// Float returns a floating-point value.
func Float(v float64) Value { return Value{kind: FloatValue, bits: math.Float64bits(v)} }

// Bool returns a boolean value.
func Bool(v bool) Value {
	if v {
		return Value{kind: BoolValue, bits: 1}
	}
	return Value{kind: BoolValue}
}

// String returns a string value whose contents are s.
func String(s Sym) Value { return Value{kind: StringValue, bits: uint64(s)} }

// Kind returns the form of v.
func (v Value) Kind() ValueKind { return v.kind }

// IsAbsent reports whether no value was recorded.
func (v Value) IsAbsent() bool { return v.kind == NoValue }

// IsPointer reports whether v is null or a reference.
func (v Value) IsPointer() bool { return v.kind == NullValue || v.kind == RefValue }

// IsNumber reports whether v is an int or a float.
func (v Value) IsNumber() bool { return v.kind == IntValue || v.kind == FloatValue }

// Int returns the integer of an IntValue (0 for other kinds).
func (v Value) Int() int64 {
	if v.kind != IntValue {
		return 0
	}
	return int64(v.bits)
}

// Float returns the number of a FloatValue or IntValue as a float64.
func (v Value) Float() float64 {
	switch v.kind {
	case FloatValue:
		return math.Float64frombits(v.bits)
	case IntValue:
		return float64(int64(v.bits))
	}
	return 0
}

// Bool returns the boolean of a BoolValue (false for other kinds).
func (v Value) Bool() bool { return v.kind == BoolValue && v.bits != 0 }

// Sym returns the object of a RefValue or the contents of a StringValue.
func (v Value) Sym() Sym {
	if v.kind == RefValue || v.kind == StringValue {
		return Sym(v.bits)
	}
	return NoSym
}
