package invariants

import (
	"fmt"
	"slices"
)

// MaxOneOf is the largest set a one-of condition (x in {a, b, c}) lists.
const MaxOneOf = 3

// smallCap is how many distinct values a Summary keeps: one more than the
// largest one-of set, so that "more than MaxOneOf values" is known.
const smallCap = MaxOneOf + 1

// Summary is the incremental state of one datum (or of a user template's
// derived value) over the samples of a handler: counts, numeric bounds with
// how often each was hit, and the smallest distinct values. Every unary
// condition is decided from it, so it is all a learner keeps per datum.
//
// The samples added to one summary are of one run (one execution); the
// summaries of runs are merged. Summaries are mergeable: a.Merge(b) gives
// exactly the summary of the runs of a and b together, whatever the order
// they came in, because every field is a count, an extreme, or the
// smallest few values of a total order ([Compare]).
type Summary struct {
	N      int64 `json:"n"`                // samples with a value
	Null   int64 `json:"null,omitempty"`   // null pointers
	Ref    int64 `json:"ref,omitempty"`    // references
	Int    int64 `json:"int,omitempty"`    // integers
	Float  int64 `json:"float,omitempty"`  // floats
	Bool   int64 `json:"bool,omitempty"`   // booleans
	String int64 `json:"string,omitempty"` // strings
	NaN    int64 `json:"nan,omitempty"`    // float NaNs
	Zero   int64 `json:"zero,omitempty"`   // numbers equal to 0
	Deref  int64 `json:"deref,omitempty"`  // samples in which the pointer was dereferenced
	Guard  int64 `json:"guard,omitempty"`  // samples in which the pointer was tested for null
	Tested int64 `json:"tested,omitempty"` // samples in which a test read the datum
	Flags  int64 `json:"flags,omitempty"`  // of those, the ones whose every test was of its truth

	// Min and Max are the extreme numbers (NaN aside), MinN and MaxN how
	// many samples hit them, MinRuns and MaxRuns in how many runs.
	Min     Number `json:"min,omitzero"`
	Max     Number `json:"max,omitzero"`
	MinN    int64  `json:"min_n,omitempty"`
	MaxN    int64  `json:"max_n,omitempty"`
	MinRuns int64  `json:"min_runs,omitempty"`
	MaxRuns int64  `json:"max_runs,omitempty"`

	// Small holds the smallest distinct numbers, booleans and strings seen
	// (at most MaxOneOf+1), in Compare order.
	Small []Value `json:"small,omitempty"`
	// Many says that more than MaxOneOf distinct values were seen, kept
	// instead of Small by a learner that keeps only what conditions need
	// (Learner.Restrict): no constant or one-of set can come of them.
	Many bool `json:"many,omitempty"`
}

// Add records one value. An Absent value is no sample.
func (s *Summary) Add(v Value) { s.add(v, false, false, false, false) }

// add records one value; deref says the datum was dereferenced in this
// sample, guarded that it was tested for null, tested that a test read
// it, flag that every such test was of its truth.
func (s *Summary) add(v Value, deref, guarded, tested, flag bool) {
	if v.kind == Absent {
		return
	}
	s.N++
	if deref {
		s.Deref++
	}
	if tested {
		s.Tested++
		if flag {
			s.Flags++
		}
	}
	if guarded {
		s.Guard++
	}
	switch v.kind {
	case Null:
		s.Null++
		return
	case Ref:
		s.Ref++
		return
	case Bool:
		s.Bool++
	case String:
		s.String++
	case Int, Float:
		if v.kind == Int {
			s.Int++
		} else {
			s.Float++
		}
		if v.IsNaN() {
			s.NaN++
		} else {
			s.addNumber(v, 1)
		}
	}
	if !s.Many {
		s.Small = insertSmall(s.Small, v)
	}
}

// forgetValues replaces a full Small by Many.
func (s *Summary) forgetValues() {
	if len(s.Small) == smallCap {
		s.Small, s.Many = nil, true
	}
}

func (s *Summary) addNumber(v Value, n int64) {
	if v.Float() == 0 {
		s.Zero += n
	}
	// All samples added to one summary are of one run: whichever value is
	// the extreme, one run reached it.
	s.addBounds(v, n, 0, v, n, 0)
	s.MinRuns, s.MaxRuns = 1, 1
}

// addBounds folds the extremes lo (hit loN times, in loRuns runs) and hi
// into s.
func (s *Summary) addBounds(lo Value, loN, loRuns int64, hi Value, hiN, hiRuns int64) {
	if s.MinN == 0 {
		s.Min, s.MinN, s.MinRuns, s.Max, s.MaxN, s.MaxRuns = lo.number(), loN, loRuns, hi.number(), hiN, hiRuns
		return
	}
	switch c := Compare(lo, s.Min.Value()); {
	case c < 0:
		s.Min, s.MinN, s.MinRuns = lo.number(), loN, loRuns
	case c == 0:
		s.MinN += loN
		s.MinRuns += loRuns
	}
	switch c := Compare(hi, s.Max.Value()); {
	case c > 0:
		s.Max, s.MaxN, s.MaxRuns = hi.number(), hiN, hiRuns
	case c == 0:
		s.MaxN += hiN
		s.MaxRuns += hiRuns
	}
}

