package learn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/licorice-dev/licorice/traces"
)

// checkGolden compares got with the golden file, or rewrites it with
// -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	golden.Check(t, path, []byte(got))
}

// describe runs the sampler over a trace and writes every invocation.
func describe(t *testing.T, path string) string {
	t.Helper()
	return describeWith(t, path, nil)
}

// fieldFilter is an extra filter that wants the fields it names, of
// every handler.
type fieldFilter struct {
	syms *traces.Symbols
	want func(field string) bool
}

func (f fieldFilter) NeedsField(_, field traces.Sym) bool { return f.AnyNeedsField(field) }
func (f fieldFilter) AnyNeedsField(field traces.Sym) bool { return f.want(f.syms.String(field)) }

// describeWith is describe with an extra filter (SetExtraFilter) that
// wants the fields want names, unless want is nil.
func describeWith(t *testing.T, path string, want func(field string) bool) string {
	t.Helper()
	r, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	syms := r.Symbols()
	s := NewSampler(syms)
	if want != nil {
		s.SetExtraFilter(fieldFilter{syms, want})
	}
	var b strings.Builder
	var op traces.Op
	for {
		err := r.Next(&op)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		inv := s.Step(&op)
		if inv == nil {
			continue
		}
		fmt.Fprintf(&b, "%s (task %s, event %v, depth %d)\n", syms.String(inv.Handler), syms.String(inv.Task), inv.Event, inv.Depth)
		for _, bd := range inv.Bindings {
			loc := syms.String(bd.Loc.Obj) + "." + syms.String(bd.Loc.Field)
			if bd.Loc.Static {
				loc = "class " + loc
			}
			fmt.Fprintf(&b, "  %-28s = %-8s at %-16s group %d", bd.Name.String(syms), valueText(bd.Val, syms), loc, bd.Group)
			for _, f := range []struct {
				on   bool
				name string
			}{{bd.Deref, "deref"}, {bd.Guarded, "guarded"}, {bd.Tested, "tested"}, {bd.Flag, "flag"}, {bd.Extra, "extra"}} {
				if f.on {
					b.WriteString(" " + f.name)
				}
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func valueText(v traces.Value, syms *traces.Symbols) string {
	switch v.Kind() {
	case traces.RefValue:
		return "&" + syms.String(v.Sym())
	case traces.StringValue:
		return fmt.Sprintf("%q", syms.String(v.Sym()))
	case traces.IntValue:
		return fmt.Sprint(v.Int())
	case traces.FloatValue:
		return fmt.Sprint(v.Float())
	case traces.BoolValue:
		return fmt.Sprint(v.Bool())
	}
	return v.Kind().String()
}

// TestSampler checks naming, live-in extraction, abstract types and extra
// fields on small traces, each built to show one rule (see the comments
// in the golden files' traces):
//
//   - names: "this" (the one object of the handler's class); two objects
//     of one site numbered by creation order (n2 is #1, n3 #2 in onClick,
//     whatever order they are read in; n1 and n2 are #1 and #2 in visit);
//     a static; a table named by its id; an object never allocated (@x9);
//     an array element without a dot.
//   - replaced: an object replaced during the event: the old manager keeps
//     its name (#1) and its live-in value; the new one (#2) was written,
//     so nothing about it is live-in.
//   - livein: reads after the event's own write are not live-in, even in a
//     later handler; an earlier handler's live-in read stays live-in for
//     the next; a nested call's reads belong to its caller too; a read
//     outside any handler is in no sample; an absent value binds nothing;
//     on a thread, each outermost call is its own scope.
//   - types: relate joins size, capacity and limit (capacity is an extra
//     field of b1; limit is not, the event wrote it), element [0] and mark
//     (not [1]: elements are separate data);
//     name is another type; the same field of two objects of a site shares
//     a type; a null test marks a read guarded, a guard (cond true)
//     tested, and a flag if its outcome was the value's truth (mark's 0,
//     not taken) but not if it was not (limit's 17, not taken: a
//     comparison), a pointer comparison (eq) neither.
func TestSampler(t *testing.T) {
	files, err := filepath.Glob("testdata/sampler/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test traces: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			checkGolden(t, strings.TrimSuffix(f, ".jsonl")+".golden", describe(t, f))
		})
	}
}

// TestExtraFilter: an extra filter leaves out the extra fields it does not
// want, and only those; the Realizer's NeedsField wants a field exactly
// when a condition of the handler names some datum with it.
func TestExtraFilter(t *testing.T) {
	path := filepath.Join("testdata", "sampler", "types.jsonl")
	all := describe(t, path)
	if !strings.Contains(all, " extra\n") {
		t.Fatal("types.jsonl binds no extra field: the test checks nothing")
	}
	if got := describeWith(t, path, func(string) bool { return true }); got != all {
		t.Errorf("a filter that wants every field changed the samples:\n%s\nwant\n%s", got, all)
	}
	none := describeWith(t, path, func(string) bool { return false })
	var want []string
	for _, line := range strings.SplitAfter(all, "\n") {
		if !strings.HasSuffix(line, " extra\n") {
			want = append(want, line)
		}
	}
	if none != strings.Join(want, "") {
		t.Errorf("a filter that wants no field:\n%s\nwant every sample without its extra fields:\n%s", none, strings.Join(want, ""))
	}

	// A filter that wants one field keeps its extra bindings, and no
	// other's.
	var field string
	for _, line := range strings.Split(all, "\n") {
		if strings.HasSuffix(line, " extra") {
			loc := strings.Fields(line[strings.Index(line, " at ")+4:])[0]
			field = loc[strings.LastIndex(loc, ".")+1:]
			break
		}
	}
	want = want[:0]
	for _, line := range strings.SplitAfter(all, "\n") {
		if !strings.HasSuffix(line, " extra\n") || strings.Contains(line, "."+field+" ") {
			want = append(want, line)
		}
	}
	one := describeWith(t, path, func(f string) bool { return f == field })
	if one != strings.Join(want, "") || one == all || one == none {
		t.Errorf("a filter that wants only %s:\n%s\nwant\n%s", field, one, strings.Join(want, ""))
	}

	// The sampler keeps no value of a field no handler wants.
	r, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := NewSampler(r.Symbols())
	s.SetExtraFilter(fieldFilter{r.Symbols(), func(string) bool { return false }})
	if err := traces.Each(context.Background(), r, func(op *traces.Op) error { s.Step(op); return nil }); err != nil {
		t.Fatal(err)
	}
	objFields := 0
	for p := range s.objs.All() {
		objFields += len(p.fields)
	}
	if len(s.heap) != 0 || len(s.fields) != 0 || objFields != 0 {
		t.Errorf("a filter that wants no field: %d static values of %d classes and %d object fields kept, want none", len(s.heap), len(s.fields), objFields)
	}

	syms := traces.NewSymbols()
	sp := &Spec{Handlers: []*Handler{{Name: "A.on", Conditions: []*Condition{
		{Vars: []string{"this.count", "Main.init:1#2.items[0]"}},
		{Vars: []string{"app.A.size"}, Disabled: true},
	}}}}
	sp.index()
	rz := NewRealizer(sp, syms)
	for _, tt := range []struct {
		handler, field string
		want           bool
	}{
		{"A.on", "count", true},
		{"A.on", "[0]", true},
		{"A.on", "items", false},
		{"A.on", "ount", false},
		{"A.on", "size", false}, // only a disabled condition names it
		{"B.on", "count", false},
	} {
		if got := rz.NeedsField(syms.Intern(tt.handler), syms.Intern(tt.field)); got != tt.want {
			t.Errorf("NeedsField(%s, %s) = %v, want %v", tt.handler, tt.field, got, tt.want)
		}
		if tt.want && !rz.AnyNeedsField(syms.Intern(tt.field)) {
			t.Errorf("AnyNeedsField(%s) = false, but NeedsField(%s, %[1]s)", tt.field, tt.handler)
		}
	}
	for _, field := range []string{"items", "ount", "size", "nothing"} {
		if rz.AnyNeedsField(syms.Intern(field)) {
			t.Errorf("AnyNeedsField(%s) = true, want false", field)
		}
	}
}

// TestSamplerObjectNeverKept: with a filter that keeps no field's value,
// an invocation that read a field of an object the sampler keeps nothing
// of (never allocated, its field unwanted) still binds it.
func TestSamplerObjectNeverKept(t *testing.T) {
	syms := traces.NewSymbols()
	s := NewSampler(syms)
	s.SetExtraFilter(fieldFilter{syms, func(string) bool { return false }})
	task, h := syms.Intern("E1"), syms.Intern("A.on")
	loc := traces.Location{Obj: syms.Intern("o9"), Field: syms.Intern("f")}
	var inv *Invocation
	for _, op := range []traces.Op{
		{Kind: traces.Begin, Task: task},
		{Kind: traces.Call, Task: task, Name: h},
		{Kind: traces.Read, Task: task, Loc: loc, Val: traces.Int(3)},
		{Kind: traces.Ret, Task: task, Name: h},
	} {
		inv = s.Step(&op)
	}
	if inv == nil || len(inv.Bindings) != 1 || inv.Bindings[0].Loc != loc {
		t.Fatalf("invocation %+v, want one binding of o9.f", inv)
	}
}
