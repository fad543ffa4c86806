package invariants

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestImplications: a handler that tests active and, when it is true,
// uses buffer (mActive ⇒ mBuffer != null) learns the implication, not
// buffer != null, which its samples with active false falsify; the
// implication holds where the guard is false and survives a stored state.
func TestImplications(t *testing.T) {
	guarded := func(active bool, buffer Value, n int) []Var {
		return []Var{
			{Name: "active", Val: BoolValue(active), Tested: true, Flag: true},
			{Name: "buffer", Val: buffer, Group: 1},
			{Name: "n", Val: IntValue(int64(n)), Group: 2},
		}
	}
	var samples [][]Var
	for i := range 40 {
		if i%2 == 0 {
			samples = append(samples, guarded(true, ref(uint64(i+1)), i))
		} else {
			samples = append(samples, guarded(false, NullValue(), i))
		}
	}
	l := learnEach(Builtins(), samples...)
	got := inferredTexts(l)
	const want = "active ==> buffer != null"
	if !slices.Contains(got, want) || slices.Contains(got, "buffer != null") {
		t.Fatalf("learned %q; want %q and not buffer != null", got, want)
	}
	if slices.Contains(got, "active ==> n >= 0") {
		t.Errorf("learned %q: an implication the handler's own n >= 0 already says", got)
	}
	var c *Condition
	for _, x := range l.Infer(exact) {
		if x.Text() == want {
			c = x
		}
	}
	for _, tc := range []struct {
		vals        []Value
		holds, isOK bool
	}{
		{[]Value{ref(1), BoolValue(true)}, true, true},
		{[]Value{NullValue(), BoolValue(true)}, false, true},
		{[]Value{NullValue(), BoolValue(false)}, true, true}, // the guard is false
		{[]Value{NullValue(), {}}, false, false},             // the guard is unknown
		{[]Value{NullValue()}, false, false},                 // no guard's value
	} {
		if holds, ok := c.Eval(tc.vals); holds != tc.holds || ok != tc.isOK {
			t.Errorf("Eval(%v) = %v, %v; want %v, %v", tc.vals, holds, ok, tc.holds, tc.isOK)
		}
	}

	// Stored and read back, then merged with itself: the same
	// implications.
	b, err := json.Marshal(l.State())
	if err != nil {
		t.Fatal(err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	back, err := NewLearnerFromState(Builtins(), &st)
	if err != nil {
		t.Fatal(err)
	}
	if again := inferredTexts(back); !slices.Equal(again, got) {
		t.Errorf("from the stored state: %q, want %q", again, got)
	}
	back.Merge(l)
	if merged := inferredTexts(back); !slices.Contains(merged, want) {
		t.Errorf("merged: %q, want %q", merged, want)
	}
	st.Guards["active"].Guards = map[string]*State{"x": {}}
	if _, err := NewLearnerFromState(Builtins(), &st); err == nil {
		t.Error("a guard's state with guards of its own was accepted")
	}

	// A guard that one sample compared (if (active < limit)) rather than
	// tested for its truth: "active ==> ..." would not say what the
	// handler tested, so there is no implication.
	compared := append(slices.Clone(samples), []Var{
		{Name: "active", Val: BoolValue(true), Tested: true},
		{Name: "buffer", Val: ref(99), Group: 1},
	})
	if got := inferredTexts(learnEach(Builtins(), compared...)); slices.Contains(got, want) {
		t.Errorf("with a compared guard, learned %q", got)
	}
}

func inferredTexts(l *Learner) []string {
	var out []string
	for _, c := range l.Infer(exact) {
		out = append(out, c.Text())
	}
	return out
}