// insertSmall adds v to the sorted set, keeping the smallCap smallest.
func insertSmall(set []Value, v Value) []Value { return insertSorted(set, v, smallCap, Compare) }

// insertSorted adds v to a set sorted by cmp, keeping the limit smallest.
// Keeping the smallest k of a total order is what makes such sets merge
// exactly: the smallest k of a union are the smallest k of the smallest k
// of each part.
func insertSorted[T any](set []T, v T, limit int, cmp func(a, b T) int) []T {
	i, found := slices.BinarySearchFunc(set, v, cmp)
	if found || i >= limit {
		return set
	}
	set = slices.Insert(set, i, v)
	if len(set) > limit {
		set = set[:limit]
	}
	return set
}

// Merge adds the samples summarized by o to s.
func (s *Summary) Merge(o *Summary) {
	s.N += o.N
	s.Null += o.Null
	s.Ref += o.Ref
	s.Int += o.Int
	s.Float += o.Float
	s.Bool += o.Bool
	s.String += o.String
	s.NaN += o.NaN
	s.Zero += o.Zero
	s.Deref += o.Deref
	s.Guard += o.Guard
	s.Tested += o.Tested
	s.Flags += o.Flags
	if o.MinN > 0 {
		s.addBounds(o.Min.Value(), o.MinN, o.MinRuns, o.Max.Value(), o.MaxN, o.MaxRuns)
	}
	if s.Many = s.Many || o.Many; s.Many {
		s.Small = nil
		return
	}
	for _, v := range o.Small {
		s.Small = insertSmall(s.Small, v)
	}
}

// numbers reports whether every value is a number and none is NaN.
func (s *Summary) numbers() bool { return s.N > 0 && s.Int+s.Float == s.N && s.NaN == 0 }

// scalars reports whether every value is of one class among numbers (no
// NaN), booleans and strings: the values a constant or a one-of set can
// name.
func (s *Summary) scalars() bool {
	return s.N > 0 && (s.numbers() || s.Bool == s.N || s.String == s.N)
}

// distinct returns the distinct values if there are at most MaxOneOf.
func (s *Summary) distinct() ([]Value, bool) {
	if s.Many || len(s.Small) > MaxOneOf {
		return nil, false
	}
	return s.Small, true
}

// validate checks that a stored summary is one that Add and Merge could
// have built, so that inference never meets an impossible state.
func (s *Summary) validate() error {
	counts := []int64{s.N, s.Null, s.Ref, s.Int, s.Float, s.Bool, s.String, s.NaN, s.Zero, s.Deref, s.Guard, s.Tested, s.Flags, s.MinN, s.MaxN, s.MinRuns, s.MaxRuns}
	for _, c := range counts {
		if c < 0 {
			return fmt.Errorf("negative count")
		}
	}
	if s.Null+s.Ref+s.Int+s.Float+s.Bool+s.String != s.N {
		return fmt.Errorf("the counts by kind do not add up to n = %d", s.N)
	}
	numbers := s.Int + s.Float - s.NaN
	switch {
	case s.NaN > s.Float, s.Zero > numbers, s.Deref > s.N, s.Guard > s.N, s.Tested > s.N, s.Flags > s.Tested:
		return fmt.Errorf("inconsistent counts")
	case numbers > 0 && (s.MinN < 1 || s.MaxN < 1 || s.MinRuns < 1 || s.MaxRuns < 1 || !s.Min.Value().IsNumber() || !s.Max.Value().IsNumber() ||
		s.Min.Value().IsNaN() || s.Max.Value().IsNaN() || Compare(s.Min.Value(), s.Max.Value()) > 0 || s.MinN > numbers || s.MaxN > numbers):
		return fmt.Errorf("bad numeric bounds")
	case numbers == 0 && (s.MinN != 0 || s.MaxN != 0 || s.Min.kind != Absent || s.Max.kind != Absent):
		return fmt.Errorf("bounds without numbers")
	}
	scalars := numbers + s.NaN + s.Bool + s.String
	if s.Many {
		if len(s.Small) > 0 || scalars < smallCap {
			return fmt.Errorf("bad set of distinct values")
		}
		return nil
	}
	if len(s.Small) > smallCap || (scalars > 0) != (len(s.Small) > 0) || int64(len(s.Small)) > scalars {
		return fmt.Errorf("bad set of distinct values")
	}
	for i, v := range s.Small {
		if v.kind == Absent || v.kind == Null || v.kind == Ref || i > 0 && Compare(s.Small[i-1], v) >= 0 {
			return fmt.Errorf("bad set of distinct values")
		}
	}
	return nil
}

// Number is a Value that is a number or absent (a summary's extremes), in
// half the memory of a Value: it has no string. Its JSON is the Value's.
type Number struct {
	kind Kind
	bits uint64
}

// number returns v, a number or absent, as a Number.
func (v Value) number() Number { return Number{kind: v.kind, bits: v.bits} }

// Value returns the number as a Value.
func (n Number) Value() Value { return Value{kind: n.kind, bits: n.bits} }

// MarshalJSON writes the number as its Value.
func (n Number) MarshalJSON() ([]byte, error) { return n.Value().MarshalJSON() }

// UnmarshalJSON reads a Value that must be a number.
func (n *Number) UnmarshalJSON(b []byte) error {
	var v Value
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	if !v.IsNumber() {
		return fmt.Errorf("%s is not a number", b)
	}
	*n = v.number()
	return nil
}
