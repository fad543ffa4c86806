package shuffle

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

// srcProgram has a field of every kind, for TestSourceOfEveryAccessor.
type srcProgram struct {
	Object
	i, j   Int
	f, g   Float
	b      Bool
	s, s2  String
	p      Ptr[srcProgram]
	ints   *Array[int64]
	ptrs   *PtrArray[srcProgram]
	values *Map[string]
	e      struct{ Int } // its Get is a promoted method, called by a wrapper
}

// TestSourceOfEveryAccessor checks that each op a heap accessor records
// points at the line of the app's code that called it. The accessors find
// that line with returnPC, which reads the caller's frame (amd64) and
// must be called by a frame of their own: a wrong frame gives another
// line. go test -tags purego checks the portable version.
func TestSourceOfEveryAccessor(t *testing.T) {
	// Each call is on the line of its func literal: the source of its ops.
	calls := []func(p *srcProgram){
		func(p *srcProgram) { p.i.Get() },
		func(p *srcProgram) { p.i.Set(1) },
		func(p *srcProgram) { p.i.Add(1) },
		func(p *srcProgram) { p.i.Compare(&p.j) },
		func(p *srcProgram) { p.i.Less(&p.j) },
		func(p *srcProgram) { p.i.Equal(&p.j) },
		func(p *srcProgram) { p.i.Plus(&p.j) },
		func(p *srcProgram) { p.i.Minus(&p.j) },
		func(p *srcProgram) { p.f.Get() },
		func(p *srcProgram) { p.f.Set(1) },
		func(p *srcProgram) { p.f.Less(&p.g) },
		func(p *srcProgram) { p.f.Plus(&p.g) },
		func(p *srcProgram) { p.f.Minus(&p.g) },
		func(p *srcProgram) { p.b.Get() },
		func(p *srcProgram) { p.b.Set(true) },
		func(p *srcProgram) { p.s.Get() },
		func(p *srcProgram) { p.s.Set("x") },
		func(p *srcProgram) { p.s.Equal(&p.s2) },
		func(p *srcProgram) { p.p.Get() },
		func(p *srcProgram) { p.p.Set(p) },
		func(p *srcProgram) { p.p.Use() },
		func(p *srcProgram) { p.p.NotNull() },
		func(p *srcProgram) { p.p.IsNull() },
		func(p *srcProgram) { p.ints.Get(0) },
		func(p *srcProgram) { p.ints.Set(0, 1) },
		func(p *srcProgram) { p.ptrs.Get(0) },
		func(p *srcProgram) { p.ptrs.Set(0, p) },
		func(p *srcProgram) { p.ptrs.Use(0) },
		func(p *srcProgram) { p.values.Get("k") },
		func(p *srcProgram) { p.values.Put("k", "v") },
		func(p *srcProgram) { p.values.Delete("k") },
		func(p *srcProgram) { defer p.i.Set(2) },
		func(p *srcProgram) { get := p.i.Get; get() },
		func(p *srcProgram) { var g interface{ Get() int64 } = &p.i; g.Get() },
		func(p *srcProgram) { var g interface{ Get() int64 } = &p.e; g.Get() },
	}
	for _, noSource := range []bool{false, true} {
		for _, call := range calls {
			f := runtime.FuncForPC(reflect.ValueOf(call).Pointer())
			file, line := f.FileLine(f.Entry())
			want := filepath.Base(file) + ":" + strconv.Itoa(line)
			if noSource {
				want = ""
			}
			mark := 0
			r := record(t, func(rt *Runtime) {
				p := New(rt, &srcProgram{})
				p.ints = NewArray[int64](p, 1)
				p.ptrs = NewPtrArray[srcProgram](p, 1)
				p.values = NewMap[string](p)
				p.p.Set(p)
				p.ptrs.Set(0, p)
				mark = int(rt.ops) // the ops so far are the set-up's
				call(p)
			}, Options{Seed: 1, Actions: 1, NoSource: noSource})
			n := 0
			for _, op := range r.ops[mark:] {
				if op.Kind == traces.Ret {
					break // of Application.onCreate: the call is over
				}
				n++
				if got := r.name(op.Src); got != want {
					t.Errorf("%s: %v op has src %q, want %q", f.Name(), op.Kind, got, want)
				}
				if op.Kind == traces.Branch && !noSource && (op.PC != int64(line) || op.Target != int64(line)+1) {
					t.Errorf("%s: branch pc %d target %d, want %d and %d", f.Name(), op.PC, op.Target, line, line+1)
				}
			}
			if n == 0 {
				t.Errorf("%s recorded no op", f.Name())
			}
		}
	}
}
