package invariants

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Var is one datum of a sample: its name, its value, its abstract type
// (data of equal Group are compared with each other; data of different
// groups never are), whether the sample dereferenced it, and whether the
// sample tested it for null (a guard: the code copes with both).
type Var struct {
	Name    string
	Val     Value
	Group   int32
	Deref   bool
	Guarded bool // tested for null
	Tested  bool // read by a test (a guard)
	Flag    bool // tested for its own truth only (if (flag)), not compared
}

// VarState is what a learner keeps about one datum.
type VarState struct {
	Summary
	// User holds the state of each unary user template on this datum.
	User map[string]*UserState `json:"user,omitempty"`
}

// pairKey names a pair of data of a learner: the ids (Learner.id) of X
// and Y, X < Y. Two ids in a word rather than two strings: a handler
// that reads thousands of data has millions of pairs.
type pairKey uint64

// PairEntry is a pair of data and what a learner knows of it: the stored
// form of a learner's pairs (State).
type PairEntry struct {
	X, Y string
	pairRec
}

// pairRec is what a learner keeps about one pair of data; the learner's
// key of it has their names. A handler that reads thousands of data has
// millions of pairs.
type pairRec struct {
	// state is the pair's state; nil while the pair has one sample, once.
	// Most pairs of a handler that reads many data meet in one sample:
	// the point takes a fifth of the memory of a state.
	state *PairState
	once  onePoint
	// user holds the state of each binary user template on the pair: under
	// its name for (x, y), and name + "/yx" for (y, x).
	user map[string]*UserState
}

// State returns the pair's state: its own, or for a pair of one sample,
// a new one.
func (p *pairRec) State() *PairState {
	if p.state != nil {
		return p.state
	}
	var st PairState
	pt := p.once.point()
	st.Add(pt.X, pt.Y)
	return &st
}

// single is the point of a pair met in one sample whose values are no
// strings and on which no user template keeps a state: the common pair
// of a handler that reads many data, kept by value in a map the
// collector need not look through (it holds no pointer).
type single struct {
	kx, ky Kind
	bx, by uint64
}

func (s single) rec() pairRec {
	return pairRec{once: onePoint{kx: s.kx, ky: s.ky, bx: s.bx, by: s.by}}
}

// onePoint is the point of a pair met in one sample in half the memory
// of a Point: both values' kinds and bits, and their strings only if one
// is a string (most data are numbers, references, booleans or null).
type onePoint struct {
	kx, ky Kind
	bx, by uint64
	strs   *[2]string
}

func makeOnePoint(x, y Value) onePoint {
	o := onePoint{kx: x.kind, ky: y.kind, bx: x.bits, by: y.bits}
	if x.str != "" || y.str != "" {
		o.strs = &[2]string{x.str, y.str}
	}
	return o
}

// point returns the point; the zero onePoint is that of two absent values.
func (o onePoint) point() Point {
	x, y := Value{kind: o.kx, bits: o.bx}, Value{kind: o.ky, bits: o.by}
	if o.strs != nil {
		x.str, y.str = o.strs[0], o.strs[1]
	}
	return Point{x, y}
}

// add records one sample of the pair.
func (p *pairRec) add(x, y Value) {
	switch {
	case p.state != nil:
		p.state.Add(x, y)
	case p.once.kx == Absent:
		p.once = makeOnePoint(x, y)
	default:
		p.state = p.State()
		p.once = onePoint{}
		p.state.Add(x, y)
	}
}

// merge adds the samples of o, a pair of the same data.
func (p *pairRec) merge(o *pairRec) {
	if o.state == nil {
		if o.once.kx != Absent {
			pt := o.once.point()
			p.add(pt.X, pt.Y)
		}
		return
	}
	if p.state == nil {
		p.state, p.once = p.State(), onePoint{}
	}
	p.state.Merge(o.state)
}

// pairJSON is the stored form of a PairEntry: the failed relations by
// name rather than as bits.
type pairJSON struct {
	X     string   `json:"x"`
	Y     string   `json:"y"`
	Fails []string `json:"fails,omitempty"`
	PairState
	User map[string]*UserState `json:"user,omitempty"`
}

