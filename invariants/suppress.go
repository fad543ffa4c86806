package invariants

import (
	"slices"
	"strings"
)

// Suppression: a condition implied by other reported conditions is
// dropped, so a spec lists what a developer needs to read. Only justified
// conditions are premises, and a premise is never dropped in favour of a
// condition that was itself dropped.

// facts are what the justified conditions say about each datum.
type facts struct {
	fixed   map[string]bool  // const or null: the datum has one value
	strong  map[string]bool  // const or one-of: bounds and non-zero say less
	ranged  map[string]bool  // a two-sided range
	null    map[string]bool  // x == null
	nonnull map[string]bool  // x != null
	konst   map[string]Value // the constant of x == a
	lo, hi  map[string]Value // numeric bounds, where known
	have    map[string]bool  // the key of every justified condition
	leader  map[string]string
	// twoSided has template|data of every two-sided user bounds condition.
	twoSided map[string]bool
	// shift has x\x00y -> sign of b for every y == x + b.
	shift map[string]int
	// sets has the values of x == a and x in {...}.
	sets map[string][]Value
	// rels has the binary conditions (pair one-of sets aside) between
	// two data, under their names in increasing order joined by \x00.
	rels map[string][]*Condition
}

// key identifies a condition: template, data and constants.
func key(c *Condition) string { return c.Template.Name + "|" + c.Text() }

func gather(cs []*Condition) *facts {
	f := &facts{
		fixed: map[string]bool{}, strong: map[string]bool{}, ranged: map[string]bool{},
		null: map[string]bool{}, nonnull: map[string]bool{}, konst: map[string]Value{},
		lo: map[string]Value{}, hi: map[string]Value{}, have: map[string]bool{}, leader: map[string]string{},
		twoSided: map[string]bool{}, shift: map[string]int{}, sets: map[string][]Value{}, rels: map[string][]*Condition{},
	}
	for _, c := range cs {
		f.have[key(c)] = true
		if c.Template.user != nil && c.Template.user.fitter == fitBounds && c.A.kind != Absent && c.B.kind != Absent {
			f.twoSided[c.Template.Name+"|"+strings.Join(c.Vars, "\x00")] = true
		}
		x := c.Vars[0]
		if len(c.Vars) == 2 && c.Template.builtin != bPairs {
			k := relKey(x, c.Vars[1])
			f.rels[k] = append(f.rels[k], c)
		}
		switch c.Template.builtin {
		case bNull:
			f.fixed[x], f.null[x] = true, true
		case bNonNull:
			f.nonnull[x] = true
		case bConst:
			f.fixed[x], f.strong[x], f.konst[x] = true, true, c.A
			f.sets[x] = []Value{c.A}
			if c.A.IsNumber() {
				f.tighten(x, c.A, c.A)
			}
		case bOneOf:
			f.strong[x] = true
			f.sets[x] = c.Set
			if c.Set[0].IsNumber() {
				f.tighten(x, c.Set[0], c.Set[len(c.Set)-1])
			}
		case bRange:
			f.ranged[x] = true
			f.tighten(x, c.A, c.B)
		case bLinear:
			if c.A.Float() == 1 && c.B.Float() != 0 {
				sign := 1
				if c.B.Float() < 0 {
					sign = -1
				}
				f.shift[x+"\x00"+c.Vars[1]] = sign
			}
		case bLower:
			f.tighten(x, c.A, Value{})
		case bUpper:
			f.tighten(x, Value{}, c.B)
		}
	}
	// Equality classes, from equalities between data not both fixed.
	parent := map[string]string{}
	var find func(string) string
	find = func(s string) string {
		p, ok := parent[s]
		if !ok || p == s {
			return s
		}
		r := find(p)
		parent[s] = r
		return r
	}
	for _, c := range cs {
		if c.Template.builtin != bEq || (f.fixed[c.Vars[0]] && f.fixed[c.Vars[1]]) {
			continue
		}
		a, b := find(c.Vars[0]), find(c.Vars[1])
		if a == b {
			continue
		}
		if b < a {
			a, b = b, a
		}
		parent[b] = a // the smallest name leads
	}
	for s := range parent {
		f.leader[s] = find(s)
	}
	return f
}

