package shuffle

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/licorice-dev/licorice/traces"
)

// Object makes a struct an object of the instrumented heap: embed it, and
// create the struct with [New]. The struct's fields of the types [Int],
// [Float], [Bool], [String] and [Ptr] are then the object's fields in the
// trace, named after the Go fields; every access is recorded.
type Object struct {
	rt *Runtime
	id traces.Sym
}

// Obj is implemented by every struct that embeds [Object].
type Obj interface {
	object() *Object
}

func (o *Object) object() *Object { return o }

// Runtime returns the runtime the object lives in.
func (o *Object) Runtime() *Runtime { return o.rt }

// ID returns the object's id in the trace ("o17").
func (o *Object) ID() string { return o.rt.syms.String(o.id) }

// Env is anything that knows its runtime: the *Runtime, or any heap
// object.
type Env interface {
	Runtime() *Runtime
}

// New makes v, a pointer to a struct that embeds [Object], an object of
// env's heap: it gets an id, its fields are bound to it, and the trace
// records its allocation with its allocation context, the running handler
// and the line of the call ("TrackDetailActivity.onResume:57"), which is
// the same in every execution. It returns v.
//
//go:noinline
func New[T Obj](env Env, v T) T {
	c := appCaller()
	rt := env.Runtime()
	t := rt.running("New")
	info := rt.typeInfo(reflect.TypeOf(v))
	base := reflect.ValueOf(v).UnsafePointer()
	o := v.object()
	if o.rt != nil {
		panic("shuffle: New of an object that is already allocated: " + o.ID())
	}
	o.rt = rt
	o.id = rt.nextID("o", &rt.counter.obj)
	for _, f := range info.fields {
		fp := (*field)(unsafe.Add(base, f.offset))
		fp.rt = rt
		fp.loc = traces.Location{Obj: o.id, Field: f.name}
	}
	rt.emitAlloc(t, o.id, info.name, c)
	return v
}

func (rt *Runtime) emitAlloc(t *task, id, typ traces.Sym, c caller) {
	rt.objTypes[id] = typ
	op := rt.newOp(traces.Alloc, t)
	op.Loc.Obj, op.Type = id, typ
	op.Site, op.Src = rt.allocSite(t, c)
	rt.emit(op)
	rt.step()
}

// Static binds the fields of v, a pointer to a struct, as the static
// fields of class: `Locale.language` for a field language of class
// "Locale". It returns v. The running task declares each field's initial
// value (0, false, "", null) as a class loader would: a write with init
// true.
func Static[T any](env Env, class string, v *T) *T {
	rt := env.Runtime()
	info := rt.typeInfo(reflect.TypeOf(v))
	base := unsafe.Pointer(v)
	c := rt.syms.Intern(class)
	t := rt.running("Static")
	for _, f := range info.fields {
		fp := (*field)(unsafe.Add(base, f.offset))
		fp.rt = rt
		fp.loc = traces.Location{Obj: c, Field: f.name, Static: true}
		op := rt.newOp(traces.Write, t)
		op.Loc, op.Val, op.Init = fp.loc, f.zero, true
		rt.emit(op)
	}
	return v
}

// structInfo is what New needs to know about a struct type.
type structInfo struct {
	name   traces.Sym
	fields []fieldInfo
}

type fieldInfo struct {
	offset uintptr
	name   traces.Sym
	zero   traces.Value // the value of a field never written
}

// zeroValue is the value of a field of type typ that was never written.
func (rt *Runtime) zeroValue(typ reflect.Type) traces.Value {
	switch typ {
	case reflect.TypeFor[Int]():
		return traces.Int(0)
	case reflect.TypeFor[Float]():
		return traces.Float(0)
	case reflect.TypeFor[Bool]():
		return traces.Bool(false)
	case reflect.TypeFor[String]():
		return traces.String(rt.syms.Intern(""))
	}
	return traces.Null() // a Ptr
}

var fieldIface = reflect.TypeFor[interface{ isField() *field }]()

// typeInfo returns the fields of the struct *typ points to that are heap
// fields. Every field type embeds field first, at offset 0.
func (rt *Runtime) typeInfo(typ reflect.Type) *structInfo {
	if info, ok := rt.structs[typ]; ok {
		return info
	}
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("shuffle: %v is not a pointer to a struct", typ))
	}
	st := typ.Elem()
	info := &structInfo{name: rt.syms.Intern(ClassName(st.Name()))}
	for i := range st.NumField() {
		sf := st.Field(i)
		if reflect.PointerTo(sf.Type).Implements(fieldIface) {
			info.fields = append(info.fields, fieldInfo{offset: sf.Offset, name: rt.syms.Intern(sf.Name), zero: rt.zeroValue(sf.Type)})
		}
	}
	if rt.structs == nil {
		rt.structs = make(map[reflect.Type]*structInfo)
	}
	rt.structs[typ] = info
	return info
}