// MarshalJSON writes the pair with its failed relations by name.
func (p *PairEntry) MarshalJSON() ([]byte, error) {
	j := pairJSON{X: p.X, Y: p.Y, PairState: *p.State(), User: p.user}
	for i, n := range failNames {
		if j.PairState.Fails&(1<<i) != 0 {
			j.Fails = append(j.Fails, n)
		}
	}
	return json.Marshal(&j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *PairEntry) UnmarshalJSON(b []byte) error {
	var j pairJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = PairEntry{X: j.X, Y: j.Y, pairRec: pairRec{state: &j.PairState, user: j.User}}
	for _, f := range j.Fails {
		i := slices.Index(failNames, f)
		if i < 0 {
			return fmt.Errorf("pair (%s, %s): unknown failed relation %q", j.X, j.Y, f)
		}
		p.state.Fails |= 1 << i
	}
	return nil
}

// UserState is the incremental state of one user template on one datum
// or pair. Like the built-ins' state it merges exactly.
type UserState struct {
	N      int64 `json:"n"`                // samples of a type the template applies to
	False  int64 `json:"false,omitempty"`  // no fitter: samples where it was false
	Errors int64 `json:"errors,omitempty"` // samples where the expression failed
	// Vals summarizes the expression's values (templates with a fitter).
	Vals *Summary `json:"vals,omitempty"`
	// Distinct holds the smallest distinct operand tuples (no fitter).
	Distinct []Point `json:"distinct,omitempty"`
}

func (s *UserState) add(u *UserTemplate, x, y Value) {
	v, st := u.eval(x, y)
	switch st {
	case evalMismatch:
		return
	case evalError:
		s.N++
		s.Errors++
		return
	}
	s.N++
	if u.fitter == fitNone {
		if !v.Bool() {
			s.False++
		}
		s.Distinct = insertPoint(s.Distinct, Point{x, y}, u.minDistinct)
		return
	}
	if s.Vals == nil {
		s.Vals = new(Summary)
	}
	s.Vals.Add(v)
}

func (s *UserState) merge(u *UserTemplate, o *UserState) {
	s.N += o.N
	s.False += o.False
	s.Errors += o.Errors
	if o.Vals != nil {
		if s.Vals == nil {
			s.Vals = new(Summary)
		}
		s.Vals.Merge(o.Vals)
	}
	for _, p := range o.Distinct {
		s.Distinct = insertPoint(s.Distinct, p, u.minDistinct)
	}
}

// Learner learns the conditions of one handler from its samples, one at a
// time, in memory bounded by the data and pairs of data it has seen (never
// by the number of samples). A learner learns from the samples of one run
// (one execution: the samples of a run are not independent, and the
// evidence for a bound counts runs); learners of runs are merged. Learners
// of the same catalog merge exactly: learning on two sets of runs and
// merging gives the state of learning on all of them, in any order.
//
// A Learner is not safe for concurrent use.
type Learner struct {
	cat       *Catalog
	samples   int64
	vars      map[string]*VarState
	pairs     map[pairKey]*pairRec // the pairs not in singles
	singles   map[pairKey]single   // the pairs met in one sample that a single holds
	numbering                      // the data's names, numbered for pairKey
	order     []int                // scratch for Add
	// unpaired counts the samples with more than MaxPairGroup data of one
	// type, whose pairs of that type were not learned.
	unpaired int64
	// guards holds, for each datum tested for its truth (Var.Flag), a
	// learner of the samples in which it was true, without it: what the
	// handler relies on when the guard holds (implications). A guard's
	// learner has no guards of its own (sub).
	guards  map[string]*Learner
	sub     bool
	scratch []Var
	// only, if set, holds the data and pairs the learner learns
	// (Restrict); sids holds the numbers there of Add's sample.
	only *Supported
	sids []int32
	// spent holds, when only is set, the pairs no condition can come of
	// any more (pairSpent), whose state is dropped.
	spent map[pairKey]struct{}
}

// NewLearner returns an empty learner trying the templates of cat.
func NewLearner(cat *Catalog) *Learner {
	return &Learner{cat: cat, vars: make(map[string]*VarState), pairs: make(map[pairKey]*pairRec), singles: make(map[pairKey]single)}
}

// Restrict makes the learner learn only the data and pairs of s, and its
// guards only from the samples in which a datum of s was true: those a
// condition can be learned from, if s holds what was met in at least the
// MinSupport the conditions will be inferred with. It also drops the
// state of a pair once no condition can come of it whatever samples
// follow (every relation broken), and a datum's distinct values once
// there are more than MaxOneOf (Summary.Many). Call it before the first
// Add. The conditions inferred are the same as without it; the state
// lacks the rest, so merging it with another learner's is not exact.
func (l *Learner) Restrict(s *Supported) { l.only = s }

// spend drops the state of the pair of key, of which no condition can
// come any more, and remembers that.
func (l *Learner) spend(key pairKey) {
	delete(l.pairs, key)
	delete(l.singles, key)
	if l.spent == nil {
		l.spent = make(map[pairKey]struct{})
	}
	l.spent[key] = struct{}{}
}

// isSpent reports whether the pair of key is spent.
func (l *Learner) isSpent(key pairKey) bool {
	_, ok := l.spent[key]
	return ok
}

// pairCount returns the number of pairs the learner knows.
func (l *Learner) pairCount() int { return len(l.pairs) + len(l.singles) }

// Pairs returns the number of pairs of data whose state the learner keeps
// (its guards' aside).
func (l *Learner) Pairs() int { return l.pairCount() }

// rec returns the learner's record of the pair of key to add to, made
// (from its single, if it has one) if need be.
func (l *Learner) rec(key pairKey) *pairRec {
	if p := l.pairs[key]; p != nil {
		return p
	}
	return l.newRec(key)
}

// newRec makes the record of the pair of key, which has none: from its
// single, if it has one.
func (l *Learner) newRec(key pairKey) *pairRec {
	p := &pairRec{}
	if s, ok := l.singles[key]; ok {
		*p = s.rec()
		delete(l.singles, key)
	}
	l.pairs[key] = p
	return p
}

// firstSingle keeps s as the single of the pair of key, which has no
// record, if the pair was never met (or spends it: Restrict); it reports
// whether it did.
func (l *Learner) firstSingle(key pairKey, s single) bool {
	if _, met := l.singles[key]; met {
		return false
	}
	if l.only != nil {
		// One sample breaks every relation only if its values are of no
		// one class, or a NaN: only those can be spent.
		r := s.rec()
		if pt := r.once.point(); pt.X.class() != pt.Y.class() || pt.X.IsNaN() || pt.Y.IsNaN() {
			if r.state = r.State(); l.pairSpent(&r) {
				l.spend(key)
				return true
			}
		}
	}
	l.singles[key] = s
	return true
}

// key returns the key of the pair (x, y), x < y, numbering their names
// if they have no number yet.
func (l *Learner) key(x, y string) pairKey {
	return pairKey(uint64(uint32(l.id(x)))<<32 | uint64(uint32(l.id(y))))
}

func (l *Learner) id(name string) int32 {
	i, _ := l.number(name)
	return i
}

// numbering numbers the names of data in the order first met.
type numbering struct {
	ids   map[string]int32
	names []string // by number
}

// number returns name's number, and whether it is new.
func (n *numbering) number(name string) (int32, bool) {
	if i, ok := n.ids[name]; ok {
		return i, false
	}
	if n.ids == nil {
		n.ids = make(map[string]int32)
	}
	i := int32(len(n.names))
	n.ids[name] = i
	n.names = append(n.names, name)
	return i, true
}

// pairNames returns the names of the pair of key k.
func (l *Learner) pairNames(k pairKey) (x, y string) {
	return l.names[uint32(k>>32)], l.names[uint32(k)]
}

// Samples returns the number of samples added (merged ones included).
func (l *Learner) Samples() int64 { return l.samples }

// Unpaired returns the number of samples (merged ones included) that had
// more than MaxPairGroup data of one abstract type, whose pairs were not
// learned.
func (l *Learner) Unpaired() int64 { return l.unpaired }

// MaxPairGroup bounds the pairs a sample forms: the data of one abstract
// type are paired only if the sample has at most MaxPairGroup of them. A
// handler that reads a few data is learned as if there were no bound; one
// that reads hundreds of one type (a loop over a collection, each element
// named by its place) would form tens of thousands of pairs per sample,
// of data whose names rarely mean the same thing in two runs. The bound
// depends on the sample alone, so learning in any order, on any split of
// the traces, learns the same.
const MaxPairGroup = 64

// Add learns from one sample. Names must be distinct within a sample.
func (l *Learner) Add(vars []Var) {
	l.samples++
	if l.only != nil {
		l.sids = l.sids[:0]
		for i := range vars {
			l.sids = append(l.sids, l.only.id(vars[i].Name))
		}
	}
	for i := range vars {
		v := &vars[i]
		if l.only != nil && l.sids[i] < 0 {
			continue
		}
		vs := l.vars[v.Name]
		if vs == nil {
			vs = &VarState{}
			l.vars[v.Name] = vs
		}
		vs.add(v.Val, v.Deref, v.Guarded, v.Tested, v.Flag)
		if l.only != nil {
			vs.forgetValues()
		}
		for _, t := range l.cat.unary {
			if _, ok := t.user.opType(v.Val, Value{}, 1); ok {
				userState(&vs.User, t.Name).add(t.user, v.Val, Value{})
			}
		}
	}
	if len(vars) < 2 {
		return
	}
	// Pairs within each abstract type.
	var unpaired bool
	l.order, unpaired = pairGroups(vars, l.order, func(group []int) {
		for i, a := range group {
			for _, b := range group[i+1:] {
				if l.only == nil || l.only.pair(l.sids[a], l.sids[b]) {
					l.addPair(&vars[a], &vars[b])
				}
			}
		}
	})
	if unpaired {
		l.unpaired++
	}
	if l.sub {
		return
	}
	for i := range vars {
		g := &vars[i]
		if !g.Flag || !Truthy(g.Val) || l.only != nil && l.sids[i] < 0 {
			continue
		}
		l.scratch = append(append(l.scratch[:0], vars[:i]...), vars[i+1:]...)
		l.guard(g.Name).Add(l.scratch)
	}
}

// guard returns the learner of the samples in which guard g was true.
func (l *Learner) guard(g string) *Learner {
	if l.guards == nil {
		l.guards = make(map[string]*Learner)
	}
	gl := l.guards[g]
	if gl == nil {
		gl = NewLearner(l.cat)
		gl.sub = true
		gl.only = l.only
		l.guards[g] = gl
	}
	return gl
}

func (l *Learner) addPair(a, b *Var) {
	if a.Name > b.Name {
		a, b = b, a
	}
	key := l.key(a.Name, b.Name)
	if l.isSpent(key) {
		return
	}
	p := l.pairs[key]
	if p == nil {
		if a.Val.str == "" && b.Val.str == "" && !l.userApplies(a.Val, b.Val) &&
			l.firstSingle(key, single{kx: a.Val.kind, ky: b.Val.kind, bx: a.Val.bits, by: b.Val.bits}) {
			return
		}
		p = l.newRec(key)
	}
	p.add(a.Val, b.Val)
	for _, t := range l.cat.binary {
		if _, ok := t.user.opType(a.Val, b.Val, 2); !ok {
			continue
		}
		userState(&p.user, t.Name).add(t.user, a.Val, b.Val)
		if !t.user.decl.Symmetric {
			userState(&p.user, t.Name+swappedSuffix).add(t.user, b.Val, a.Val)
		}
	}
	if l.only != nil && l.pairSpent(p) {
		l.spend(key)
	}
}

// userApplies reports whether a binary user template applies to (x, y).
func (l *Learner) userApplies(x, y Value) bool {
	for _, t := range l.cat.binary {
		if _, ok := t.user.opType(x, y, 2); ok {
			return true
		}
	}
	return false
}

// swappedSuffix marks the state of a binary user template on (y, x).
const swappedSuffix = "/yx"

func userState(m *map[string]*UserState, name string) *UserState {
	if *m == nil {
		*m = make(map[string]*UserState)
	}
	s := (*m)[name]
	if s == nil {
		s = &UserState{}
		(*m)[name] = s
	}
	return s
}

// Merge adds the samples learned by o, which must use the same catalog
// (the same user templates).
func (l *Learner) Merge(o *Learner) {
	l.samples += o.samples
	l.unpaired += o.unpaired
	for name, ov := range o.vars {
		vs := l.vars[name]
		if vs == nil {
			vs = &VarState{}
			l.vars[name] = vs
		}
		vs.Summary.Merge(&ov.Summary)
		if l.only != nil {
			vs.forgetValues()
		}
		l.mergeUser(&vs.User, ov.User)
	}
	for ok := range o.spent {
		l.spend(l.key(o.pairNames(ok)))
	}
	for ok, op := range o.pairs {
		key := l.key(o.pairNames(ok))
		if l.isSpent(key) {
			continue
		}
		p := l.rec(key)
		p.merge(op)
		l.mergeUser(&p.user, op.user)
		if l.only != nil && l.pairSpent(p) {
			l.spend(key)
		}
	}
	for ok, os := range o.singles {
		key := l.key(o.pairNames(ok))
		if l.isSpent(key) {
			continue
		}
		p := l.pairs[key]
		if p == nil {
			if l.firstSingle(key, os) {
				continue
			}
			p = l.newRec(key)
		}
		r := os.rec()
		p.merge(&r)
		if l.only != nil && l.pairSpent(p) {
			l.spend(key)
		}
	}
	for g, og := range o.guards {
		l.guard(g).Merge(og)
	}
}

func (l *Learner) mergeUser(dst *map[string]*UserState, src map[string]*UserState) {
	for name, os := range src {
		t, _ := l.cat.Lookup(baseName(name))
		userState(dst, name).merge(t.user, os)
	}
}

func baseName(stateName string) string {
	if n := len(stateName) - len(swappedSuffix); n > 0 && stateName[n:] == swappedSuffix {
		return stateName[:n]
	}
	return stateName
}

// State is a learner's state in a form that can be stored (as JSON) and
// merged later: the spec file keeps it for `spec merge`.
type State struct {
	Samples int64                `json:"samples"`
	Vars    map[string]*VarState `json:"vars,omitempty"`
	Pairs   []*PairEntry         `json:"pairs,omitempty"` // sorted by X, then Y
	// Guards are the states of the learners of the samples in which each
	// guard was true (they have no guards of their own).
	Guards map[string]*State `json:"guards,omitempty"`
}

// State returns the learner's state; it shares memory with the learner
// (the pairs' entries are new, their states the learner's).
func (l *Learner) State() *State {
	s := &State{Samples: l.samples, Vars: l.vars}
	for g, gl := range l.guards {
		if s.Guards == nil {
			s.Guards = make(map[string]*State, len(l.guards))
		}
		s.Guards[g] = gl.State()
	}
	if l.pairCount() > 0 {
		entries := make([]PairEntry, 0, l.pairCount())
		for k, p := range l.pairs {
			x, y := l.pairNames(k)
			entries = append(entries, PairEntry{X: x, Y: y, pairRec: *p})
		}
		for k, s := range l.singles {
			x, y := l.pairNames(k)
			entries = append(entries, PairEntry{X: x, Y: y, pairRec: s.rec()})
		}
		s.Pairs = make([]*PairEntry, len(entries))
		for i := range entries {
			s.Pairs[i] = &entries[i]
		}
	}
	slices.SortFunc(s.Pairs, func(a, b *PairEntry) int {
		if a.X != b.X {
			return strings.Compare(a.X, b.X)
		}
		return strings.Compare(a.Y, b.Y)
	})
	return s
}

// NewLearnerFromState returns a learner holding a stored state. The state
// must be one a learner could have built (it may come from a hand-edited
// file), and every user template it mentions must be in cat.
func NewLearnerFromState(cat *Catalog, s *State) (*Learner, error) {
	l := NewLearner(cat)
	if s.Samples < 0 {
		return nil, fmt.Errorf("negative number of samples")
	}
	l.samples = s.Samples
	check := func(m map[string]*UserState, arity int, n int64, where string) error {
		for name, st := range m {
			t, ok := cat.Lookup(baseName(name))
			if !ok || t.user == nil {
				return fmt.Errorf("%s: state of unknown user template %q", where, name)
			}
			if t.Arity != arity || (arity == 1 && name != baseName(name)) || (t.user.decl.Symmetric && name != baseName(name)) {
				return fmt.Errorf("%s: no such state of user template %q", where, name)
			}
			if err := st.validate(t.user, n); err != nil {
				return fmt.Errorf("%s: user template %q: %w", where, name, err)
			}
		}
		return nil
	}
	for name, vs := range s.Vars {
		if vs == nil {
			return nil, fmt.Errorf("datum %q: no state", name)
		}
		if err := vs.Summary.validate(); err != nil {
			return nil, fmt.Errorf("datum %q: %w", name, err)
		}
		if vs.N > s.Samples {
			return nil, fmt.Errorf("datum %q: more values than samples", name)
		}
		if err := check(vs.User, 1, vs.N, "datum "+name); err != nil {
			return nil, err
		}
		l.vars[name] = vs
	}
	for _, p := range s.Pairs {
		if p == nil || p.X >= p.Y {
			return nil, fmt.Errorf("bad pair state: names must be given in increasing order")
		}
		key := l.key(p.X, p.Y)
		if _, dup := l.pairs[key]; dup {
			return nil, fmt.Errorf("pair (%s, %s) is listed twice", p.X, p.Y)
		}
		if p.state == nil {
			// Built (State), not read from JSON: a pair of one sample.
			p.state, p.once = p.State(), onePoint{}
		}
		st := p.state
		if st.N > 0 && len(st.Tuples) == 0 && !st.ManyTuples {
			// A state stored before pair one-of sets were kept: nothing
			// is known about its tuples.
			st.ManyTuples = true
		}
		if err := st.validate(); err != nil {
			return nil, fmt.Errorf("pair (%s, %s): %w", p.X, p.Y, err)
		}
		if err := check(p.user, 2, st.N, "pair ("+p.X+", "+p.Y+")"); err != nil {
			return nil, err
		}
		l.pairs[key] = &p.pairRec
	}
	for g, gs := range s.Guards {
		if gs == nil {
			return nil, fmt.Errorf("guard %q: no state", g)
		}
		if len(gs.Guards) > 0 {
			return nil, fmt.Errorf("guard %q: a guard's state has no guards", g)
		}
		if gs.Samples > s.Samples {
			return nil, fmt.Errorf("guard %q: more samples than the handler's", g)
		}
		gl, err := NewLearnerFromState(cat, gs)
		if err != nil {
			return nil, fmt.Errorf("guard %q: %w", g, err)
		}
		gl.sub = true
		if l.guards == nil {
			l.guards = make(map[string]*Learner)
		}
		l.guards[g] = gl
	}
	return l, nil
}

// validate checks a stored user template state on data with n samples.
func (s *UserState) validate(u *UserTemplate, n int64) error {
	switch {
	case s == nil:
		return fmt.Errorf("no state")
	case s.N < 0 || s.False < 0 || s.Errors < 0 || s.N > n || s.False+s.Errors > s.N:
		return fmt.Errorf("inconsistent counts")
	case u.fitter == fitNone && (s.Vals != nil || (len(s.Distinct) > 0) != (s.N > s.Errors)),
		u.fitter != fitNone && (len(s.Distinct) > 0 || s.False > 0 || (s.Vals != nil) != (s.N > s.Errors)):
		return fmt.Errorf("inconsistent state")
	case len(s.Distinct) > u.minDistinct:
		return fmt.Errorf("too many distinct tuples")
	}
	for i := 1; i < len(s.Distinct); i++ {
		if comparePoints(s.Distinct[i-1], s.Distinct[i]) >= 0 {
			return fmt.Errorf("distinct tuples out of order")
		}
	}
	if s.Vals != nil {
		if err := s.Vals.validate(); err != nil {
			return err
		}
		if s.Vals.N+s.Errors != s.N {
			return fmt.Errorf("inconsistent counts")
		}
	}
	return nil
}
