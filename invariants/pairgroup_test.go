package invariants

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A sample's data of one abstract type are paired only if there are at
// most MaxPairGroup of them; other types of the sample are paired as
// usual, and the learner counts the samples it did not pair.
func TestMaxPairGroup(t *testing.T) {
	sample := func(big, small int) []Var {
		var vs []Var
		for i := range big {
			vs = append(vs, Var{Name: fmt.Sprintf("this.big%03d", i), Val: IntValue(int64(i)), Group: 1})
		}
		for i := range small {
			vs = append(vs, Var{Name: fmt.Sprintf("this.small%d", i), Val: IntValue(int64(i)), Group: 2})
		}
		return vs
	}
	tests := []struct {
		big, small int
		pairs      int
		unpaired   int64
	}{
		{MaxPairGroup, 0, MaxPairGroup * (MaxPairGroup - 1) / 2, 0},
		{MaxPairGroup + 1, 0, 0, 1},
		{MaxPairGroup + 1, 3, 3, 1},
		{2, 3, 1 + 3, 0},
	}
	for _, tt := range tests {
		l := NewLearner(Builtins())
		l.Add(sample(tt.big, tt.small))
		if got := len(l.State().Pairs); got != tt.pairs || l.Unpaired() != tt.unpaired {
			t.Errorf("%d data of one type, %d of another: %d pairs, %d unpaired samples; want %d and %d",
				tt.big, tt.small, got, l.Unpaired(), tt.pairs, tt.unpaired)
		}
		m := NewLearner(Builtins())
		m.Merge(l)
		m.Merge(l)
		if m.Unpaired() != 2*tt.unpaired {
			t.Errorf("merged twice: %d unpaired samples, want %d", m.Unpaired(), 2*tt.unpaired)
		}
	}
}

// TestOncePairs: a pair met in one sample keeps that sample, not a state,
// and is stored and inferred from as if it had one.
func TestOncePairs(t *testing.T) {
	l := NewLearner(Builtins())
	for i := range 3 {
		l.Add([]Var{
			{Name: fmt.Sprintf("a%d", i), Val: IntValue(int64(i)), Group: 1},
			{Name: fmt.Sprintf("b%d", i), Val: IntValue(int64(2 * i)), Group: 1},
		})
	}
	if len(l.pairs) != 0 || len(l.singles) == 0 {
		t.Errorf("%d pairs of one sample have a record, %d are singles: want all singles", len(l.pairs), len(l.singles))
	}
	l.Add([]Var{{Name: "a0", Val: IntValue(5), Group: 1}, {Name: "b0", Val: IntValue(7), Group: 1}})
	if p := l.pairs[l.key("a0", "b0")]; p.state == nil || p.state.N != 2 {
		t.Errorf("pair of two samples: state %+v, want one of 2 samples", p.state)
	}
	var full PairState
	full.Add(IntValue(1), IntValue(2))
	once, err := json.Marshal(&PairEntry{X: "a1", Y: "b1", pairRec: *l.pair(l.key("a1", "b1"))})
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(&PairEntry{X: "a1", Y: "b1", pairRec: pairRec{state: &full}})
	if err != nil {
		t.Fatal(err)
	}
	if string(once) != string(want) {
		t.Errorf("pair of one sample stored as %s, want %s", once, want)
	}
}

// TestPairsLinearInBody: the pairs a handler's sample forms grow linearly
// with the data it read, not with their square — a body four times
// longer forms at most four times the pairs — whether its data are of one
// abstract type (a loop over a collection) or of many small ones.
func TestPairsLinearInBody(t *testing.T) {
	sample := func(n int) []Var {
		var vs []Var
		for i := range n {
			vs = append(vs, Var{Name: fmt.Sprintf("elem%05d", i), Val: IntValue(int64(i)), Group: 1})
			vs = append(vs, Var{Name: fmt.Sprintf("obj%05d.f", i), Val: IntValue(int64(i % 7)), Group: int32(2 + i/8)})
		}
		return vs
	}
	pairs := func(n int) int {
		l := NewLearner(Builtins())
		l.Add(sample(n))
		return l.pairCount()
	}
	for _, n := range []int{96, 384} {
		small, large := pairs(n), pairs(4*n)
		if small == 0 || large > 4*small {
			t.Errorf("bodies of %d and %d data: %d and %d pairs, want at most 4 times as many", 2*n, 8*n, small, large)
		}
	}
}
