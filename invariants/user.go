package invariants

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"
	"github.com/expr-lang/expr/vm"
)

// TemplateDecl is a user template as written in a templates file or
// embedded in a spec:
//
//	{"name": "even", "types": ["int"], "expr": "x % 2 == 0"}
//	{"name": "gap", "types": ["int"], "expr": "y - x", "fitter": "bounds"}
//
// Expr is an expr-lang expression over the operand x, and y for a binary
// template. With Fitter "none" (the default) it is the condition itself
// and must be boolean. With another fitter it computes a value from the
// operands and the fitter fits constants to it, as the built-in unary
// templates do to a datum: "const" gives E == a, "oneof" E in {a, b, c},
// "bounds" a <= E <= b (or one side alone, whichever is justified),
// "nonzero" E != 0.
type TemplateDecl struct {
	Name  string   `json:"name"`
	Doc   string   `json:"doc,omitempty"`
	Arity int      `json:"arity,omitempty"` // 1 or 2; by default 2 if Expr uses y
	Types []string `json:"types"`           // pointer, int, float, number, bool, string, any
	Expr  string   `json:"expr"`
	// Fitter is none, const, oneof, bounds or nonzero.
	Fitter string `json:"fitter,omitempty"`
	// Symmetric says a binary template means the same with x and y
	// swapped, so it is tried in one order only.
	Symmetric bool `json:"symmetric,omitempty"`
	// MinDistinct is how many distinct operand tuples justify a template
	// with no fitter (default 5, at most 64).
	MinDistinct int `json:"min_distinct,omitempty"`
}

type fitter uint8

const (
	fitNone fitter = iota
	fitConst
	fitOneOf
	fitBounds
	fitNonZero
)

var fitterNames = [...]string{fitNone: "none", fitConst: "const", fitOneOf: "oneof", fitBounds: "bounds", fitNonZero: "nonzero"}

const (
	defaultMinDistinct = 5
	maxMinDistinct     = 64
)

// UserTemplate is a compiled user template: its expression compiled once
// per operand type it applies to, evaluated with reusable machines.
type UserTemplate struct {
	decl        TemplateDecl
	tmpl        *Template
	fitter      fitter
	types       TypeSet
	minDistinct int
	progs       [numOpTypes]*vm.Program
	segs        []segment // Expr cut at its operands, for a condition's text
	pool        sync.Pool // *evaluator
}

// Operand types, the index of a program.
const (
	opPointer = iota
	opInt
	opFloat
	opBool
	opString
	numOpTypes
)

var opTypeSets = [numOpTypes]TypeSet{TypePointer, TypeInt, TypeFloat, TypeBool, TypeString}

// Object is how a user expression sees a non-null pointer: x == y compares
// identities, x == nil tests for null.
type Object struct{ ID uint64 }

type env1[T any] struct {
	X T `expr:"x"`
}

type env2[T any] struct {
	X T `expr:"x"`
	Y T `expr:"y"`
}

// evaluator is one goroutine's machine and operand slots.
type evaluator struct {
	vm vm.VM
	p1 env1[any]
	i1 env1[int64]
	f1 env1[float64]
	b1 env1[bool]
	s1 env1[string]
	p2 env2[any]
	i2 env2[int64]
	f2 env2[float64]
	b2 env2[bool]
	s2 env2[string]
}

func (e *evaluator) env(arity, op int) any {
	if arity == 1 {
		return [numOpTypes]any{&e.p1, &e.i1, &e.f1, &e.b1, &e.s1}[op]
	}
	return [numOpTypes]any{&e.p2, &e.i2, &e.f2, &e.b2, &e.s2}[op]
}

// segment is a piece of an expression: literal text, or an operand.
type segment struct {
	text    string
	operand int // -1: text; 0: x; 1: y
}

// DeclError is a mistake in a template declaration: which field, and for
// an expression, at which rune offset of it.
type DeclError struct {
	Template string // the template's name, if it has one
	Field    string // "name", "types", "expr", ...
	Offset   int    // rune offset in an expression; -1 if not about a place in it
	Msg      string
}

