package invariants

import (
	"math"
	"strconv"
	"strings"
)

// Condition is a template instantiated on named data with fitted
// constants: `this.dataHub != null`, `0 <= S#1.index <= 9`, `x < y`.
type Condition struct {
	Template *Template
	// Vars are the data's names, in the template's operand order (x, y).
	Vars []string
	// A and B are the fitted constants a and b, where the template has
	// them (absent otherwise: a user "bounds" condition with one side has
	// only one); Set is a fitted one-of set.
	A, B Value
	Set  []Value
	// Pairs is a fitted pair one-of set, sorted.
	Pairs []Point
	// Support is the number of samples the condition was checked on.
	Support int64
	// Chance is the probability that the condition held on those samples
	// only by chance; it is justified when Chance is at most the limit.
	Chance float64
	// Guard, if set, names a datum the handler tests as a condition: the
	// condition is an implication, "Guard ==> condition", learned from the
	// samples in which the guard was true (Daikon's implications). It
	// holds when the guard is false.
	Guard string
}

// Text returns the condition in canonical form, with the data's names:
// "this.dataHub != null", "0 <= x <= 9", "y == 2*x + 1", and for an
// implication "this.active ==> this.buffer != null".
func (c *Condition) Text() string {
	if c.Guard != "" {
		return c.Guard + " ==> " + c.body()
	}
	return c.body()
}

// body is the text of the condition without its guard.
func (c *Condition) body() string {
	x := c.Vars[0]
	y := ""
	if len(c.Vars) > 1 {
		y = c.Vars[1]
	}
	switch c.Template.builtin {
	case bNull:
		return x + " == null"
	case bNonNull:
		return x + " != null"
	case bConst:
		return x + " == " + c.A.String()
	case bOneOf:
		return x + " in " + setText(c.Set)
	case bRange:
		return c.A.String() + " <= " + x + " <= " + c.B.String()
	case bLower:
		return x + " >= " + c.A.String()
	case bUpper:
		return x + " <= " + c.B.String()
	case bNonZero:
		return x + " != 0"
	case bEq:
		return x + " == " + y
	case bNe:
		return x + " != " + y
	case bLt:
		return x + " < " + y
	case bLe:
		return x + " <= " + y
	case bLinear:
		return y + " == " + linearText(c.A.Float(), x, c.B.Float())
	case bDivides:
		return x + " % " + y + " == 0"
	case bSquare:
		return y + " == " + x + "*" + x
	case bDisjoint:
		return x + " & " + y + " == 0"
	case bSubset:
		return x + " & " + y + " == " + x
	case bPairs:
		return "(" + x + ", " + y + ") in " + pairsText(c.Pairs)
	}
	return c.userText(x, y)
}

func (c *Condition) userText(x, y string) string {
	u := c.Template.user
	e := u.text(x, y)
	switch u.fitter {
	case fitConst:
		return e + " == " + c.A.String()
	case fitOneOf:
		if len(c.Set) == 1 {
			return e + " == " + c.Set[0].String()
		}
		return e + " in " + setText(c.Set)
	case fitBounds:
		switch {
		case c.A.kind != Absent && c.B.kind != Absent:
			return c.A.String() + " <= " + e + " <= " + c.B.String()
		case c.A.kind != Absent:
			return e + " >= " + c.A.String()
		default:
			return e + " <= " + c.B.String()
		}
	case fitNonZero:
		return e + " != 0"
	}
	return e
}

func setText(set []Value) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range set {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.String())
	}
	b.WriteByte('}')
	return b.String()
}