// field is a heap location bound to its runtime; every field type embeds
// it first.
type field struct {
	rt  *Runtime
	loc traces.Location
}

func (f *field) isField() *field { return f }

// bound returns the field's runtime; a field of a struct not made with
// New has none.
func (f *field) bound() *Runtime {
	if f.rt == nil {
		panic("shuffle: access to a field of an object not made with shuffle.New")
	}
	return f.rt
}

// src returns the source location of the app's call c, or none without
// sources. A method that records several ops for one call (a read and a
// write, two reads and a relate) looks it up once.
func (f *field) src(c caller) traces.Sym { return f.bound().srcAt(c) }

// access records a read or write of the field by the running task.
func (f *field) access(k traces.Kind, v traces.Value, deref bool, src traces.Sym) {
	rt := f.bound()
	t := rt.running("a field access")
	op := rt.newOp(k, t)
	op.Loc, op.Val, op.Deref, op.Src = f.loc, v, deref, src
	rt.emit(op)
	rt.step()
}

// update records a write of the field by the running task of a value
// computed from its last read there (write with update: true).
func (f *field) update(v traces.Value, src traces.Sym) {
	rt := f.bound()
	t := rt.running("a field access")
	op := rt.newOp(traces.Write, t)
	op.Loc, op.Val, op.Update, op.Src = f.loc, v, true, src
	rt.emit(op)
	rt.step()
}

// test records a test of the field, value v, by the app's call c: the
// read, then a branch at the line of the test that, when taken, jumps to
// the next line (for a pointer, an if-nez: taken if it is not null).
func (f *field) test(v traces.Value, cond traces.BranchCond, taken bool, c caller) {
	rt := f.bound()
	s := rt.names.site(c)
	if rt.opts.NoSource {
		s.src = traces.NoSym
	}
	f.access(traces.Read, v, false, s.src)
	t := rt.running("a test")
	op := rt.newOp(traces.Branch, t)
	op.Loc, op.Cond, op.Taken = f.loc, cond, taken
	op.PC, op.Target, op.Src = int64(s.line), int64(s.line)+1, s.src
	rt.emit(op)
	rt.step()
}

// relate records that two fields met in a comparison or arithmetic.
func (f *field) relate(g *field, via traces.RelateVia, src traces.Sym) {
	rt := f.bound()
	t := rt.running("a comparison")
	op := rt.newOp(traces.Relate, t)
	op.Loc, op.Loc2, op.Via, op.Src = f.loc, g.loc, via, src
	rt.emit(op)
	rt.step()
}

// Int is an integer field.
type Int struct {
	field
	v int64
}

// Get reads the field.
//
//go:noinline
func (x *Int) Get() int64 {
	x.access(traces.Read, traces.Int(x.v), false, x.src(appCaller()))
	return x.v
}

// Set writes the field.
//
//go:noinline
func (x *Int) Set(v int64) { x.v = v; x.access(traces.Write, traces.Int(v), false, x.src(appCaller())) }

// Add reads the field, adds d and writes the sum back; it returns the sum.
//
//go:noinline
func (x *Int) Add(d int64) int64 {
	src := x.src(appCaller())
	x.access(traces.Read, traces.Int(x.v), false, src)
	x.v += d
	x.update(traces.Int(x.v), src)
	return x.v
}