func (e *DeclError) Error() string {
	if e.Template != "" {
		return fmt.Sprintf("template %q: %s: %s", e.Template, e.Field, e.Msg)
	}
	return fmt.Sprintf("template: %s: %s", e.Field, e.Msg)
}

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// CompileTemplate checks a declaration and compiles its expression for
// every type it applies to. Errors are *DeclError.
func CompileTemplate(d TemplateDecl) (*UserTemplate, error) {
	fail := func(field string, off int, format string, args ...any) error {
		return &DeclError{Template: d.Name, Field: field, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	if !nameRE.MatchString(d.Name) {
		return nil, fail("name", -1, "%q is not a template name (a letter, then letters, digits, '_', '-', '.')", d.Name)
	}
	for i := range builtins {
		if builtins[i].Name == d.Name {
			return nil, fail("name", -1, "%q is a built-in template", d.Name)
		}
	}
	u := &UserTemplate{decl: d, minDistinct: defaultMinDistinct}
	u.pool.New = func() any {
		ev := new(evaluator)
		ev.vm.MemoryBudget = maxExprMemory
		return ev
	}
	switch d.Fitter {
	case "":
		u.fitter = fitNone
	default:
		found := false
		for f, n := range fitterNames {
			if n == d.Fitter {
				u.fitter, found = fitter(f), true
			}
		}
		if !found {
			return nil, fail("fitter", -1, "unknown fitter %q (want none, const, oneof, bounds or nonzero)", d.Fitter)
		}
	}
	if len(d.Types) == 0 {
		return nil, fail("types", -1, "no types: say which operand types the template applies to")
	}
	for _, s := range d.Types {
		t, err := ParseType(s)
		if err != nil {
			return nil, fail("types", -1, "%v", err)
		}
		u.types |= t
	}
	if d.MinDistinct != 0 {
		if u.fitter != fitNone {
			return nil, fail("min_distinct", -1, "only templates without a fitter use min_distinct")
		}
		if d.MinDistinct < 1 || d.MinDistinct > maxMinDistinct {
			return nil, fail("min_distinct", -1, "%d is out of range 1..%d", d.MinDistinct, maxMinDistinct)
		}
		u.minDistinct = d.MinDistinct
	}
	if strings.TrimSpace(d.Expr) == "" {
		return nil, fail("expr", -1, "empty expression")
	}
	if n := utf8.RuneCountInString(d.Expr); n > MaxExprLen {
		return nil, fail("expr", -1, "the expression is %d characters long; at most %d", n, MaxExprLen)
	}
	toks, err := lexer.Lex(file.NewSource(d.Expr))
	if err != nil {
		return nil, exprError(d, err)
	}
	if err := checkTokens(d, toks); err != nil {
		return nil, err
	}
	usesX, yAt := false, -1
	last := 0
	runes := []rune(d.Expr)
	for _, t := range toks {
		if t.Kind != lexer.Identifier || (t.Value != "x" && t.Value != "y") {
			continue
		}
		op := 0
		if t.Value == "y" {
			op = 1
			if yAt < 0 {
				yAt = t.From
			}
		} else {
			usesX = true
		}
		u.segs = append(u.segs, segment{text: string(runes[last:t.From]), operand: -1}, segment{operand: op})
		last = t.To
	}
	u.segs = append(u.segs, segment{text: string(runes[last:]), operand: -1})
	if !usesX {
		return nil, fail("expr", -1, "the expression does not use x")
	}
	arity := 1
	if yAt >= 0 {
		arity = 2
	}
	switch {
	case d.Arity == 0:
	case d.Arity == 1 && arity == 2:
		return nil, fail("expr", yAt, "arity is 1 but the expression uses y")
	case d.Arity == 2 && arity == 1:
		return nil, fail("arity", -1, "arity is 2 but the expression does not use y")
	case d.Arity != 1 && d.Arity != 2:
		return nil, fail("arity", -1, "arity must be 1 or 2, not %d", d.Arity)
	}
	if d.Symmetric && arity != 2 {
		return nil, fail("symmetric", -1, "only binary templates can be symmetric")
	}
	u.decl.Arity = arity
	for op, ts := range opTypeSets {
		if u.types&ts == 0 {
			continue
		}
		prog, err := u.compile(arity, op)
		if err != nil {
			return nil, err
		}
		u.progs[op] = prog
	}
	u.tmpl = &Template{
		Name: d.Name, Arity: arity, Types: u.types, Form: u.form(), Fitter: fitterNames[u.fitter],
		Chance: u.chanceFormula(), Doc: d.Doc, user: u,
	}
	return u, nil
}

// MaxExprLen is the longest expression a template may have, in
// characters: a condition is a short formula, and a template (or a spec
// that embeds one) is untrusted input.
const MaxExprLen = 1000

// maxExprNodes bounds an expression's syntax tree; maxExprMemory, what
// one evaluation may allocate (expr-lang's units: about one per element of
// a list or map it builds).
const (
	maxExprNodes  = 200
	maxExprMemory = 10_000
)

// exprBuiltins are the functions a template may call: arithmetic, string
// tests and conversions, each of cost bounded by its operands. The others
// (collections built at run time, repeat, the clock, JSON) are not
// conditions on one or two data, and some cost what their input asks.
var exprBuiltins = []string{
	"len", "type", "abs", "ceil", "floor", "round", "int", "float", "string",
	"trim", "trimPrefix", "trimSuffix", "upper", "lower", "indexOf", "lastIndexOf",
	"hasPrefix", "hasSuffix", "max", "min", "bitnot",
}

// exprPredicates are expr-lang's predicates, which the parser knows
// whatever the builtins: their cost multiplies when nested (all over a
// list, inside all over a list, …), so a template may not use them.
var exprPredicates = map[string]bool{
	"all": true, "none": true, "any": true, "one": true, "filter": true, "map": true,
	"find": true, "findIndex": true, "findLast": true, "findLastIndex": true,
	"count": true, "sum": true, "groupBy": true, "sortBy": true, "reduce": true,
}

// checkTokens refuses what a template may not use beyond its builtins:
// predicates, ranges (a..b builds an array), $env, pipes and variables.
func checkTokens(d TemplateDecl, toks []lexer.Token) error {
	for _, t := range toks {
		var msg string
		switch {
		case t.Kind == lexer.Identifier && exprPredicates[t.Value]:
			msg = t.Value + " is not allowed in a template (predicates over lists multiply their cost when nested)"
		case t.Kind == lexer.Operator && t.Value == "..":
			msg = "ranges (a..b) are not allowed in a template"
		case t.Kind == lexer.Operator && t.Value == "|":
			msg = "pipes are not allowed in a template"
		case t.Kind == lexer.Identifier && strings.HasPrefix(t.Value, "$"):
			msg = t.Value + " is not allowed in a template"
		case t.Kind == lexer.Operator && (t.Value == "let" || t.Value == ";"):
			msg = "variables are not allowed in a template"
		}
		if msg != "" {
			return &DeclError{Template: d.Name, Field: "expr", Offset: t.From, Msg: msg}
		}
	}
	return nil
}

func (u *UserTemplate) compile(arity, op int) (*vm.Program, error) {
	d := u.decl
	opts := []expr.Option{expr.Env(new(evaluator).env(arity, op)), expr.MaxNodes(maxExprNodes), expr.DisableAllBuiltins()}
	for _, b := range exprBuiltins {
		opts = append(opts, expr.EnableBuiltin(b))
	}
	if u.fitter == fitNone {
		opts = append(opts, expr.AsBool())
	}
	prog, err := expr.Compile(d.Expr, opts...)
	if err != nil {
		e := exprError(d, err)
		if de, ok := e.(*DeclError); ok && len(u.types.split()) > 1 {
			de.Msg += " (for " + opTypeSets[op].String() + " operands)"
		}
		return nil, e
	}
	if u.fitter != fitNone {
		if t := prog.Node().Type(); t != nil && !fitterAccepts(u.fitter, t) {
			return nil, &DeclError{Template: d.Name, Field: "expr", Offset: -1,
				Msg: fmt.Sprintf("the %s fitter needs a %s, but the expression gives %s", fitterNames[u.fitter], fitterWants(u.fitter), t)}
		}
	}
	return prog, nil
}

// split lists the single types of a set.
func (t TypeSet) split() []TypeSet {
	var out []TypeSet
	for _, ts := range opTypeSets {
		if t&ts != 0 {
			out = append(out, ts)
		}
	}
	return out
}

func fitterWants(f fitter) string {
	if f == fitBounds || f == fitNonZero {
		return "number"
	}
	return "number, bool or string"
}

func fitterAccepts(f fitter, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true // known at run time only
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Bool, reflect.String:
		return f == fitConst || f == fitOneOf
	}
	return false
}

// exprError turns an expr-lang error into a DeclError at its offset.
func exprError(d TemplateDecl, err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		return &DeclError{Template: d.Name, Field: "expr", Offset: fe.From, Msg: fe.Message}
	}
	return &DeclError{Template: d.Name, Field: "expr", Offset: -1, Msg: err.Error()}
}