func pairsText(set []Point) string {
	parts := make([]string, len(set))
	for i, p := range set {
		parts[i] = "(" + p.X.String() + ", " + p.Y.String() + ")"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// linearText writes a*x + b readably: "x", "-x + 3", "2*x - 1", "0.5*x".
func linearText(a float64, x string, b float64) string {
	var s string
	switch a {
	case 1:
		s = x
	case -1:
		s = "-" + x
	default:
		s = coef(a) + "*" + x
	}
	switch {
	case b > 0:
		s += " + " + coef(b)
	case b < 0:
		s += " - " + coef(-b)
	}
	return s
}

// coef formats a fitted coefficient: integers without a fraction.
func coef(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Eval evaluates the condition on the data's values, given in the order
// of Vars, then the guard's if it has one. ok is false if it cannot be
// decided: a value is absent, or a user expression fails on these values.
// A value of a type the template does not apply to makes the condition
// false. An implication whose guard is false holds.
func (c *Condition) Eval(vals []Value) (holds, ok bool) {
	if c.Guard != "" {
		if len(vals) != len(c.Vars)+1 {
			return false, false
		}
		g := vals[len(vals)-1]
		if g.kind == Absent {
			return false, false
		}
		if !Truthy(g) {
			return true, true
		}
		vals = vals[:len(vals)-1]
	}
	if len(vals) != len(c.Vars) {
		return false, false
	}
	for _, v := range vals {
		if v.kind == Absent {
			return false, false
		}
	}
	x := vals[0]
	var y Value
	if len(vals) > 1 {
		y = vals[1]
	}
	switch c.Template.builtin {
	case bNull:
		return x.kind == Null, true
	case bNonNull:
		return x.kind == Ref || x.kind == String, true
	case bConst:
		return Equal(x, c.A), true
	case bOneOf:
		return inSet(x, c.Set), true
	case bRange:
		return atLeast(x, c.A) && atMost(x, c.B), true
	case bLower:
		return atLeast(x, c.A), true
	case bUpper:
		return atMost(x, c.B), true
	case bNonZero:
		return x.IsNumber() && !x.IsNaN() && x.Float() != 0, true
	case bEq:
		return Equal(x, y), true
	case bNe:
		return x.class() == y.class() && !x.IsNaN() && !y.IsNaN() && !Equal(x, y), true
	case bLt:
		r, ok := cmpNumbers(x, y)
		return ok && r < 0, true
	case bLe:
		r, ok := cmpNumbers(x, y)
		return ok && r <= 0, true
	case bLinear:
		return x.IsNumber() && y.IsNumber() && near(c.A.Float()*x.Float()+c.B.Float(), y.Float()), true
	case bDivides:
		return x.kind == Int && y.kind == Int && dividesHolds(x.Int(), y.Int()), true
	case bSquare:
		return x.IsNumber() && y.IsNumber() && squareHolds(x, y), true
	case bDisjoint:
		return x.kind == Int && y.kind == Int && x.Int()&y.Int() == 0, true
	case bSubset:
		return x.kind == Int && y.kind == Int && x.Int()&y.Int() == x.Int(), true
	case bPairs:
		for _, p := range c.Pairs {
			if Equal(x, p.X) && Equal(y, p.Y) {
				return true, true
			}
		}
		return false, true
	}
	return c.evalUser(x, y)
}

// Holds reports whether the condition holds on the values (false when it
// cannot be decided).
func (c *Condition) Holds(vals []Value) bool {
	h, ok := c.Eval(vals)
	return h && ok
}

func (c *Condition) evalUser(x, y Value) (bool, bool) {
	u := c.Template.user
	v, st := u.eval(x, y)
	switch st {
	case evalMismatch:
		return false, true
	case evalError:
		return false, false
	}
	switch u.fitter {
	case fitConst:
		return Equal(v, c.A), true
	case fitOneOf:
		return inSet(v, c.Set), true
	case fitBounds:
		return (c.A.kind == Absent || atLeast(v, c.A)) && (c.B.kind == Absent || atMost(v, c.B)), true
	case fitNonZero:
		return v.IsNumber() && !v.IsNaN() && v.Float() != 0, true
	}
	return v.Bool(), true
}

func inSet(v Value, set []Value) bool {
	for _, s := range set {
		if Equal(v, s) {
			return true
		}
	}
	return false
}

func cmpNumbers(x, y Value) (int, bool) {
	if !x.IsNumber() || !y.IsNumber() {
		return 0, false
	}
	return cmpNum(x, y)
}

func atLeast(v, lo Value) bool {
	c, ok := cmpNumbers(v, lo)
	return ok && c >= 0
}

func atMost(v, hi Value) bool {
	c, ok := cmpNumbers(v, hi)
	return ok && c <= 0
}

// Truthy reports whether a tested value counts as true: true, a
// reference, a number other than 0 (and NaN), a non-empty string; not
// false, null, 0 or "" (a test in Java, or JavaScript's truthiness).
func Truthy(v Value) bool {
	switch v.kind {
	case Bool:
		return v.Bool()
	case Ref:
		return true
	case Int, Float:
		return !v.IsNaN() && v.Float() != 0
	case String:
		return v.Str() != ""
	}
	return false
}
