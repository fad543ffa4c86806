package invariants

import (
	"testing"
)

// sample builds a sample from name/value pairs, all in one group.
func sample(kv ...any) []Var {
	var vs []Var
	for i := 0; i < len(kv); i += 2 {
		vs = append(vs, Var{Name: kv[i].(string), Val: val(kv[i+1])})
	}
	return vs
}

// val converts a Go value: nil is null, int is Int, float64 Float, bool,
// string, ref(n) a reference.
func val(x any) Value {
	switch v := x.(type) {
	case nil:
		return NullValue()
	case int:
		return IntValue(int64(v))
	case int64:
		return IntValue(v)
	case float64:
		return FloatValue(v)
	case bool:
		return BoolValue(v)
	case string:
		return StringValue(v)
	case Value:
		return v
	}
	panic("bad value")
}

func ref(n uint64) Value { return RefValue(n) }

// learnEach learns each sample as a run of its own (so bounds count
// samples) and returns the merged learner.
func learnEach(cat *Catalog, samples ...[]Var) *Learner {
	l := NewLearner(cat)
	for _, s := range samples {
		run := NewLearner(cat)
		run.Add(s)
		l.Merge(run)
	}
	return l
}

// texts learns from samples, each a run, and returns the reported
// conditions' texts.
func texts(t *testing.T, cat *Catalog, opts Options, samples ...[]Var) []string {
	t.Helper()
	l := learnEach(cat, samples...)
	var out []string
	for _, c := range l.Infer(opts) {
		out = append(out, c.Text())
	}
	return out
}

// pair returns the record of the pair of key, or nil: a single's as a
// new record, not the learner's.
func (l *Learner) pair(key pairKey) *pairRec {
	if p := l.pairs[key]; p != nil {
		return p
	}
	if s, ok := l.singles[key]; ok {
		r := s.rec()
		return &r
	}
	return nil
}
