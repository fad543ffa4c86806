package invariants

import (
	"fmt"
	"strings"
)

// TypeSet is a set of operand types a template applies to.
type TypeSet uint8

// The operand types. A value's type is its kind, except that null and
// references are both TypePointer.
const (
	TypePointer TypeSet = 1 << iota // null or a reference
	TypeInt
	TypeFloat
	TypeBool
	TypeString

	TypeNumber = TypeInt | TypeFloat
	TypeAny    = TypePointer | TypeNumber | TypeBool | TypeString
)

var typeNames = []struct {
	t    TypeSet
	name string
}{
	{TypePointer, "pointer"}, {TypeInt, "int"}, {TypeFloat, "float"}, {TypeBool, "bool"}, {TypeString, "string"},
}

// ParseType returns the type named s: pointer, int, float, number (int or
// float), bool, string, or any.
func ParseType(s string) (TypeSet, error) {
	switch s {
	case "number":
		return TypeNumber, nil
	case "any":
		return TypeAny, nil
	}
	for _, tn := range typeNames {
		if tn.name == s {
			return tn.t, nil
		}
	}
	return 0, fmt.Errorf("unknown type %q (want pointer, int, float, number, bool, string or any)", s)
}

// String lists the types: "int|float".
func (t TypeSet) String() string {
	var parts []string
	for _, tn := range typeNames {
		if t&tn.t != 0 {
			parts = append(parts, tn.name)
		}
	}
	return strings.Join(parts, "|")
}

// typeOf returns the type of a value (0 if absent).
func typeOf(v Value) TypeSet {
	switch v.kind {
	case Null, Ref:
		return TypePointer
	case Int:
		return TypeInt
	case Float:
		return TypeFloat
	case Bool:
		return TypeBool
	case String:
		return TypeString
	}
	return 0
}

// builtin identifies a built-in template.
type builtin uint8

const (
	userDefined builtin = iota
	bNull
	bNonNull
	bConst
	bOneOf
	bRange
	bLower
	bUpper
	bNonZero
	bEq
	bNe
	bLt
	bLe
	bLinear
	bDivides
	bSquare
	bDisjoint
	bSubset
	bPairs
)

// Template is a kind of atomic condition: its arity, the operand types it
// applies to, its constants and how they are fitted, and how it is
// justified. Built-in and user templates share this type; a [Catalog]
// holds both.
type Template struct {
	Name  string  // unique in a catalog: "nonnull", "lt", or a user template's name
	Arity int     // 1 (over x) or 2 (over x and y)
	Types TypeSet // the operand types it applies to
	// Form is the condition with its operands and constants as names:
	// "a <= x <= b".
	Form string
	// Fitter says how the constants are fitted: "none", "const",
	// "oneof", "bounds", "nonzero" (the families user templates may use),
	// or a built-in's own ("line", "counts", ...).
	Fitter string
	// Chance is the probability that the condition holds only by chance,
	// as a formula; a condition is justified when it is at most the limit.
	Chance string
	Doc    string // one line

	builtin builtin
	user    *UserTemplate
}

// Builtin reports whether t is one of licorice's own templates.
func (t *Template) Builtin() bool { return t.builtin != userDefined }

