package shuffle

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"

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
	null   Ptr[srcProgram]
	mu     *Mutex
}

func (p *srcProgram) work() {}

// TestSourceOfEveryAccessor checks that each op the runtime's API records
// points at the line of the app's code that called it. The API finds that
// line with appCaller, which reads the caller's frame (amd64) and must be
// called by a frame of its own: a wrong frame gives another line. go test
// -tags purego checks the portable version.
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
		func(p *srcProgram) { New(p, &srcProgram{}) },
		func(p *srcProgram) { NewArray[bool](p, 1) },
		func(p *srcProgram) { NewPtrArray[srcProgram](p, 1) },
		func(p *srcProgram) { NewMap[int64](p) },
		func(p *srcProgram) { Table[int64](p, "T") },
		func(p *srcProgram) { p.Runtime().Main().Post(p.work) },
		func(p *srcProgram) { p.Runtime().Main().PostDelayed(p.work, time.Hour).Remove() },
		func(p *srcProgram) { p.Runtime().Main().PostAtTime(p.work, time.Hour) },
		func(p *srcProgram) { p.Runtime().Main().PostAtFront(p.work) },
		func(p *srcProgram) { p.Runtime().Main().PostAsync(p.work, 0) },
		func(p *srcProgram) { l := p.Runtime().StartLooper("l"); l.Post(p.work); l.Quit() },
		func(p *srcProgram) { p.Runtime().Go("w", p.work).Join() },
		func(p *srcProgram) { h := p.Runtime().NewHandle(); h.Signal(); h.Wait() },
		func(p *srcProgram) { p.mu.Lock(); p.i.Get(); p.mu.Unlock() },
		func(p *srcProgram) { p.Runtime().CallSystem(time.Millisecond, p.work) },
		func(p *srcProgram) { p.Runtime().Assert(false, "no") },
		func(p *srcProgram) { p.Runtime().Crash("no") },
		func(p *srcProgram) { p.null.Use() },
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
				p.mu = NewMutex(p)
				p.p.Set(p)
				p.ptrs.Set(0, p)
				mark = int(rt.ops) // the ops so far are the set-up's
				call(p)
			}, Options{Seed: 1, Actions: 1, NoSource: noSource})
			n := 0
			for _, op := range r.ops[mark:] {
				if r.name(op.Task) != "main" {
					continue // the ops of a thread the call started
				}
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