func (f *facts) tighten(x string, lo, hi Value) {
	if lo.kind != Absent {
		if old, ok := f.lo[x]; !ok || Compare(lo, old) > 0 {
			f.lo[x] = lo
		}
	}
	if hi.kind != Absent {
		if old, ok := f.hi[x]; !ok || Compare(hi, old) < 0 {
			f.hi[x] = hi
		}
	}
}

// below reports whether every value of x is below (or, if orEqual, at
// most) every value of y, as the bounds tell.
func (f *facts) below(x, y string, orEqual bool) bool {
	h, ok1 := f.hi[x]
	l, ok2 := f.lo[y]
	if !ok1 || !ok2 {
		return false
	}
	c, ok := cmpNum(h, l)
	return ok && (c < 0 || orEqual && c == 0)
}

func (f *facts) isConst(x string, vals ...int64) bool {
	v, ok := f.konst[x]
	if !ok || v.kind != Int {
		return false
	}
	for _, w := range vals {
		if v.Int() == w {
			return true
		}
	}
	return false
}

// sameAsLeader reports whether c is implied by the same condition on the
// leader of one of its data's equality class.
func (f *facts) sameAsLeader(c *Condition) bool {
	for i, v := range c.Vars {
		l, ok := f.leader[v]
		if !ok || l == v || containsName(c.Vars, l) {
			continue
		}
		if !f.have[key(&Condition{Template: builtinEq, Vars: pair(l, v)})] {
			continue // the equality itself is not reported directly
		}
		alt := *c
		alt.Vars = append([]string(nil), c.Vars...)
		alt.Vars[i] = l
		if f.have[key(&alt)] {
			return true
		}
	}
	return false
}

func pair(a, b string) []string {
	if b < a {
		a, b = b, a
	}
	return []string{a, b}
}

func containsName(names []string, s string) bool {
	for _, n := range names {
		if n == s {
			return true
		}
	}
	return false
}

// implied reports whether the other justified conditions imply c.
func (f *facts) implied(c *Condition) bool {
	x := c.Vars[0]
	if len(c.Vars) == 1 {
		switch c.Template.builtin {
		case bLower, bUpper:
			if f.ranged[x] || f.strong[x] {
				return true
			}
		case bRange, bNonNull:
			if f.strong[x] {
				return true
			}
		case bNonZero:
			if f.strong[x] || f.excludesZero(x) {
				return true
			}
		case userDefined:
			if f.fixed[x] {
				return true
			}
			if c.Template.user.fitter == fitBounds && (c.A.kind == Absent || c.B.kind == Absent) {
				if f.hasTwoSided(c) {
					return true
				}
			}
		}
		return f.sameAsLeader(c)
	}
	y := c.Vars[1]
	if f.fixed[x] && f.fixed[y] {
		return true
	}
	eqKey := key(&Condition{Template: builtinEq, Vars: pair(x, y)})
	switch c.Template.builtin {
	case bPairs:
		return f.pairsImplied(c) || f.sameAsLeader(c)
	case bEq:
		lx, ly := f.leader[x], f.leader[y]
		if lx == "" || lx != ly || x == lx || y == lx {
			return false
		}
		// Neither is the leader: implied if both equal the leader.
		return f.have[key(&Condition{Template: builtinEq, Vars: pair(lx, x)})] &&
			f.have[key(&Condition{Template: builtinEq, Vars: pair(lx, y)})]
	case bNe:
		if f.below(x, y, false) || f.below(y, x, false) || f.shifted(x, y) != 0 {
			return true
		}
		if f.null[x] && f.nonnull[y] || f.nonnull[x] && f.null[y] {
			return true
		}
	case bLt, bLe:
		if f.below(x, y, c.Template.builtin == bLe) || f.shifted(x, y) > 0 {
			return true
		}
	case bDivides:
		if f.isConst(x, 0) || f.isConst(y, 1, -1) {
			return true
		}
	case bDisjoint:
		if f.isConst(x, 0) || f.isConst(y, 0) {
			return true
		}
	case bSubset:
		if f.isConst(x, 0) || f.isConst(y, -1) {
			return true
		}
	case bLinear, bSquare:
		if f.fixed[x] || f.fixed[y] {
			return true
		}
	case userDefined:
		if c.Template.user.fitter == fitBounds && (c.A.kind == Absent || c.B.kind == Absent) && f.hasTwoSided(c) {
			return true
		}
	}
	if c.Template.builtin != bEq && f.have[eqKey] {
		return true // x == y says more
	}
	return f.sameAsLeader(c)
}

