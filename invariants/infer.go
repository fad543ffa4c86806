package invariants

import (
	"math"
	"slices"
	"strings"
)

// Defaults of [Options].
const (
	DefaultLimit      = 0.01
	DefaultMinSupport = 5
)

// Options say which conditions a learner reports.
type Options struct {
	// Limit is the largest probability of holding by chance a reported
	// condition may have (DefaultLimit if 0).
	Limit float64
	// MinSupport is the fewest samples a reported condition must have been
	// checked on (DefaultMinSupport if 0; 1 to rely on Limit alone).
	MinSupport int64
	// All reports implied conditions too (no suppression).
	All bool
}

func (o Options) withDefaults() Options {
	if o.Limit == 0 {
		o.Limit = DefaultLimit
	}
	if o.MinSupport == 0 {
		o.MinSupport = DefaultMinSupport
	}
	return o
}

// Infer returns the justified conditions no sample falsified, without the
// ones implied by others, in canonical order (by data, then template).
func (l *Learner) Infer(opts Options) []*Condition {
	opts = opts.withDefaults()
	var out []*Condition
	keep := func(c *Condition) {
		if c.Chance <= opts.Limit && c.Support >= opts.MinSupport {
			out = append(out, c)
		}
	}
	for name, vs := range l.vars {
		l.unary(name, vs, keep)
	}
	for k, p := range l.pairs {
		x, y := l.pairNames(k)
		l.binary(x, y, p, keep)
	}
	for k, s := range l.singles {
		x, y := l.pairNames(k)
		r := s.rec()
		l.binary(x, y, &r, keep)
	}
	if !opts.All {
		out = suppress(out)
	}
	l.sortConditions(out)
	return append(out, l.implications(opts, out)...)
}

// implications returns, guard by guard (in name order), the conditions
// learned from the samples in which the guard was true that the
// handler's own conditions (uncond) do not already say: "g ==> c". A
// guard some test compared rather than tested for its truth (if (i < n))
// gives none: "g" would not say what the handler tested.
func (l *Learner) implications(opts Options, uncond []*Condition) []*Condition {
	if len(l.guards) == 0 {
		return nil
	}
	known := make(map[string]bool, len(uncond))
	for _, c := range uncond {
		known[c.Text()] = true
	}
	names := make([]string, 0, len(l.guards))
	for g := range l.guards {
		names = append(names, g)
	}
	slices.Sort(names)
	var out []*Condition
	for _, g := range names {
		if vs := l.vars[g]; vs == nil || vs.Flags != vs.Tested {
			continue
		}
		for _, c := range l.guards[g].Infer(opts) {
			if !known[c.Text()] {
				c.Guard = g
				out = append(out, c)
			}
		}
	}
	return out
}

func (l *Learner) sortConditions(cs []*Condition) {
	index := make(map[*Template]int, len(l.cat.list))
	for i, t := range l.cat.list {
		index[t] = i
	}
	slices.SortFunc(cs, func(a, b *Condition) int {
		if c := slices.Compare(a.Vars, b.Vars); c != 0 {
			return c
		}
		if a.Template != b.Template {
			return index[a.Template] - index[b.Template]
		}
		return strings.Compare(a.Text(), b.Text())
	})
}

func pow(base float64, n int64) float64 { return math.Pow(base, float64(n)) }

// distinctChance is the chance of a template justified by distinct
// tuples: 1 - min(d, goal)/goal (Daikon: confidence grows linearly with
// the number of distinct samples until the goal).
func distinctChance(d, goal int) float64 {
	return 1 - float64(min(d, goal))/float64(goal)
}

// unary proposes the conditions on one datum. A datum the handler tested
// as a condition in every sample (a guard) gets none: the code has a path
// for each outcome, so whatever value training saw is no precondition
// (ConnectBot's onLayout tests resizeAllowed). One tested for null every
// time gets neither null nor non-null (summaryConditions).
func (l *Learner) unary(name string, vs *VarState, keep func(*Condition)) {
	if vs.N > 0 && vs.Tested == vs.N {
		return
	}
	cond := func(b builtin) *Condition {
		return &Condition{Template: l.cat.kind(b), Vars: []string{name}, Support: vs.N}
	}
	for _, c := range summaryConditions(&vs.Summary, cond) {
		keep(c)
	}
	for _, t := range l.cat.unary {
		st := vs.User[t.Name]
		if st == nil || st.N != vs.N {
			continue // never applied, or some sample was of another type
		}
		for _, c := range userConditions(t, st, []string{name}) {
			keep(c)
		}
	}
}

