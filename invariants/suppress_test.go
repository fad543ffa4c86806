package invariants

import (
	"slices"
	"testing"
)

func TestSuppression(t *testing.T) {
	n := 60
	tests := []struct {
		name string
		f    func(i int) []Var
		want []string // exactly the reported conditions
	}{
		{"const hides nonzero and bounds", func(int) []Var { return sample("x", 5) }, []string{"x == 5"}},
		{"const string hides nonnull", func(int) []Var { return sample("s", "on") }, []string{`s == "on"`}},
		{"oneof hides bounds and nonzero", func(i int) []Var { return sample("x", 3+i%3) }, []string{"x in {3, 4, 5}"}},
		{"range hides its halves and nonzero", func(i int) []Var { return sample("x", 1+i%6) }, []string{"1 <= x <= 6"}},
		{"two constants hide their relations", func(int) []Var { return sample("x", 1, "y", 2) }, []string{"x == 1", "y == 2"}},
		{"bounds hide the ordering they imply", func(i int) []Var { return sample("x", i%5, "y", 10+i%5) },
			[]string{"0 <= x <= 4", "10 <= y <= 14", "y == x + 10"}},
		{"a shift hides the ordering", func(i int) []Var { return sample("x", i*i, "y", i*i-3) },
			[]string{"y == x - 3"}},
		{"null and nonnull hide !=", func(i int) []Var {
			return []Var{{Name: "p", Val: NullValue()}, {Name: "q", Val: ref(uint64(i + 1)), Deref: true}}
		}, []string{"p == null", "q != null"}},
		{"equality hides the other relations", func(i int) []Var { return sample("x", (i%5)*(i%5), "y", (i%5)*(i%5)) },
			[]string{"x == y", "0 <= x <= 16"}},
		{"equality class keeps the leader's edges", func(i int) []Var {
			return sample("a", i*7, "b", i*7, "c", i*7, "d", 2*i*7+1)
		}, []string{"a == b", "a == c", "d == 2*a + 1", "a < d"}},
		{"one-of sets and an ordering hide the pairs they allow", func(i int) []Var {
			return sample("x", []int{1, 1, 2}[i%3], "y", []int{2, 3, 3}[i%3])
		}, []string{"x in {1, 2}", "y in {2, 3}", "x < y"}},
		{"one-of sets leave the pairs they do not allow", func(i int) []Var {
			return sample("x", []int{1, 2}[i%2], "y", []string{"a", "b"}[i%2])
		}, []string{"x in {1, 2}", `y in {"a", "b"}`, `(x, y) in {(1, "a"), (2, "b")}`}},
		{"zero constant hides bit relations and implied orderings", func(i int) []Var { return sample("x", 0, "y", 1+i%3) },
			[]string{"x == 0", "y in {1, 2, 3}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := texts(t, Builtins(), Options{}, repeat(n, tc.f)...)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestNoSuppressionOption(t *testing.T) {
	got := texts(t, Builtins(), Options{All: true}, repeat(60, func(int) []Var { return sample("x", 5) })...)
	for _, w := range []string{"x == 5", "x != 0"} {
		if !slices.Contains(got, w) {
			t.Errorf("All: %q missing from %q", w, got)
		}
	}
}