// Decl returns the declaration the template was compiled from.
func (u *UserTemplate) Decl() TemplateDecl { return u.decl }

// form is the condition with its constants as names.
func (u *UserTemplate) form() string {
	e := u.text("x", "y")
	switch u.fitter {
	case fitConst:
		return e + " == a"
	case fitOneOf:
		return e + " in {a, b, c}"
	case fitBounds:
		return "a <= " + e + " <= b"
	case fitNonZero:
		return e + " != 0"
	}
	return e
}

func (u *UserTemplate) chanceFormula() string {
	switch u.fitter {
	case fitConst:
		return builtins[bConst-1].Chance
	case fitOneOf:
		return "(k/(k+1))^n for k values (k = 1: a constant)"
	case fitBounds:
		return "(1/2)^r per bound, r: runs that reached it"
	case fitNonZero:
		return builtins[bNonZero-1].Chance
	}
	return fmt.Sprintf("1 - min(d, %d)/%d, d: distinct operand tuples", u.minDistinct, u.minDistinct)
}

// text is the expression with its operands replaced by names.
func (u *UserTemplate) text(x, y string) string {
	var b strings.Builder
	for _, s := range u.segs {
		switch s.operand {
		case 0:
			b.WriteString(x)
		case 1:
			b.WriteString(y)
		default:
			b.WriteString(s.text)
		}
	}
	return strings.TrimSpace(b.String())
}

