package learn

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// guardedTrace writes a trace of n events of Act.onDraw, which tests
// this.active (a guard) and reads this.buf: non-null while active, null
// otherwise (mActive ⇒ mBuffer != null).
func guardedTrace(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"licorice_trace":2,"app":"guarded"}` + "\n")
	b.WriteString(`{"op":"thread_begin","t":"main","kind":"looper"}` + "\n" + `{"op":"attach","t":"main","q":"main"}` + "\n")
	b.WriteString(`{"op":"alloc","t":"main","obj":"o1","site":"App.main:1","type":"Act"}` + "\n")
	for i := range n {
		active := i%2 == 0
		buf := "null"
		if active {
			buf = fmt.Sprintf(`{"ref":"b%d"}`, i)
		}
		e := fmt.Sprintf("E%d", i+1)
		fmt.Fprintf(&b, `{"op":"write","t":"main","obj":"o1","field":"active","val":%v}`+"\n", active)
		fmt.Fprintf(&b, `{"op":"write","t":"main","obj":"o1","field":"buf","val":%s}`+"\n", buf)
		fmt.Fprintf(&b, `{"op":"send","t":"main","q":"main","e":%q}`+"\n", e)
		fmt.Fprintf(&b, `{"op":"begin","t":%q,"thread":"main"}`+"\n", e)
		fmt.Fprintf(&b, `{"op":"call","t":%q,"h":"Act.onDraw"}`+"\n", e)
		fmt.Fprintf(&b, `{"op":"read","t":%q,"obj":"o1","field":"active","val":%v}`+"\n", e, active)
		fmt.Fprintf(&b, `{"op":"branch","t":%q,"obj":"o1","field":"active","cond":"true","taken":%v}`+"\n", e, active)
		fmt.Fprintf(&b, `{"op":"read","t":%q,"obj":"o1","field":"buf","val":%s}`+"\n", e, buf)
		fmt.Fprintf(&b, `{"op":"ret","t":%q,"h":"Act.onDraw"}`+"\n", e)
		fmt.Fprintf(&b, `{"op":"end","t":%q}`+"\n", e)
	}
	path := filepath.Join(dir, "guarded.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGuardedConditions: learning a handler that tests a guard gives the
// implication, which the spec file keeps (condition and state), merges
// keep, and realization binds to the guard's location too.
func TestGuardedConditions(t *testing.T) {
	dir := t.TempDir()
	path := guardedTrace(t, dir, 40)
	sp := learnSpec(t, []string{path}, Options{Mergeable: true})
	const want = "Act.onDraw: this.active ==> this.buf != null"
	var texts []string
	for _, c := range sp.Conditions() {
		texts = append(texts, c.Text())
	}
	if !slices.Contains(texts, want) || slices.Contains(texts, "Act.onDraw: this.buf != null") {
		t.Fatalf("learned %q, want %q (and not this.buf != null)", texts, want)
	}
	a := encode(t, sp)
	if !bytes.Contains(a, []byte(`"guard": "this.active"`)) && !bytes.Contains(a, []byte(`"guard":"this.active"`)) {
		t.Errorf("the spec file has no guard:\n%s", a)
	}
	if b := encode(t, reparse(t, sp)); !bytes.Equal(a, b) {
		t.Fatalf("the spec does not survive its file form\n%s", firstDiff(b, a))
	}
	other := learnSpec(t, []string{guardedTrace(t, t.TempDir(), 30)}, Options{Mergeable: true})
	merged, err := Merge(reparse(t, sp), reparse(t, other))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(merged.Conditions(), func(c *Condition) bool { return c.Text() == want }) {
		t.Errorf("merged spec lost %q", want)
	}
}