// shifted tells whether a reported linear condition makes one datum the
// other plus a constant: +1 if y == x + b with b > 0 (so x < y), -1 if
// b < 0, 0 otherwise.
func (f *facts) shifted(x, y string) int {
	b, ok := f.shift[x+"\x00"+y]
	if ok {
		return b
	}
	if b, ok := f.shift[y+"\x00"+x]; ok {
		return -b
	}
	return 0
}

// excludesZero reports whether x's bounds leave 0 out.
func (f *facts) excludesZero(x string) bool {
	zero := IntValue(0)
	if l, ok := f.lo[x]; ok {
		if c, ok := cmpNum(l, zero); ok && c > 0 {
			return true
		}
	}
	if h, ok := f.hi[x]; ok {
		if c, ok := cmpNum(h, zero); ok && c < 0 {
			return true
		}
	}
	return false
}

// hasTwoSided reports whether the two-sided form of a one-sided user
// bounds condition is justified.
func (f *facts) hasTwoSided(c *Condition) bool {
	return f.twoSided[c.Template.Name+"|"+strings.Join(c.Vars, "\x00")]
}

// builtinEq is the eq template, for building keys.
var builtinEq = &builtins[bEq-1]

func suppress(cs []*Condition) []*Condition {
	f := gather(cs)
	out := cs[:0:0]
	for _, c := range cs {
		if !f.implied(c) {
			out = append(out, c)
		}
	}
	return out
}

func relKey(x, y string) string {
	p := pair(x, y)
	return p[0] + "\x00" + p[1]
}

// pairsImplied reports whether the reported conditions on x and y imply
// the pair one-of condition c, (x, y) in S, or leave it saying nothing
// about the pair:
//   - when both have a value set (x == a, x in {...}), if every (a, b) of
//     the product that satisfies the reported relations between them is
//     in S;
//   - when a reported relation makes one a function of the other (x == y,
//     y == a*x + b, y == x*x), S is the graph of that function over the
//     values seen: what it adds is a one-of set of one datum, which the
//     unary one-of decides (and declines past MaxOneOf values).
func (f *facts) pairsImplied(c *Condition) bool {
	x, y := c.Vars[0], c.Vars[1]
	rels := f.rels[relKey(x, y)]
	for _, r := range rels {
		switch r.Template.builtin {
		case bEq, bLinear, bSquare:
			return true
		}
	}
	xs, okx := f.sets[x]
	ys, oky := f.sets[y]
	if !okx || !oky {
		return false
	}
	holds := func(a, b Value) bool {
		for _, r := range rels {
			vals := []Value{a, b}
			if r.Vars[0] != x {
				vals = []Value{b, a}
			}
			if h, ok := r.Eval(vals); !h || !ok {
				return false
			}
		}
		return true
	}
	for _, a := range xs {
		for _, b := range ys {
			if holds(a, b) && !slices.ContainsFunc(c.Pairs, func(p Point) bool { return Equal(p.X, a) && Equal(p.Y, b) }) {
				return false
			}
		}
	}
	return true
}