// Compare reads x and y, records that they were compared, and returns -1,
// 0 or +1 as x is less than, equal to or greater than y.
//
//go:noinline
func (x *Int) Compare(y *Int) int {
	a, b := x.read2(y, traces.ViaCmp, appCaller())
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Less reports whether x < y, recording the comparison.
//
//go:noinline
func (x *Int) Less(y *Int) bool { a, b := x.read2(y, traces.ViaCmp, appCaller()); return a < b }

// Equal reports whether x == y, recording the comparison.
//
//go:noinline
func (x *Int) Equal(y *Int) bool { a, b := x.read2(y, traces.ViaCmp, appCaller()); return a == b }

// Plus returns x + y, recording the arithmetic.
//
//go:noinline
func (x *Int) Plus(y *Int) int64 { a, b := x.read2(y, traces.ViaArith, appCaller()); return a + b }

// Minus returns x - y, recording the arithmetic.
//
//go:noinline
func (x *Int) Minus(y *Int) int64 { a, b := x.read2(y, traces.ViaArith, appCaller()); return a - b }

func (x *Int) read2(y *Int, via traces.RelateVia, c caller) (int64, int64) {
	src := x.src(c)
	x.access(traces.Read, traces.Int(x.v), false, src)
	y.access(traces.Read, traces.Int(y.v), false, src)
	x.relate(&y.field, via, src)
	return x.v, y.v
}

// Float is a floating-point field.
type Float struct {
	field
	v float64
}

// Get reads the field.
//
//go:noinline
func (x *Float) Get() float64 {
	x.access(traces.Read, traces.Float(x.v), false, x.src(appCaller()))
	return x.v
}

// Set writes the field.
//
//go:noinline
func (x *Float) Set(v float64) {
	x.v = v
	x.access(traces.Write, traces.Float(v), false, x.src(appCaller()))
}

// Less reports whether x < y, recording the comparison.
//
//go:noinline
func (x *Float) Less(y *Float) bool { a, b := x.read2(y, traces.ViaCmp, appCaller()); return a < b }

// Plus returns x + y, recording the arithmetic.
//
//go:noinline
func (x *Float) Plus(y *Float) float64 {
	a, b := x.read2(y, traces.ViaArith, appCaller())
	return a + b
}

// Minus returns x - y, recording the arithmetic.
//
//go:noinline
func (x *Float) Minus(y *Float) float64 {
	a, b := x.read2(y, traces.ViaArith, appCaller())
	return a - b
}

func (x *Float) read2(y *Float, via traces.RelateVia, c caller) (float64, float64) {
	src := x.src(c)
	x.access(traces.Read, traces.Float(x.v), false, src)
	y.access(traces.Read, traces.Float(y.v), false, src)
	x.relate(&y.field, via, src)
	return x.v, y.v
}

// Bool is a boolean field.
type Bool struct {
	field
	v bool
}

// Get reads the field.
//
//go:noinline
func (x *Bool) Get() bool {
	x.access(traces.Read, traces.Bool(x.v), false, x.src(appCaller()))
	return x.v
}

// Test reads the field and tests it, as `if (flag)` does: the trace
// records the read and a guard (branch cond "true", taken if it is true).
// Use it where the code has a path for either value; a flag whose false
// is a bug is read with Get.
//
//go:noinline
func (x *Bool) Test() bool {
	x.test(traces.Bool(x.v), traces.CondTrue, x.v, appCaller())
	return x.v
}

// Set writes the field.
//
//go:noinline
func (x *Bool) Set(v bool) {
	x.v = v
	x.access(traces.Write, traces.Bool(v), false, x.src(appCaller()))
}

// String is a string field.
type String struct {
	field
	v string
}

// Get reads the field.
//
//go:noinline
func (x *String) Get() string {
	x.access(traces.Read, x.value(), false, x.src(appCaller()))
	return x.v
}

// Set writes the field.
//
//go:noinline
func (x *String) Set(v string) { x.v = v; x.access(traces.Write, x.value(), false, x.src(appCaller())) }

// Equal reports whether x == y, recording the comparison.
//
//go:noinline
func (x *String) Equal(y *String) bool {
	src := x.src(appCaller())
	x.access(traces.Read, x.value(), false, src)
	y.access(traces.Read, y.value(), false, src)
	x.relate(&y.field, traces.ViaCmp, src)
	return x.v == y.v
}

func (x *String) value() traces.Value {
	return traces.String(x.bound().syms.Intern(x.v))
}

// Ptr is a pointer field to a heap object of type T (a struct embedding
// [Object]).
type Ptr[T any] struct {
	field
	p *T
}

// Get reads the pointer without dereferencing it (to pass it on, to test
// it, to store it elsewhere).
//
//go:noinline
func (x *Ptr[T]) Get() *T { x.access(traces.Read, ref(x.p), false, x.src(appCaller())); return x.p }

// Use reads the pointer to dereference it: the read is a "use". If the
// pointer is null, the trace records the read and an error, and the run
// crashes with a NullPointerException.
//
//go:noinline
func (x *Ptr[T]) Use() *T {
	c := appCaller()
	x.access(traces.Read, ref(x.p), true, x.src(c))
	if x.p == nil {
		x.rt.crashAt("NullPointerException: "+x.rt.locName(x.loc)+" is null", c)
	}
	return x.p
}

// Set writes the pointer (nil: null, a "free" when it was not null).
//
//go:noinline
func (x *Ptr[T]) Set(p *T) { x.p = p; x.access(traces.Write, ref(p), false, x.src(appCaller())) }

// NotNull reads the pointer and tests it, as `if (p != null)` or
// `if (p == null) return` does; the trace records the read and a branch
// (see the package documentation for what pc and target mean).
//
//go:noinline
func (x *Ptr[T]) NotNull() bool {
	x.test(ref(x.p), traces.CondNonNull, x.p != nil, appCaller())
	return x.p != nil
}

// IsNull is !NotNull, with the same record.
//
//go:noinline
func (x *Ptr[T]) IsNull() bool {
	x.test(ref(x.p), traces.CondNonNull, x.p != nil, appCaller())
	return x.p == nil
}

// ref is the value of a pointer to a heap object.
func ref[T any](p *T) traces.Value {
	if p == nil {
		return traces.Null()
	}
	o, ok := any(p).(Obj)
	if !ok {
		panic(fmt.Sprintf("shuffle: %T is not a heap object: embed shuffle.Object", p))
	}
	id := o.object().id
	if id == traces.NoSym {
		panic(fmt.Sprintf("shuffle: %T was not made with shuffle.New", p))
	}
	return traces.Ref(id)
}

// locName spells a location for messages: "TrackDetailActivity.dataHub"
// (object o12), "Locale.language".
func (rt *Runtime) locName(l traces.Location) string {
	field := rt.syms.String(l.Field)
	if !strings.HasPrefix(field, "[") {
		field = "." + field
	}
	if typ, ok := rt.objTypes[l.Obj]; ok {
		return rt.syms.String(typ) + field + " (object " + rt.syms.String(l.Obj) + ")"
	}
	return rt.syms.String(l.Obj) + field
}

// Scalar is the type of the elements of arrays and the values of maps.
type Scalar interface {
	~int64 | ~float64 | ~bool | ~string
}

func (rt *Runtime) scalar(v any) traces.Value {
	switch x := v.(type) {
	case int64:
		return traces.Int(x)
	case float64:
		return traces.Float(x)
	case bool:
		return traces.Bool(x)
	case string:
		return traces.String(rt.syms.Intern(x))
	}
	rv := reflect.ValueOf(v) // a named scalar type
	switch rv.Kind() {
	case reflect.Int64:
		return traces.Int(rv.Int())
	case reflect.Float64:
		return traces.Float(rv.Float())
	case reflect.Bool:
		return traces.Bool(rv.Bool())
	}
	return traces.String(rt.syms.Intern(rv.String()))
}

// Array is a fixed-size array object of scalars; element i is the field
// "[i]" of the trace.
type Array[V Scalar] struct {
	Object
	elems []V
}

// NewArray allocates an array of n zero elements.
//
//go:noinline
func NewArray[V Scalar](env Env, n int) *Array[V] {
	rt := env.Runtime()
	a := &Array[V]{elems: make([]V, n)}
	rt.allocBuiltin(&a.Object, fmt.Sprintf("%T[]", *new(V)), appCaller())
	return a
}

// Len returns the length, which is fixed (not a recorded access).
func (a *Array[V]) Len() int { return len(a.elems) }

// Get reads element i.
//
//go:noinline
func (a *Array[V]) Get(i int) V {
	a.rt.elemAccess(&a.Object, traces.Read, i, a.rt.scalar(a.elems[i]), false, appCaller())
	return a.elems[i]
}

// Set writes element i.
//
//go:noinline
func (a *Array[V]) Set(i int, v V) {
	a.elems[i] = v
	a.rt.elemAccess(&a.Object, traces.Write, i, a.rt.scalar(v), false, appCaller())
}

// PtrArray is a fixed-size array object of pointers to heap objects of
// type T; element i is the field "[i]".
type PtrArray[T any] struct {
	Object
	elems []*T
}

// NewPtrArray allocates an array of n null pointers.
//
//go:noinline
func NewPtrArray[T any](env Env, n int) *PtrArray[T] {
	rt := env.Runtime()
	a := &PtrArray[T]{elems: make([]*T, n)}
	rt.allocBuiltin(&a.Object, ClassName(reflect.TypeFor[T]().Name())+"[]", appCaller())
	return a
}

// Len returns the length, which is fixed (not a recorded access).
func (a *PtrArray[T]) Len() int { return len(a.elems) }

// Get reads element i without dereferencing it.
//
//go:noinline
func (a *PtrArray[T]) Get(i int) *T {
	a.rt.elemAccess(&a.Object, traces.Read, i, ref(a.elems[i]), false, appCaller())
	return a.elems[i]
}

// Use reads element i to dereference it; a null element crashes the run
// with a NullPointerException.
//
//go:noinline
func (a *PtrArray[T]) Use(i int) *T {
	c := appCaller()
	a.rt.elemAccess(&a.Object, traces.Read, i, ref(a.elems[i]), true, c)
	if a.elems[i] == nil {
		a.rt.crashAt(fmt.Sprintf("NullPointerException: %s is null", a.rt.locName(traces.Location{Obj: a.id, Field: a.rt.names.index(i)})), c)
	}
	return a.elems[i]
}

// Set writes element i.
//
//go:noinline
func (a *PtrArray[T]) Set(i int, p *T) {
	a.elems[i] = p
	a.rt.elemAccess(&a.Object, traces.Write, i, ref(p), false, appCaller())
}

// elemAccess records an access to array element i by the app's call c.
func (rt *Runtime) elemAccess(o *Object, k traces.Kind, i int, v traces.Value, deref bool, c caller) {
	t := rt.running("an array access")
	op := rt.newOp(k, t)
	op.Loc, op.Val, op.Deref = traces.Location{Obj: o.id, Field: rt.names.index(i)}, v, deref
	op.Src = rt.srcAt(c)
	rt.emit(op)
	rt.step()
}

// allocBuiltin allocates an object of the runtime's own types.
func (rt *Runtime) allocBuiltin(o *Object, typ string, c caller) {
	t := rt.running("New")
	o.rt = rt
	o.id = rt.nextID("o", &rt.counter.obj)
	rt.emitAlloc(t, o.id, rt.syms.Intern(typ), c)
}

// Map is a map object from string keys to scalars: a high-level location
// whose fields are its keys (a HashMap, a SharedPreferences file, a
// database table). A key that is absent reads as null.
type Map[V Scalar] struct {
	Object
	m map[string]V
}

// NewMap allocates an empty map.
//
//go:noinline
func NewMap[V Scalar](env Env) *Map[V] {
	rt := env.Runtime()
	m := &Map[V]{m: make(map[string]V)}
	rt.allocBuiltin(&m.Object, "Map", appCaller())
	return m
}

// Table returns the database table name: a map whose id is "db:name", the
// same in every execution. The first call of a run allocates it (site
// "db:name"); later calls return the same table.
//
//go:noinline
func Table[V Scalar](env Env, name string) *Map[V] {
	c := appCaller()
	rt := env.Runtime()
	t := rt.running("Table")
	if m, ok := rt.tables[name]; ok {
		if m, ok := m.(*Map[V]); ok {
			return m
		}
		panic("shuffle: table " + name + " used with two value types")
	}
	m := &Map[V]{m: make(map[string]V)}
	m.rt = rt
	m.id = rt.syms.Intern("db:" + name)
	if rt.tables == nil {
		rt.tables = make(map[string]any)
	}
	rt.tables[name] = m
	op := rt.newOp(traces.Alloc, t)
	op.Loc.Obj, op.Site, op.Type = m.id, m.id, rt.syms.Intern("Table")
	op.Src = rt.srcAt(c)
	rt.emit(op)
	rt.step()
	return m
}

// Get reads key; ok is false (and the read value null) if it is absent.
//
//go:noinline
func (m *Map[V]) Get(key string) (v V, ok bool) {
	v, ok = m.m[key]
	val := traces.Null()
	if ok {
		val = m.rt.scalar(v)
	}
	m.rt.keyAccess(&m.Object, traces.Read, key, val, appCaller())
	return v, ok
}

// Put writes key.
//
//go:noinline
func (m *Map[V]) Put(key string, v V) {
	m.m[key] = v
	m.rt.keyAccess(&m.Object, traces.Write, key, m.rt.scalar(v), appCaller())
}

// Delete removes key (a write of null).
//
//go:noinline
func (m *Map[V]) Delete(key string) {
	delete(m.m, key)
	m.rt.keyAccess(&m.Object, traces.Write, key, traces.Null(), appCaller())
}

// Len returns the number of keys (not a recorded access).
func (m *Map[V]) Len() int { return len(m.m) }

func (rt *Runtime) keyAccess(o *Object, k traces.Kind, key string, v traces.Value, c caller) {
	t := rt.running("a map access")
	op := rt.newOp(k, t)
	op.Loc, op.Val = traces.Location{Obj: o.id, Field: rt.syms.Intern(key)}, v
	op.Src = rt.srcAt(c)
	rt.emit(op)
	rt.step()
}