// summaryConditions proposes the built-in unary conditions a summary
// supports, each with its chance.
func summaryConditions(s *Summary, cond func(builtin) *Condition) []*Condition {
	n := s.N
	if n == 0 {
		return nil
	}
	var out []*Condition
	guarded := s.Guard == n // the code tests it for null every time: it copes with both
	if s.Null == n && !guarded {
		c := cond(bNull)
		c.Chance = pow(1.0/3, n)
		out = append(out, c)
	}
	if s.Null == 0 && s.Ref+s.String == n && !guarded {
		c := cond(bNonNull)
		c.Chance = pow(2.0/3, n)
		if s.Deref == n {
			c.Chance = 0 // the handler would have crashed on null
		}
		out = append(out, c)
	}
	if s.scalars() {
		if vals, ok := s.distinct(); ok && len(vals) > 0 {
			switch k := len(vals); {
			case k == 1:
				c := cond(bConst)
				c.A = vals[0]
				c.Chance = pow(0.5, n)
				out = append(out, c)
			case s.Bool != n: // {true, false} says nothing
				c := cond(bOneOf)
				c.Set = slices.Clone(vals)
				c.Chance = pow(float64(k)/float64(k+1), n)
				out = append(out, c)
			}
		}
	}
	if !s.numbers() {
		return out
	}
	if Compare(s.Min.Value(), s.Max.Value()) < 0 {
		lo, hi := pow(0.5, s.MinRuns), pow(0.5, s.MaxRuns)
		c := cond(bRange)
		c.A, c.B, c.Chance = s.Min.Value(), s.Max.Value(), max(lo, hi)
		out = append(out, c)
		c = cond(bLower)
		c.A, c.Chance = s.Min.Value(), lo
		out = append(out, c)
		c = cond(bUpper)
		c.B, c.Chance = s.Max.Value(), hi
		out = append(out, c)
	}
	if s.Zero == 0 {
		c := cond(bNonZero)
		c.Chance = pow(1-1/nonZeroRange(s), n)
		out = append(out, c)
	}
	return out
}

// nonZeroRange is r of the x != 0 formula: how many values the datum
// plausibly ranges over, zero included — the span from the smallest to
// the largest of its values and 0, at most 50 (Daikon); 50 for floats.
func nonZeroRange(s *Summary) float64 {
	if s.Float > 0 {
		return 50
	}
	lo, hi := math.Min(s.Min.Value().Float(), 0), math.Max(s.Max.Value().Float(), 0)
	return math.Min(hi-lo+1, 50)
}

// binary proposes the conditions on the pair (X, Y).
func (l *Learner) binary(X, Y string, e *pairRec, keep func(*Condition)) {
	p := e.State()
	n := p.N
	if n == 0 {
		return
	}
	cond := func(b builtin, x, y string, chance float64) *Condition {
		return &Condition{Template: l.cat.kind(b), Vars: []string{x, y}, Support: n, Chance: chance}
	}
	half := pow(0.5, n)
	numeric := p.Num == n
	other := p.Ptr == n || p.Bools == n
	switch {
	case numeric:
		switch {
		case p.Lt == 0 && p.Gt == 0:
			keep(cond(bEq, X, Y, half))
		case p.Eq == 0 && p.Gt == 0:
			keep(cond(bLt, X, Y, half))
		case p.Eq == 0 && p.Lt == 0:
			keep(cond(bLt, Y, X, half))
		case p.Gt == 0:
			keep(cond(bLe, X, Y, half))
		case p.Lt == 0:
			keep(cond(bLe, Y, X, half))
		case p.Eq == 0:
			keep(cond(bNe, X, Y, half))
		}
	case other:
		switch {
		case p.Diff == 0:
			keep(cond(bEq, X, Y, half))
		case p.Same == 0:
			keep(cond(bNe, X, Y, half))
		}
	}
	if numeric {
		d := len(p.Distinct)
		exact := distinctChance(d, distinctCap)
		if p.Fails&failLinear == 0 {
			if a, b, ok := line(p.Lo, p.Hi); ok && a != 0 && !(near(a, 1) && near(b, 0)) {
				c := cond(bLinear, X, Y, distinctChance(d, 4))
				c.A, c.B = FloatValue(a), FloatValue(b)
				keep(c)
			}
		}
		if p.Fails&failSquareXY == 0 {
			keep(cond(bSquare, X, Y, exact))
		}
		if p.Fails&failSquareYX == 0 {
			keep(cond(bSquare, Y, X, exact))
		}
		if p.Ints == n {
			if p.Fails&failDivXY == 0 {
				keep(cond(bDivides, X, Y, exact))
			}
			if p.Fails&failDivYX == 0 {
				keep(cond(bDivides, Y, X, exact))
			}
			if p.Fails&failDisjoint == 0 {
				keep(cond(bDisjoint, X, Y, exact))
			}
			if p.Fails&failSubsetXY == 0 {
				keep(cond(bSubset, X, Y, exact))
			}
			if p.Fails&failSubsetYX == 0 {
				keep(cond(bSubset, Y, X, exact))
			}
		}
	}
	if c := pairsCondition(p, X, Y, cond); c != nil {
		keep(c)
	}
	for _, t := range l.cat.binary {
		for _, swapped := range []bool{false, true} {
			name, vars := t.Name, []string{X, Y}
			if swapped {
				name, vars = name+swappedSuffix, []string{Y, X}
			}
			st := e.user[name]
			if st == nil || st.N != n {
				continue
			}
			for _, c := range userConditions(t, st, vars) {
				keep(c)
			}
		}
	}
}