// builtins is the catalog of thesis §5.3.1 plus boolean and string
// equality and one-of. Order matters: it is the order of `templates list`
// and of the summary's kinds.
var builtins = []Template{
	{Name: "null", builtin: bNull, Arity: 1, Types: TypePointer | TypeString, Form: "x == null", Fitter: "counts",
		Chance: "(1/3)^n", Doc: "the pointer is null"},
	{Name: "nonnull", builtin: bNonNull, Arity: 1, Types: TypePointer | TypeString, Form: "x != null", Fitter: "counts",
		Chance: "(2/3)^n; 0 if the handler dereferenced it in every sample", Doc: "the pointer is not null"},
	{Name: "const", builtin: bConst, Arity: 1, Types: TypeNumber | TypeBool | TypeString, Form: "x == a", Fitter: "const",
		Chance: "(1/2)^n", Doc: "the value is always a"},
	{Name: "oneof", builtin: bOneOf, Arity: 1, Types: TypeNumber | TypeString, Form: "x in {a, b, c}", Fitter: "oneof",
		Chance: "(k/(k+1))^n for k values", Doc: "the value is one of two or three values"},
	{Name: "range", builtin: bRange, Arity: 1, Types: TypeNumber, Form: "a <= x <= b", Fitter: "bounds",
		Chance: "max((1/2)^r_a, (1/2)^r_b), r_a, r_b: runs that reached each bound", Doc: "the value lies between two bounds"},
	{Name: "lower", builtin: bLower, Arity: 1, Types: TypeNumber, Form: "x >= a", Fitter: "bounds",
		Chance: "(1/2)^r_a, r_a: runs that reached the bound", Doc: "the value is at least a"},
	{Name: "upper", builtin: bUpper, Arity: 1, Types: TypeNumber, Form: "x <= b", Fitter: "bounds",
		Chance: "(1/2)^r_b, r_b: runs that reached the bound", Doc: "the value is at most b"},
	{Name: "nonzero", builtin: bNonZero, Arity: 1, Types: TypeNumber, Form: "x != 0", Fitter: "nonzero",
		Chance: "(1-1/r)^n, r = min(span of values and 0, 50); 50 for floats", Doc: "the number is not zero"},
	{Name: "eq", builtin: bEq, Arity: 2, Types: TypeAny, Form: "x == y", Fitter: "counts",
		Chance: "(1/2)^n", Doc: "the two are equal (pointers: the same object)"},
	{Name: "ne", builtin: bNe, Arity: 2, Types: TypeAny, Form: "x != y", Fitter: "counts",
		Chance: "(1/2)^n", Doc: "the two differ"},
	{Name: "lt", builtin: bLt, Arity: 2, Types: TypeNumber, Form: "x < y", Fitter: "counts",
		Chance: "(1/2)^n", Doc: "x is less than y"},
	{Name: "le", builtin: bLe, Arity: 2, Types: TypeNumber, Form: "x <= y", Fitter: "counts",
		Chance: "(1/2)^n", Doc: "x is at most y (and sometimes equal, sometimes less)"},
	{Name: "linear", builtin: bLinear, Arity: 2, Types: TypeNumber, Form: "y == a*x + b", Fitter: "line",
		Chance: "1 - min(d, 4)/4, d: distinct (x, y) pairs", Doc: "y is a linear function of x"},
	{Name: "divides", builtin: bDivides, Arity: 2, Types: TypeInt, Form: "x % y == 0", Fitter: "none",
		Chance: "1 - min(d, 5)/5, d: distinct (x, y) pairs", Doc: "y divides x"},
	{Name: "square", builtin: bSquare, Arity: 2, Types: TypeNumber, Form: "y == x*x", Fitter: "none",
		Chance: "1 - min(d, 5)/5, d: distinct (x, y) pairs", Doc: "y is the square of x"},
	{Name: "disjoint", builtin: bDisjoint, Arity: 2, Types: TypeInt, Form: "x & y == 0", Fitter: "none",
		Chance: "1 - min(d, 5)/5, d: distinct (x, y) pairs", Doc: "the bit sets share no bit"},
	{Name: "subset", builtin: bSubset, Arity: 2, Types: TypeInt, Form: "x & y == x", Fitter: "none",
		Chance: "1 - min(d, 5)/5, d: distinct (x, y) pairs", Doc: "the bits of x are a subset of those of y"},
	{Name: "pairs", builtin: bPairs, Arity: 2, Types: TypeInt | TypeString, Form: "(x, y) in {(a1, b1), ...}", Fitter: "pairs",
		Chance: "(sum of p(a)q(b) over the set)^n, p, q: value frequencies",
		Doc:    "the pair of values is one of up to 8 pairs"},
}

// Catalog is the set of templates a learning run tries: the built-ins and
// any user templates, in a fixed order. A Catalog is immutable and safe
// for concurrent use.
type Catalog struct {
	list   []*Template
	byName map[string]*Template
	byKind [bPairs + 1]*Template
	unary  []*Template // user templates of arity 1
	binary []*Template // user templates of arity 2
}

// NewCatalog returns the built-in templates followed by the user
// templates, which must have names distinct from the built-ins' and from
// each other.
func NewCatalog(user ...*UserTemplate) (*Catalog, error) {
	c := &Catalog{byName: make(map[string]*Template)}
	for i := range builtins {
		t := builtins[i] // a copy: catalogs share nothing mutable
		c.add(&t)
		c.byKind[t.builtin] = c.list[len(c.list)-1]
	}
	for _, u := range user {
		if _, dup := c.byName[u.decl.Name]; dup {
			return nil, fmt.Errorf("template %q: the name is taken by another template", u.decl.Name)
		}
		t := u.tmpl
		c.add(t)
		if t.Arity == 1 {
			c.unary = append(c.unary, t)
		} else {
			c.binary = append(c.binary, t)
		}
	}
	return c, nil
}

// Builtins returns the catalog of built-in templates alone.
func Builtins() *Catalog {
	c, _ := NewCatalog()
	return c
}

func (c *Catalog) add(t *Template) {
	c.list = append(c.list, t)
	c.byName[t.Name] = t
}

// Templates returns every template, built-ins first.
func (c *Catalog) Templates() []*Template { return c.list }

// Lookup returns the template with the given name.
func (c *Catalog) Lookup(name string) (*Template, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// User returns the declarations of the user templates, in catalog order.
func (c *Catalog) User() []TemplateDecl {
	var out []TemplateDecl
	for _, t := range c.list {
		if t.user != nil {
			out = append(out, t.user.decl)
		}
	}
	return out
}

func (c *Catalog) kind(b builtin) *Template { return c.byKind[b] }
