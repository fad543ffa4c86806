package invariants

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// repeat returns n samples made by f(i).
func repeat(n int, f func(i int) []Var) [][]Var {
	out := make([][]Var, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// exact options: no minimum support, so the chance formulas alone decide.
var exact = Options{MinSupport: 1}

func TestBuiltinTemplates(t *testing.T) {
	cycle := func(vals ...any) func(int) any { return func(i int) any { return vals[i%len(vals)] } }
	one := func(name string, f func(int) any) func(int) []Var {
		return func(i int) []Var { return sample(name, f(i)) }
	}
	two := func(fx, fy func(int) any) func(int) []Var {
		return func(i int) []Var { return sample("x", fx(i), "y", fy(i)) }
	}
	deref := func(i int) []Var { return []Var{{Name: "p", Val: ref(uint64(i + 1)), Deref: true}} }
	tests := []struct {
		name    string
		samples [][]Var
		want    string // a condition that must be reported ("" for none)
		not     string // a condition that must not be reported
	}{
		// null: (1/3)^n <= 0.01 from n = 5.
		{"null/justified", repeat(5, one("p", cycle(nil))), "p == null", ""},
		{"null/chance", repeat(4, one("p", cycle(nil))), "", "p == null"},
		{"null/falsified", append(repeat(9, one("p", cycle(nil))), sample("p", ref(1))), "", "p == null"},
		// nonnull: (2/3)^n from n = 12; dereferenced: from one sample.
		{"nonnull/justified", repeat(12, func(i int) []Var { return sample("p", ref(uint64(i+1))) }), "p != null", ""},
		{"nonnull/chance", repeat(11, func(i int) []Var { return sample("p", ref(uint64(i+1))) }), "", "p != null"},
		{"nonnull/deref", repeat(1, deref), "p != null", ""},
		{"nonnull/falsified", append(repeat(30, deref), sample("p", nil)), "", "p != null"},
		{"nonnull/guarded", repeat(30, func(i int) []Var { return []Var{{Name: "p", Val: ref(uint64(i + 1)), Deref: true, Guarded: true}} }), "", "p != null"},
		{"nonnull/sometimes-guarded", append(repeat(30, deref), []Var{{Name: "p", Val: ref(1), Guarded: true}}), "p != null", ""},
		{"null/guarded", repeat(30, func(int) []Var { return []Var{{Name: "p", Val: NullValue(), Guarded: true}} }), "", "p == null"},
		// A guard tested in every sample (ConnectBot's resizeAllowed) has
		// no condition of its own value; tested in some, it has.
		{"const/tested", repeat(30, func(int) []Var { return []Var{{Name: "b", Val: BoolValue(true), Tested: true}} }), "", "b == true"},
		{"const/sometimes-tested", append(repeat(30, one("b", cycle(true))), []Var{{Name: "b", Val: BoolValue(true), Tested: true}}), "b == true", ""},
		{"const/null-tested", repeat(30, func(int) []Var { return []Var{{Name: "b", Val: BoolValue(true), Guarded: true}} }), "b == true", ""},
		{"nonnull/string", repeat(12, one("s", func(i int) any { return fmt.Sprint("v", i) })), "s != null", ""},
		// const: (1/2)^n from n = 7.
		{"const/int", repeat(7, one("x", cycle(42))), "x == 42", ""},
		{"const/chance", repeat(6, one("x", cycle(42))), "", "x == 42"},
		{"const/bool", repeat(7, one("b", cycle(true))), "b == true", ""},
		{"const/string", repeat(7, one("s", cycle("on"))), `s == "on"`, ""},
		{"const/float", repeat(7, one("f", cycle(1.5))), "f == 1.5", ""},
		{"const/falsified", append(repeat(20, one("x", cycle(42))), sample("x", 41)), "", "x == 42"},
		{"const/type", append(repeat(20, one("x", cycle(42))), sample("x", "42")), "", "x == 42"},
		// oneof: (2/3)^n for two values (n = 12), (3/4)^n for three (n = 17).
		{"oneof/two", repeat(12, one("x", cycle(1, 2))), "x in {1, 2}", ""},
		{"oneof/two-chance", repeat(11, one("x", cycle(1, 2))), "", "x in {1, 2}"},
		{"oneof/three", repeat(17, one("x", cycle(3, 1, 2))), "x in {1, 2, 3}", ""},
		{"oneof/three-chance", repeat(16, one("x", cycle(3, 1, 2))), "", "x in {1, 2, 3}"},
		{"oneof/strings", repeat(12, one("s", cycle("b", "a"))), `s in {"a", "b"}`, ""},
		{"oneof/four", repeat(40, one("x", cycle(1, 2, 3, 4))), "", "x in {1, 2, 3}"},
		{"oneof/bools", repeat(40, one("b", cycle(true, false))), "", "b in {false, true}"},
		// bounds: (1/2)^runs that reached each bound, from 7 (each sample is
		// a run here).
		{"range", repeat(70, one("x", cycle(0, 1, 2, 3, 4, 5, 6, 7, 8, 9))), "0 <= x <= 9", "x >= 0"},
		{"range/chance", repeat(60, one("x", cycle(0, 1, 2, 3, 4, 5, 6, 7, 8, 9))), "", "0 <= x <= 9"},
		{"lower", append(repeat(7, one("x", cycle(0))), repeat(30, one("x", func(i int) any { return i + 1 }))...), "x >= 0", "0 <= x <= 30"},
		{"upper", append(repeat(7, one("x", cycle(100))), repeat(30, one("x", func(i int) any { return -i }))...), "x <= 100", "x >= -29"},
		// nonzero: (1 - 1/r)^n, r = span with 0, here 5 (-2..2): n = 21.
		{"nonzero", repeat(21, one("x", cycle(-2, -1, 1, 2))), "x != 0", ""},
		{"nonzero/chance", repeat(20, one("x", cycle(-2, -1, 1, 2))), "", "x != 0"},
		{"nonzero/falsified", repeat(100, one("x", cycle(-2, -1, 0, 1, 2))), "", "x != 0"},
		// orderings and equality: (1/2)^n from n = 7.
		{"eq", repeat(7, two(func(i int) any { return i }, func(i int) any { return i })), "x == y", ""},
		{"eq/chance", repeat(6, two(func(i int) any { return i }, func(i int) any { return i })), "", "x == y"},
		{"eq/pointers", repeat(7, func(i int) []Var { return sample("x", ref(uint64(i+1)), "y", ref(uint64(i+1))) }), "x == y", ""},
		{"eq/strings", repeat(7, func(i int) []Var { return sample("x", fmt.Sprint(i), "y", fmt.Sprint(i)) }), "x == y", ""},
		{"ne/pointers", repeat(7, func(i int) []Var { return sample("x", ref(uint64(i+1)), "y", ref(uint64(i+100))) }), "x != y", ""},
		{"ne/numbers", repeat(7, two(func(i int) any { return i % 2 }, func(i int) any { return 1 - i%2 })), "x != y", ""},
		{"ne/chance", repeat(6, func(i int) []Var { return sample("x", ref(uint64(i+1)), "y", ref(uint64(i+100))) }), "", "x != y"},
		{"lt", repeat(7, two(func(i int) any { return i }, func(i int) any { return i*i + 1 })), "x < y", ""},
		{"lt/chance", repeat(6, two(func(i int) any { return i }, func(i int) any { return i*i + 1 })), "", "x < y"},
		{"lt/swapped", repeat(7, two(func(i int) any { return i*i + 1 }, func(i int) any { return i })), "y < x", ""},
		{"le", repeat(7, two(func(i int) any { return i }, func(i int) any { return i + i%2 })), "x <= y", ""},
		{"le/falsified", append(repeat(20, two(func(i int) any { return i }, func(i int) any { return i + i%2 })), sample("x", 5, "y", 4)), "", "x <= y"},
		// linear: four distinct points.
		{"linear", repeat(4, two(func(i int) any { return i * 3 }, func(i int) any { return 2*i*3 - 7 })), "y == 2*x - 7", ""},
		{"linear/chance", repeat(30, two(func(i int) any { return i % 3 }, func(i int) any { return 2*(i%3) - 7 })), "", "y == 2*x - 7"},
		{"linear/falsified", append(repeat(20, two(func(i int) any { return i }, func(i int) any { return 2*i - 7 })), sample("x", 100, "y", 0)), "", "y == 2*x - 7"},
		{"linear/float", repeat(4, two(func(i int) any { return float64(i) }, func(i int) any { return 0.5*float64(i) + 0.25 })), "y == 0.5*x + 0.25", ""},
		// divides, square, bitwise: five distinct pairs.
		{"divides", repeat(5, two(func(i int) any { return 6 * (i + 1) }, func(i int) any { return 3 })), "x % y == 0", ""},
		{"divides/chance", repeat(4, two(func(i int) any { return 6 * (i + 1) }, func(i int) any { return 3 })), "", "x % y == 0"},
		{"divides/zero", append(repeat(20, two(func(i int) any { return 6 * (i + 1) }, func(i int) any { return 3 })), sample("x", 6, "y", 0)), "", "x % y == 0"},
		{"square", repeat(5, two(func(i int) any { return i - 2 }, func(i int) any { return (i - 2) * (i - 2) })), "y == x*x", ""},
		{"square/chance", repeat(4, two(func(i int) any { return i + 2 }, func(i int) any { return (i + 2) * (i + 2) })), "", "y == x*x"},
		{"disjoint", repeat(5, two(func(i int) any { return 1 << i }, func(i int) any { return 1 << (i + 5) })), "x & y == 0", ""},
		{"disjoint/falsified", append(repeat(20, two(func(i int) any { return 1 << i }, func(i int) any { return 1 << (i + 21) })), sample("x", 3, "y", 1)), "", "x & y == 0"},
		{"subset", repeat(5, two(func(i int) any { return i & 6 }, func(i int) any { return i | 6 })), "x & y == x", ""},
		{"subset/chance", repeat(4, two(func(i int) any { return i & 6 }, func(i int) any { return i | 6 })), "", "x & y == x"},
		// pairs: (sum over S of p(a)q(b))^n; four pairs of four values
		// each, all as frequent: (4/16)^n, from n = 4.
		{"pairs", repeat(4, two(cycle("en", "de", "fr", "pt"), cycle("US", "DE", "FR", "BR"))),
			`(x, y) in {("de", "DE"), ("en", "US"), ("fr", "FR"), ("pt", "BR")}`, ""},
		{"pairs/chance", repeat(3, two(cycle("en", "de", "fr", "pt"), cycle("US", "DE", "FR", "BR"))),
			"", `(x, y) in {("de", "DE"), ("en", "US"), ("fr", "FR")}`},
		{"pairs/ints", repeat(12, two(cycle(1, 2, 3, 1), cycle(10, 20, 30, 20))), "(x, y) in {(1, 10), (1, 20), (2, 20), (3, 30)}", ""},
		// Frequencies count: with (1, "a") 9 times in 10, (0.9² + 0.1²)^n
		// = 0.82^n needs n = 24.
		{"pairs/skewed", repeat(30, two(func(i int) any { return 1 + btoi(i%10 == 0) }, func(i int) any { return []string{"a", "b"}[btoi(i%10 == 0)] })),
			`(x, y) in {(1, "a"), (2, "b")}`, ""},
		{"pairs/skewed-chance", repeat(20, two(func(i int) any { return 1 + btoi(i%10 == 0) }, func(i int) any { return []string{"a", "b"}[btoi(i%10 == 0)] })),
			"", `(x, y) in {(1, "a"), (2, "b")}`},
		// The whole product says nothing about the pair.
		{"pairs/product", repeat(40, two(cycle(1, 2, 1, 2), cycle(5, 5, 6, 6))), "", "(x, y) in {(1, 5), (1, 6), (2, 5), (2, 6)}"},
		{"pairs/falsified", append(repeat(40, two(cycle("en", "de"), cycle("US", "DE"))), sample("x", "en", "y", "DE")),
			"", `(x, y) in {("de", "DE"), ("en", "US")}`},
		{"pairs/floats", repeat(40, two(cycle(1.5, 2.5), cycle("a", "b"))), "", `(x, y) in {(1.5, "a"), (2.5, "b")}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := texts(t, Builtins(), exact, tc.samples...)
			if tc.want != "" && !slices.Contains(got, tc.want) {
				t.Errorf("%q not learned; got %q", tc.want, got)
			}
			if tc.not != "" && slices.Contains(got, tc.not) {
				t.Errorf("%q learned; got %q", tc.not, got)
			}
		})
	}
}

func TestChanceAtTheLimit(t *testing.T) {
	// The limit is inclusive and configurable: (1/2)^7 = 0.0078.
	s := repeat(7, func(int) []Var { return sample("x", 1) })
	if got := texts(t, Builtins(), Options{MinSupport: 1, Limit: math.Pow(0.5, 7)}, s...); !slices.Contains(got, "x == 1") {
		t.Errorf("at the limit: got %q", got)
	}
	if got := texts(t, Builtins(), Options{MinSupport: 1, Limit: math.Pow(0.5, 7) * 0.99}, s...); slices.Contains(got, "x == 1") {
		t.Errorf("below the limit: got %q", got)
	}
	// MinSupport applies too.
	if got := texts(t, Builtins(), Options{MinSupport: 8}, s...); len(got) != 0 {
		t.Errorf("under the minimum support: got %q", got)
	}
}

func TestConditionFields(t *testing.T) {
	var ss [][]Var
	for i := range 20 {
		ss = append(ss, sample("x", i%10))
	}
	ss = append(ss, sample("y", 1)) // a sample without x
	l := learnEach(Builtins(), ss...)
	cs := l.Infer(Options{MinSupport: 1, Limit: 1, All: true})
	var rng *Condition
	for _, c := range cs {
		if c.Template.Name == "range" {
			rng = c
		}
	}
	if rng == nil {
		t.Fatalf("no range in %v", cs)
	}
	if rng.Support != 20 || rng.A != IntValue(0) || rng.B != IntValue(9) {
		t.Errorf("range: support %d, a %v, b %v", rng.Support, rng.A, rng.B)
	}
	if want := math.Pow(0.5, 2); rng.Chance != want {
		t.Errorf("range chance %v, want %v (each bound reached by two runs)", rng.Chance, want)
	}
	// Within one run, a bound hit many times is still one observation.
	one := NewLearner(Builtins())
	for _, s := range ss {
		one.Add(s)
	}
	for _, c := range one.Infer(Options{MinSupport: 1, Limit: 1, All: true}) {
		if c.Template.Name == "range" && c.Chance != 0.5 {
			t.Errorf("one run: range chance %v, want 0.5", c.Chance)
		}
	}
	if l.Samples() != 21 {
		t.Errorf("samples %d", l.Samples())
	}
}

func TestGroupsPrune(t *testing.T) {
	// Two data that are always equal, but in different abstract types:
	// no binary condition between them is ever proposed.
	l := NewLearner(Builtins())
	for i := range 50 {
		l.Add([]Var{{Name: "a", Val: IntValue(int64(i)), Group: 1}, {Name: "b", Val: IntValue(int64(i)), Group: 2}})
	}
	for _, c := range l.Infer(Options{All: true}) {
		if len(c.Vars) == 2 {
			t.Errorf("condition across abstract types: %s", c.Text())
		}
	}
	if n := l.pairCount(); n != 0 {
		t.Errorf("%d pair states across abstract types", n)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestPairsLimit(t *testing.T) {
	// Eight distinct pairs are a set; a ninth makes the state forget them.
	eight := repeat(80, func(i int) []Var { return sample("x", i%8, "y", fmt.Sprint(i%8%3)) })
	l := learnEach(Builtins(), eight...)
	p := l.pair(l.key("x", "y")).State()
	if p.ManyTuples || len(p.Tuples) != 8 {
		t.Fatalf("eight pairs: many %v, %d tuples", p.ManyTuples, len(p.Tuples))
	}
	if got := texts(t, Builtins(), exact, eight...); !slices.ContainsFunc(got, func(s string) bool { return len(s) > 10 && s[:10] == "(x, y) in " }) {
		t.Errorf("eight pairs: no pair one-of in %q", got)
	}
	l.Add(sample("x", 9, "y", "9"))
	if !p.ManyTuples || len(p.Tuples) != 0 {
		t.Errorf("nine pairs: many %v, %d tuples", p.ManyTuples, len(p.Tuples))
	}
}