// pairSpent reports whether no condition can come of the pair whatever
// samples follow: binary proposes none of its relations (each broken, or
// its kind of operands gone), its tuples are too many for a one-of set,
// and no user template can propose one (one did not apply to a sample,
// failed, or was false). Every count and flag it reads only grows, and
// its kinds of operands only narrow, so a spent pair stays spent. It
// follows binary: a relation added there must be added here.
func (l *Learner) pairSpent(e *pairRec) bool {
	p := e.state
	if p == nil || !p.ManyTuples {
		return false
	}
	n := p.N
	canHold := func(t *Template, st *UserState) bool {
		return st != nil && st.N == n && st.Errors == 0 && (t.user.fitter != fitNone || st.False == 0)
	}
	for _, t := range l.cat.binary {
		if canHold(t, e.user[t.Name]) || !t.user.decl.Symmetric && canHold(t, e.user[t.Name+swappedSuffix]) {
			return false
		}
	}
	switch {
	case p.Num == n:
		if p.Lt == 0 || p.Eq == 0 || p.Gt == 0 {
			return false
		}
		broken := uint16(failLinear | failSquareXY | failSquareYX)
		if p.Ints == n {
			broken |= failDivXY | failDivYX | failDisjoint | failSubsetXY | failSubsetYX
		}
		return p.Fails&broken == broken
	case p.Ptr == n || p.Bools == n:
		return p.Same > 0 && p.Diff > 0
	}
	return true
}

// userConditions proposes the conditions of a user template on data
// whose every sample it applied to.
func userConditions(t *Template, st *UserState, vars []string) []*Condition {
	if st.Errors > 0 {
		return nil
	}
	u := t.user
	if u.fitter == fitNone {
		if st.False > 0 {
			return nil
		}
		return []*Condition{{Template: t, Vars: vars, Support: st.N, Chance: distinctChance(len(st.Distinct), u.minDistinct)}}
	}
	if st.Vals == nil {
		return nil
	}
	return userFamily(t, st.Vals, vars, st.N)
}

// fitterKinds are the built-in unary conditions each fitter reports.
var fitterKinds = map[fitter][]builtin{
	fitConst:   {bConst},
	fitOneOf:   {bConst, bOneOf},
	fitBounds:  {bRange, bLower, bUpper},
	fitNonZero: {bNonZero},
}

// userFamily proposes the conditions of a fitter on the summary of a user
// expression's values: the built-in unary conditions of the fitter's
// family, with the built-ins' formulas, as conditions of the template.
func userFamily(t *Template, s *Summary, vars []string, support int64) []*Condition {
	u := t.user
	var out []*Condition
	cond := func(b builtin) *Condition { return &Condition{Template: &builtins[b-1]} }
	for _, c := range summaryConditions(s, cond) {
		if !slices.Contains(fitterKinds[u.fitter], c.Template.builtin) {
			continue
		}
		if u.fitter == fitOneOf && c.Template.builtin == bConst {
			c.Set, c.A = []Value{c.A}, Value{} // a one-of set of one
		}
		c.Template, c.Vars, c.Support = t, vars, support
		out = append(out, c)
	}
	return out
}
