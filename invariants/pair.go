package invariants

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Point is a sample of two data: X is the first datum's value, Y the
// second's. Unary distinct-value sets leave Y absent.
type Point struct {
	X Value `json:"x"`
	Y Value `json:"y,omitzero"`
}

func comparePoints(a, b Point) int {
	if c := Compare(a.X, b.X); c != 0 {
		return c
	}
	return Compare(a.Y, b.Y)
}

// distinctCap is how many distinct (x, y) pairs a PairState keeps: the
// number the most demanding built-in binary template needs to be justified.
const distinctCap = 5

// insertPoint adds p to the sorted set, keeping the limit smallest.
func insertPoint(set []Point, p Point, limit int) []Point {
	return insertSorted(set, p, limit, comparePoints)
}

// The binary templates a sample can falsify outright, as bits of
// PairState.Fails. X and Y are the pair's first and second datum.
const (
	failDivXY    uint16 = 1 << iota // x % y == 0
	failDivYX                       // y % x == 0
	failSquareXY                    // y == x*x
	failSquareYX                    // x == y*y
	failDisjoint                    // x & y == 0
	failSubsetXY                    // x & y == x
	failSubsetYX                    // x & y == y
	failLinear                      // the points are not on one line y = a*x + b
)

var failNames = []string{"div_xy", "div_yx", "square_xy", "square_yx", "disjoint", "subset_xy", "subset_yx", "linear"}

// PairState is the incremental state of two data of one abstract type over
// the samples of a handler in which both have a value: how they compare,
// which exact relations no sample has broken, the line through the extreme
// points, and the smallest distinct pairs. Like [Summary] it is a
// commutative summary: Merge gives exactly the state of all samples
// together.
type PairState struct {
	N     int64 `json:"n"`               // samples with both values
	Num   int64 `json:"num,omitempty"`   // both numbers, neither NaN
	Ints  int64 `json:"ints,omitempty"`  // both integers
	Ptr   int64 `json:"ptr,omitempty"`   // both pointers (null or references) or both strings (or null)
	Bools int64 `json:"bools,omitempty"` // both booleans

	Lt   int64 `json:"lt,omitempty"`   // x < y (numbers)
	Eq   int64 `json:"eq,omitempty"`   // x == y (numbers)
	Gt   int64 `json:"gt,omitempty"`   // x > y (numbers)
	Same int64 `json:"same,omitempty"` // x == y (pointers, booleans)
	Diff int64 `json:"diff,omitempty"` // x != y (pointers, booleans)

	// Fails has a bit for each exact relation some sample broke.
	Fails uint16 `json:"-"`

	// Lo and Hi are the smallest and largest numeric points: if every
	// point lies on one line y = a*x + b, it is the line through them.
	Lo Point `json:"lo,omitzero"`
	Hi Point `json:"hi,omitzero"`

	// Distinct holds the smallest distinct numeric points (at most 5).
	Distinct []Point `json:"distinct,omitempty"`

	// Tuples holds every distinct (x, y) with its count while both are
	// integers or strings and there are at most MaxPairs; otherwise
	// ManyTuples is set and Tuples is empty (the pair one-of template).
	Tuples     []Tuple `json:"tuples,omitempty"`
	ManyTuples bool    `json:"many_tuples,omitempty"`
}

// Add records one sample of the pair.
func (p *PairState) Add(x, y Value) {
	if x.kind == Absent || y.kind == Absent {
		return
	}
	p.N++
	p.addTuple(x, y, 1)
	cx, cy := x.class(), y.class()
	switch {
	case cx == classNumber && cy == classNumber:
		if x.IsNaN() || y.IsNaN() {
			return
		}
		p.Num++
		if x.kind == Int && y.kind == Int {
			p.Ints++
		}
		c, _ := cmpNum(x, y)
		switch c {
		case -1:
			p.Lt++
		case 0:
			p.Eq++
		default:
			p.Gt++
		}
		pt := Point{x, y}
		p.addLine(pt, pt)
		p.Distinct = insertPoint(p.Distinct, pt, distinctCap)
		p.Fails |= numberFails(x, y)
	case cx == classPointer && cy == classPointer && !(x.kind == Ref && y.kind == String || x.kind == String && y.kind == Ref):
		p.Ptr++
		p.addSame(Equal(x, y))
	case cx == classBool && cy == classBool:
		p.Bools++
		p.addSame(Equal(x, y))
	}
}

func (p *PairState) addSame(eq bool) {
	if eq {
		p.Same++
	} else {
		p.Diff++
	}
}

// numberFails returns the exact relations the numbers x, y break.
func numberFails(x, y Value) uint16 {
	var f uint16
	if !squareHolds(x, y) {
		f |= failSquareXY
	}
	if !squareHolds(y, x) {
		f |= failSquareYX
	}
	if x.kind != Int || y.kind != Int {
		return f // the integral relations are decided by the type counts
	}
	a, b := x.Int(), y.Int()
	if !dividesHolds(a, b) {
		f |= failDivXY
	}
	if !dividesHolds(b, a) {
		f |= failDivYX
	}
	if a&b != 0 {
		f |= failDisjoint
	}
	if a&b != a {
		f |= failSubsetXY
	}
	if a&b != b {
		f |= failSubsetYX
	}
	return f
}

// dividesHolds reports whether a % b == 0 (false when b is 0).
func dividesHolds(a, b int64) bool {
	if b == 0 {
		return false
	}
	if b == -1 {
		return true // a % -1 is 0; avoids the MinInt64 overflow trap
	}
	return a%b == 0
}