// evalStatus is the outcome of evaluating a user template on a sample.
type evalStatus uint8

const (
	evalOK       evalStatus = iota
	evalMismatch            // the operands are not of a type the template applies to
	evalError               // the expression failed (a type error, a division by zero)
)

// opType returns the program to use for operands of these values.
func (u *UserTemplate) opType(x, y Value, arity int) (int, bool) {
	tx := typeOf(x)
	if arity == 1 {
		return opIndex(tx), tx != 0 && u.types&tx != 0
	}
	ty := typeOf(y)
	switch {
	case tx == 0 || ty == 0:
		return 0, false
	case tx == ty:
		return opIndex(tx), u.types&tx != 0
	case (tx|ty) == TypeNumber && u.types&TypeFloat != 0:
		return opFloat, true // an int with a float: compared as floats
	}
	return 0, false
}

func opIndex(t TypeSet) int {
	for i, ts := range opTypeSets {
		if ts == t {
			return i
		}
	}
	return 0
}

// eval evaluates the expression on x (and y) and returns its value.
func (u *UserTemplate) eval(x, y Value) (Value, evalStatus) {
	arity := u.tmpl.Arity
	op, ok := u.opType(x, y, arity)
	if !ok {
		return Value{}, evalMismatch
	}
	ev := u.pool.Get().(*evaluator)
	defer u.pool.Put(ev)
	var env any
	switch op {
	case opPointer:
		ev.p1.X, ev.p2.X, ev.p2.Y = pointerOperand(x), pointerOperand(x), pointerOperand(y)
	case opInt:
		ev.i1.X, ev.i2.X, ev.i2.Y = x.Int(), x.Int(), y.Int()
	case opFloat:
		ev.f1.X, ev.f2.X, ev.f2.Y = x.Float(), x.Float(), y.Float()
	case opBool:
		ev.b1.X, ev.b2.X, ev.b2.Y = x.Bool(), x.Bool(), y.Bool()
	case opString:
		ev.s1.X, ev.s2.X, ev.s2.Y = x.str, x.str, y.str
	}
	env = ev.env(arity, op)
	out, err := ev.vm.Run(u.progs[op], env)
	if err != nil {
		return Value{}, evalError
	}
	v, ok := valueOf(out)
	if !ok {
		return Value{}, evalError
	}
	if u.fitter == fitNone && v.kind != Bool {
		return Value{}, evalError
	}
	return v, evalOK
}

func pointerOperand(v Value) any {
	if v.kind == Ref {
		return Object{ID: v.bits}
	}
	return nil
}

// valueOf converts an expression's result.
func valueOf(out any) (Value, bool) {
	switch o := out.(type) {
	case bool:
		return BoolValue(o), true
	case int:
		return IntValue(int64(o)), true
	case int64:
		return IntValue(o), true
	case int32:
		return IntValue(int64(o)), true
	case float64:
		return FloatValue(o), true
	case float32:
		return FloatValue(float64(o)), true
	case string:
		return StringValue(o), true
	case uint:
		return IntValue(int64(o)), true
	case uint64:
		return IntValue(int64(o)), true
	}
	return Value{}, false
}
