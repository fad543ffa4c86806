package invariants

import (
	"fmt"
	"slices"
)

// MaxPairs is the largest set a pair one-of condition
// ((x, y) in {(a1, b1), ...}) lists.
const MaxPairs = 8

// Tuple is a distinct (x, y) of a pair's samples and how many samples had
// it.
type Tuple struct {
	Point
	N int64 `json:"n"`
}

func compareTuples(a, b Tuple) int { return comparePoints(a.Point, b.Point) }

// tupleValue reports whether v can be a constant of a pair one-of set:
// an integer or a string.
func tupleValue(v Value) bool { return v.kind == Int || v.kind == String }

// addTuple records n samples of (x, y) in the pair one-of state: every
// distinct (x, y) with its count while there are at most MaxPairs and all
// are integers or strings; past that, ManyTuples and no tuples, so that
// the state does not depend on when it overflowed (and merges exactly:
// the union of two parts overflows if and only if the whole does).
func (p *PairState) addTuple(x, y Value, n int64) {
	if p.ManyTuples {
		return
	}
	if !tupleValue(x) || !tupleValue(y) {
		p.manyTuples()
		return
	}
	t := Tuple{Point{x, y}, n}
	i, found := slices.BinarySearchFunc(p.Tuples, t, compareTuples)
	if found {
		p.Tuples[i].N += n
		return
	}
	if len(p.Tuples) == MaxPairs {
		p.manyTuples()
		return
	}
	p.Tuples = slices.Insert(p.Tuples, i, t)
}

func (p *PairState) manyTuples() {
	p.ManyTuples = true
	p.Tuples = nil
}

// validateTuples checks a stored pair one-of state.
func (p *PairState) validateTuples() error {
	if p.ManyTuples {
		if len(p.Tuples) > 0 {
			return fmt.Errorf("tuples kept past the limit")
		}
		return nil
	}
	if len(p.Tuples) > MaxPairs {
		return fmt.Errorf("more than %d tuples", MaxPairs)
	}
	var sum int64
	for i, t := range p.Tuples {
		if !tupleValue(t.X) || !tupleValue(t.Y) || t.N < 1 || i > 0 && compareTuples(p.Tuples[i-1], t) >= 0 {
			return fmt.Errorf("bad set of tuples")
		}
		sum += t.N
	}
	if sum != p.N {
		return fmt.Errorf("the tuples' counts do not add up to n = %d", p.N)
	}
	return nil
}

// pairsCondition proposes (x, y) in S, S the observed tuples, with its
// chance: under independence of x and y with their observed frequencies
// p and q, the probability that all n samples fall in S is
// (sum over (a, b) in S of p(a)·q(b))^n. It is proposed only when S is
// strictly smaller than the product of x's and y's distinct values
// (otherwise it says nothing the two one-of sets would not).
func pairsCondition(p *PairState, x, y string, cond func(b builtin, x, y string, chance float64) *Condition) *Condition {
	if p.ManyTuples || len(p.Tuples) < 2 || p.N == 0 {
		return nil
	}
	var xs, ys []Tuple // distinct values with their counts (N)
	count := func(set []Tuple, v Value, n int64) []Tuple {
		for i := range set {
			if Equal(set[i].X, v) {
				set[i].N += n
				return set
			}
		}
		return append(set, Tuple{Point{X: v}, n})
	}
	for _, t := range p.Tuples {
		xs = count(xs, t.X, t.N)
		ys = count(ys, t.Y, t.N)
	}
	if len(p.Tuples) >= len(xs)*len(ys) {
		return nil
	}
	freq := func(set []Tuple, v Value) float64 {
		for _, s := range set {
			if Equal(s.X, v) {
				return float64(s.N) / float64(p.N)
			}
		}
		return 0
	}
	var mass float64
	for _, t := range p.Tuples {
		mass += freq(xs, t.X) * freq(ys, t.Y)
	}
	c := cond(bPairs, x, y, pow(mass, p.N))
	for _, t := range p.Tuples {
		c.Pairs = append(c.Pairs, t.Point)
	}
	return c
}