// squareHolds reports whether y == x*x: exactly for integers (no
// overflow), within a relative 1e-9 otherwise.
func squareHolds(x, y Value) bool {
	if x.kind == Int && y.kind == Int {
		a, b := x.Int(), y.Int()
		if a < 0 {
			if a == math.MinInt64 {
				return false
			}
			a = -a
		}
		hi, lo := bits.Mul64(uint64(a), uint64(a))
		return hi == 0 && lo <= math.MaxInt64 && int64(lo) == b
	}
	f := x.Float()
	return near(f*f, y.Float())
}

// near reports whether a and b are equal within a relative 1e-9.
func near(a, b float64) bool {
	if a == b {
		return true
	}
	d := math.Abs(a - b)
	scale := math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
	return d <= 1e-9*scale
}

// addLine folds points lo <= hi (numeric) into the line state. The line
// is the one through the extreme points; when an extreme moves, the old
// extremes must lie on the new line (the points checked before lay on the
// old one, which is then the same line).
func (p *PairState) addLine(lo, hi Point) {
	if p.Fails&failLinear != 0 {
		return
	}
	if p.Lo.X.kind == Absent {
		p.Lo, p.Hi = lo, hi
		p.checkLine(lo, hi)
		return
	}
	oldLo, oldHi := p.Lo, p.Hi
	if comparePoints(lo, p.Lo) < 0 {
		p.Lo = lo
	}
	if comparePoints(hi, p.Hi) > 0 {
		p.Hi = hi
	}
	p.checkLine(oldLo, oldHi, lo, hi)
}

// checkLine marks the line broken unless every point lies on the line
// through p.Lo and p.Hi. A broken line keeps no points, so that the state
// does not depend on when it broke.
func (p *PairState) checkLine(pts ...Point) {
	a, b, ok := line(p.Lo, p.Hi)
	if !ok {
		// Every point has the x of the extremes (Compare orders 0 and
		// -0.0, 1 and 1.0 apart, but they are one number): several y are
		// not a function of x.
		y := p.Lo.Y.Float()
		if p.Hi.Y.Float() != y || slices.ContainsFunc(pts, func(q Point) bool { return q.Y.Float() != y }) {
			p.breakLine()
		}
		return
	}
	for _, q := range pts {
		if !near(a*q.X.Float()+b, q.Y.Float()) {
			p.breakLine()
			return
		}
	}
}

func (p *PairState) breakLine() {
	p.Fails |= failLinear
	p.Lo, p.Hi = Point{}, Point{}
}

// line returns a, b with y = a*x + b through lo and hi, if their x differ.
func line(lo, hi Point) (a, b float64, ok bool) {
	dx := hi.X.Float() - lo.X.Float()
	if dx == 0 {
		return 0, 0, false
	}
	a = (hi.Y.Float() - lo.Y.Float()) / dx
	b = lo.Y.Float() - a*lo.X.Float()
	return a, b, true
}

// Merge adds the samples summarized by o to p.
func (p *PairState) Merge(o *PairState) {
	p.N += o.N
	p.Num += o.Num
	p.Ints += o.Ints
	p.Ptr += o.Ptr
	p.Bools += o.Bools
	p.Lt += o.Lt
	p.Eq += o.Eq
	p.Gt += o.Gt
	p.Same += o.Same
	p.Diff += o.Diff
	if o.Fails&failLinear != 0 {
		p.breakLine()
	}
	p.Fails |= o.Fails
	if o.Lo.X.kind != Absent {
		p.addLine(o.Lo, o.Hi)
	}
	for _, q := range o.Distinct {
		p.Distinct = insertPoint(p.Distinct, q, distinctCap)
	}
	if o.ManyTuples {
		p.manyTuples()
	}
	for _, t := range o.Tuples {
		p.addTuple(t.X, t.Y, t.N)
	}
}

// validate checks that a stored pair state is one that Add and Merge could
// have built.
func (p *PairState) validate() error {
	for _, c := range []int64{p.N, p.Num, p.Ints, p.Ptr, p.Bools, p.Lt, p.Eq, p.Gt, p.Same, p.Diff} {
		if c < 0 {
			return fmt.Errorf("negative count")
		}
	}
	switch {
	case p.Num+p.Ptr+p.Bools > p.N, p.Ints > p.Num, p.Lt+p.Eq+p.Gt != p.Num, p.Same+p.Diff != p.Ptr+p.Bools:
		return fmt.Errorf("inconsistent counts")
	case len(p.Distinct) > distinctCap || int64(len(p.Distinct)) > p.Num || (p.Num > 0) != (len(p.Distinct) > 0):
		return fmt.Errorf("bad set of distinct pairs")
	}
	for i, q := range p.Distinct {
		if !q.X.IsNumber() || !q.Y.IsNumber() || i > 0 && comparePoints(p.Distinct[i-1], q) >= 0 {
			return fmt.Errorf("bad set of distinct pairs")
		}
	}
	line := p.Lo.X.kind != Absent || p.Hi.X.kind != Absent
	switch {
	case p.Fails&failLinear != 0 && line:
		return fmt.Errorf("a broken line keeps no points")
	case p.Fails&failLinear == 0 && p.Num > 0 && (!line || !p.Lo.X.IsNumber() || !p.Lo.Y.IsNumber() ||
		!p.Hi.X.IsNumber() || !p.Hi.Y.IsNumber() || comparePoints(p.Lo, p.Hi) > 0):
		return fmt.Errorf("bad line")
	case p.Num == 0 && line:
		return fmt.Errorf("a line without numbers")
	}
	return p.validateTuples()
}
