package learn

import (
	"cmp"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/internal/sympages"
	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/traces"
)

// Invocation is one completed handler invocation (call ... ret) with the
// data it read live-in, under their symbolic names: a sample for learning,
// a realization of the handler's conditions for detection. It is valid
// until the next call of [Sampler.Step].
type Invocation struct {
	Handler traces.Sym // the handler, e.g. TrackDetailActivity.onUpdateResults
	Task    traces.Sym // the event (or thread) that ran it
	Event   bool       // Task is an event; otherwise a thread's top-level call is the scope
	Depth   int        // 0 for an outermost call, 1 for a call inside it, ...
	// Bindings are the invocation's data, in the order the invocation first
	// read them, then the extra fields.
	Bindings []Binding
}

// Binding binds a symbolic name to a concrete location for one invocation.
type Binding struct {
	Name Name
	Loc  traces.Location // the object id (or class) and field
	// Val is the datum's value when the event began: the value the
	// invocation read live-in, or for an extra field its last known value.
	Val traces.Value
	// Group is the datum's abstract type within this invocation: data of
	// equal Group are compared with each other.
	Group int32
	Deref bool // the invocation dereferenced the value it read
	// Guarded marks a pointer the invocation tested for null (a branch op
	// with cond null or nonnull after reading it live-in), Tested a datum
	// a test of the invocation read (cond true: a guard), Flag one whose
	// every such test was of its own truth (the outcome was the value's
	// truthiness: `if (flag)`, not `if (i < n)`).
	Guarded, Tested, Flag bool
	// Extra marks a field the event did not access, of an object it read
	// live-in, in the same abstract type as a field it read (thesis §5.3.3).
	Extra bool
}

// Sampler follows a trace op by op and reports each handler invocation
// with its live-in data. It is the naming machinery learning and
// detection share, so that names in a spec match the names detection
// binds.
//
// The rules:
//
//   - Scope: the data an event reads live-in are those it reads before it
//     writes them itself (thesis §5.2.1: its value comes from another
//     event). The scope is the event from begin to end; for handlers called
//     on a thread outside any event, the outermost call.
//   - An invocation's data are the live-in reads made during its extent,
//     nested calls included; the first read gives the value. A read is
//     dereferenced if any live-in read of it was (deref), guarded if the
//     invocation tested it for null (branch null or nonnull) after reading
//     it, tested if it tested it as a condition (branch true: a guard). A datum the
//     scope wrote before is not live-in, even if an earlier handler of the
//     same event read it.
//   - Names: statics are Class.field. An object is named by its allocation
//     site and its creation order among the objects of that site that the
//     invocation touched (read or wrote a field of), #1 the oldest. The
//     handler's receiver is "this": the object touched by the invocation
//     whose type is the handler's class (TrackDetailActivity for
//     TrackDetailActivity.onPause), if there is exactly one. An object
//     whose id is its own site (a database table "db:Tracks") is named by
//     it. An object never seen allocated is named by its id, "@o17": such
//     names are stable only if the recorder's ids are (high-level
//     locations are; heap addresses are not), so prefer recording allocs.
//     Array elements are fields "[i]", written without a dot: "this.a[3]".
//   - Abstract types: relate ops join, in a union-find over (site, field),
//     (class, field) and (object id, field), the locations they relate.
//     The same field of two objects of one site is one type. Array
//     elements are fields like any other: an element joins a type only
//     through a relate (putting all elements of an array in one type would
//     compare every pair of elements, quadratic in the array's length and
//     rarely meaningful). Types are per trace, so that learning on any
//     split of the traces gives the same result.
//   - Extra fields: for each object (or class) read live-in, its other
//     fields seen so far in the trace, in the abstract type of a field the
//     invocation read, and not accessed by the scope, with their last known
//     values.
//
// A Sampler holds state per object, location and running task: memory
// grows with the heap and the tasks of the trace, not with its length.
type Sampler struct {
	syms *traces.Symbols
	objs sympages.Table[traces.Sym, objInfo] // by object: a lookup per datum named, not a hash
	nobj uint32
	// heap and fields hold the last values of the static fields (class
	// and field) and each class's static fields seen; an object's are in
	// its objInfo.
	heap   map[traces.Location]traces.Value
	fields map[traces.Sym][]traces.Sym
	// The abstract types: a union-find forest of the abstract locations
	// met, numbered (nodes) with each one's parent by number.
	nodes  map[absLoc]int32
	parent []int32
	class  map[traces.Sym]string  // handler -> its class
	isThis map[[2]traces.Sym]bool // (handler, type) -> an object of the type can be the handler's receiver
	scopes map[traces.Sym]*scope
	free   []*frame
	spare  []*scope
	// extra, if not nil, says which fields of the objects an invocation
	// read are worth binding though it did not read them
	// (SetExtraFilter).
	extra ExtraFilter

	inv Invocation
	// scratch for naming: the objects an invocation touched, and the
	// stamp of the invocation numbering them (objInfo.index)
	touched []siteObj
	stamp   uint32
	owners  []owner
	ogroup  map[owner][]int32
}

type objInfo struct {
	site, typ traces.Sym
	seq       uint32 // its number in allocation order, from 1 (0: no object)
	// index is the object's number among those of its site the
	// invocation being named touched, if stamp is the Sampler's.
	index, stamp uint32
	// fields are the object's fields seen, in the order first seen,
	// with their last values (an allocation is not needed).
	fields []fieldInfo
}

// siteObj is an allocated object an invocation touched.
type siteObj struct {
	site traces.Sym
	seq  uint32
	obj  traces.Sym
}

// fieldInfo is a field of an object and its last value seen.
type fieldInfo struct {
	name traces.Sym
	node int32 // its abstract location's node (Sampler.node), or -1 until asked
	val  traces.Value
}

// field returns the slot of field f of object o, if seen.
func (s *Sampler) field(o, f traces.Sym) *fieldInfo {
	if p := s.objs.Get(o); p != nil {
		for i := range p.fields {
			if p.fields[i].name == f {
				return &p.fields[i]
			}
		}
	}
	return nil
}

// obj returns what the trace said of object o as it allocated it, if it
// did.
func (s *Sampler) obj(o traces.Sym) (objInfo, bool) {
	if p := s.objs.Get(o); p != nil && p.seq != 0 {
		return *p, true
	}
	return objInfo{}, false
}

type owner struct {
	id     traces.Sym
	static bool
}

// absLoc is a location up to the identity of its object: (site, field).
type absLoc struct {
	base  traces.Sym
	field traces.Sym
	kind  uint8 // 0 site, 1 class, 2 object id
}

type scope struct {
	event   bool
	written map[traces.Location]struct{}
	frames  []*frame
}

type frame struct {
	handler traces.Sym
	reads   []read
	index   map[traces.Location]int32
	touched map[traces.Sym]struct{}
}

type read struct {
	loc     traces.Location
	val     traces.Value
	deref   bool
	guarded bool
	tested  bool
	notFlag bool // some test of it had another outcome than its truth
}

// NewSampler returns a sampler for a trace whose Syms come from syms.
func NewSampler(syms *traces.Symbols) *Sampler {
	return &Sampler{
		syms:   syms,
		heap:   make(map[traces.Location]traces.Value),
		fields: make(map[traces.Sym][]traces.Sym),
		nodes:  make(map[absLoc]int32),
		class:  make(map[traces.Sym]string),
		isThis: make(map[[2]traces.Sym]bool),
		scopes: make(map[traces.Sym]*scope),
		ogroup: make(map[owner][]int32),
	}
}

// Value returns the last value the trace so far read or wrote at loc (with
// an extra filter, only at the fields it may want).
func (s *Sampler) Value(loc traces.Location) (traces.Value, bool) {
	if !loc.Static {
		if f := s.field(loc.Obj, loc.Field); f != nil {
			return f.val, true
		}
		return traces.Value{}, false
	}
	v, ok := s.heap[loc]
	return v, ok
}

// Step feeds the next op of the trace. At the ret of a handler it returns
// the invocation, valid until the next Step; otherwise nil.
func (s *Sampler) Step(op *traces.Op) *Invocation {
	switch op.Kind {
	case traces.Alloc:
		s.nobj++
		p := s.objs.Slot(op.Loc.Obj)
		p.site, p.typ, p.seq = op.Site, op.Type, s.nobj
		for i := range p.fields {
			p.fields[i].node = -1 // its site is new
		}
	case traces.Begin:
		s.scopes[op.Task] = s.newScope(true)
	case traces.End:
		if sc := s.scopes[op.Task]; sc != nil {
			s.dropScope(op.Task, sc)
		}
	case traces.Call:
		sc := s.scopes[op.Task]
		if sc == nil {
			sc = s.newScope(false)
			s.scopes[op.Task] = sc
		}
		sc.frames = append(sc.frames, s.newFrame(op.Name))
	case traces.Ret:
		return s.ret(op)
	case traces.Read:
		s.see(op.Loc, op.Val)
		sc := s.scopes[op.Task]
		if sc == nil || len(sc.frames) == 0 {
			return nil
		}
		f := sc.frames[len(sc.frames)-1]
		if !op.Loc.Static {
			f.touched[op.Loc.Obj] = struct{}{}
		}
		if _, w := sc.written[op.Loc]; !w {
			f.addRead(read{loc: op.Loc, val: op.Val, deref: op.Deref})
		}
	case traces.Write:
		s.see(op.Loc, op.Val)
		if op.Init {
			return nil // a declared initial value: no write of the handler's
		}
		sc := s.scopes[op.Task]
		if sc == nil {
			return nil
		}
		sc.written[op.Loc] = struct{}{}
		if n := len(sc.frames); n > 0 && !op.Loc.Static {
			sc.frames[n-1].touched[op.Loc.Obj] = struct{}{}
		}
	case traces.Relate:
		s.union(s.abs(op.Loc), s.abs(op.Loc2))
	case traces.Branch:
		if op.Cond == traces.CondEq {
			return nil
		}
		if sc := s.scopes[op.Task]; sc != nil && len(sc.frames) > 0 {
			f := sc.frames[len(sc.frames)-1]
			if i, ok := f.index[op.Loc]; ok {
				if op.Cond == traces.CondTrue {
					r := &f.reads[i]
					r.tested = true
					r.notFlag = r.notFlag || op.Taken != invariants.Truthy(invariants.FromTrace(r.val, s.syms))
				} else {
					f.reads[i].guarded = true
				}
			}
		}
	}
	return nil
}

// see records a value at loc, and loc's field as one of its owner's: the
// extra fields of invocations that read the owner.
func (s *Sampler) see(loc traces.Location, v traces.Value) {
	if s.extra != nil && !s.extra.AnyNeedsField(loc.Field) {
		return // never an extra field
	}
	if !loc.Static {
		if f := s.field(loc.Obj, loc.Field); f != nil {
			if !v.IsAbsent() {
				f.val = v
			}
			return
		}
		p := s.objs.Slot(loc.Obj)
		p.fields = append(p.fields, fieldInfo{name: loc.Field, node: -1, val: v})
		return
	}
	_, known := s.heap[loc]
	if !known {
		s.fields[loc.Obj] = append(s.fields[loc.Obj], loc.Field)
	}
	if !v.IsAbsent() || !known {
		s.heap[loc] = v
	}
}

func (s *Sampler) newScope(event bool) *scope {
	if n := len(s.spare); n > 0 {
		sc := s.spare[n-1]
		s.spare = s.spare[:n-1]
		sc.event = event
		return sc
	}
	return &scope{event: event, written: make(map[traces.Location]struct{})}
}

func (s *Sampler) dropScope(task traces.Sym, sc *scope) {
	for _, f := range sc.frames {
		s.recycle(f)
	}
	sc.frames = sc.frames[:0]
	sc.written = emptied(sc.written)
	s.spare = append(s.spare, sc)
	delete(s.scopes, task)
}

func (s *Sampler) newFrame(h traces.Sym) *frame {
	if n := len(s.free); n > 0 {
		f := s.free[n-1]
		s.free = s.free[:n-1]
		f.handler = h
		return f
	}
	return &frame{handler: h, index: make(map[traces.Location]int32), touched: make(map[traces.Sym]struct{})}
}

func (s *Sampler) recycle(f *frame) {
	f.reads = f.reads[:0]
	f.index = emptied(f.index)
	f.touched = emptied(f.touched)
	s.free = append(s.free, f)
}

func (f *frame) addRead(r read) {
	if i, ok := f.index[r.loc]; ok {
		f.reads[i].deref = f.reads[i].deref || r.deref
		f.reads[i].guarded = f.reads[i].guarded || r.guarded
		f.reads[i].tested = f.reads[i].tested || r.tested
		f.reads[i].notFlag = f.reads[i].notFlag || r.notFlag
		return
	}
	f.index[r.loc] = int32(len(f.reads))
	f.reads = append(f.reads, r)
}

func (s *Sampler) ret(op *traces.Op) *Invocation {
	sc := s.scopes[op.Task]
	if sc == nil || len(sc.frames) == 0 {
		return nil // a ret without its call: the validator reports it
	}
	n := len(sc.frames)
	f := sc.frames[n-1]
	sc.frames = sc.frames[:n-1]
	inv := s.invocation(op.Task, sc, f)
	inv.Depth = n - 1
	if n > 1 { // the caller's extent includes this call
		p := sc.frames[n-2]
		for _, r := range f.reads {
			p.addRead(r)
		}
		for o := range f.touched {
			p.touched[o] = struct{}{}
		}
	}
	s.recycle(f)
	if n == 1 && !sc.event {
		s.dropScope(op.Task, sc)
	}
	return inv
}

// invocation names the data of frame f.
func (s *Sampler) invocation(task traces.Sym, sc *scope, f *frame) *Invocation {
	inv := &s.inv
	inv.Handler, inv.Task, inv.Event = f.handler, task, sc.event
	inv.Bindings = inv.Bindings[:0]
	this := s.name(f)
	s.owners = s.owners[:0]
	s.ogroup = emptied(s.ogroup)
	for _, r := range f.reads {
		if r.val.IsAbsent() {
			continue
		}
		g := s.group(r.loc)
		inv.Bindings = append(inv.Bindings, Binding{
			Name: s.nameOf(r.loc, this), Loc: r.loc, Val: r.val, Group: g, Deref: r.deref, Guarded: r.guarded, Tested: r.tested, Flag: r.tested && !r.notFlag,
		})
		o := owner{r.loc.Obj, r.loc.Static}
		gs, seen := s.ogroup[o]
		if !seen {
			s.owners = append(s.owners, o)
		}
		if !slices.Contains(gs, g) {
			s.ogroup[o] = append(gs, g)
		}
	}
	// Extra fields of the objects read live-in.
	for _, o := range s.owners {
		gs := s.ogroup[o]
		extra := func(loc traces.Location, v traces.Value, g int32) {
			if v.IsAbsent() || !slices.Contains(gs, g) {
				return
			}
			if _, read := f.index[loc]; read {
				return
			}
			if _, w := sc.written[loc]; w {
				return
			}
			inv.Bindings = append(inv.Bindings, Binding{Name: s.nameOf(loc, this), Loc: loc, Val: v, Group: g, Extra: true})
		}
		if !o.static {
			p := s.objs.Get(o.id)
			if p == nil {
				continue // nothing kept of it (SetExtraFilter)
			}
			for i := range p.fields {
				fi := &p.fields[i]
				if s.extra != nil && !s.extra.NeedsField(f.handler, fi.name) {
					continue
				}
				loc := traces.Location{Obj: o.id, Field: fi.name}
				extra(loc, fi.val, s.fieldGroup(loc, fi))
			}
			continue
		}
		for _, field := range s.fields[o.id] {
			if s.extra != nil && !s.extra.NeedsField(f.handler, field) {
				continue
			}
			loc := traces.Location{Obj: o.id, Field: field, Static: true}
			extra(loc, s.heap[loc], s.group(loc))
		}
	}
	return inv
}

// ExtraFilter says which extra fields (those an invocation did not read,
// of objects it read) are worth binding.
type ExtraFilter interface {
	// NeedsField reports whether invocations of handler bind field.
	NeedsField(handler, field traces.Sym) bool
	// AnyNeedsField reports whether NeedsField(h, field) for some h: the
	// sampler keeps no value of the other fields.
	AnyNeedsField(field traces.Sym) bool
}

// SetExtraFilter makes the sampler bind an extra field only if want says
// so: for a reader of a spec, whose conditions name a few fields, the rest
// are work for nothing, and the values of fields no handler wants are not
// kept. The data the invocation read are bound whatever want says.
func (s *Sampler) SetExtraFilter(want ExtraFilter) { s.extra = want }

// name numbers the objects f touched by site, and returns the receiver
// ("this"), or NoSym.
func (s *Sampler) name(f *frame) traces.Sym {
	this, n := traces.NoSym, 0
	s.touched = s.touched[:0]
	for o := range f.touched {
		info, ok := s.obj(o)
		if !ok {
			continue
		}
		if s.receiverType(f.handler, info.typ) {
			this, n = o, n+1
		}
		if o != info.site {
			s.touched = append(s.touched, siteObj{site: info.site, seq: info.seq, obj: o})
		}
	}
	if n != 1 {
		this = traces.NoSym
	}
	// Number the objects of each site in allocation order.
	slices.SortFunc(s.touched, func(a, b siteObj) int {
		if a.site != b.site {
			return cmp.Compare(a.site, b.site)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	s.stamp++
	var i uint32
	for k, t := range s.touched {
		if k == 0 || t.site != s.touched[k-1].site {
			i = 0
		}
		if t.obj == this {
			continue
		}
		i++
		p := s.objs.At(t.obj)
		p.index, p.stamp = i, s.stamp
	}
	return this
}

func (s *Sampler) nameOf(loc traces.Location, this traces.Sym) Name {
	switch {
	case loc.Static:
		return Name{Kind: NameClass, Base: loc.Obj, Field: loc.Field}
	case loc.Obj == this:
		return Name{Kind: NameThis, Field: loc.Field}
	}
	info, ok := s.obj(loc.Obj)
	switch {
	case !ok:
		return Name{Kind: NameObject, Base: loc.Obj, Field: loc.Field}
	case info.site == loc.Obj:
		return Name{Kind: NameSite, Base: loc.Obj, Field: loc.Field}
	}
	var i int32
	if p := s.objs.At(loc.Obj); p.stamp == s.stamp {
		i = int32(p.index)
	}
	return Name{Kind: NameSite, Base: info.site, Index: i, Field: loc.Field}
}

func (s *Sampler) classOf(h traces.Sym) string {
	if c, ok := s.class[h]; ok {
		return c
	}
	name := s.syms.String(h)
	c := ""
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		c = name[:i]
	}
	s.class[h] = c
	return c
}

// receiverType reports whether an object of type typ can be handler h's
// receiver: typ is h's class, allowing for one of them being
// package-qualified.
func (s *Sampler) receiverType(h, typ traces.Sym) bool {
	key := [2]traces.Sym{h, typ}
	if m, ok := s.isThis[key]; ok {
		return m
	}
	cls := s.classOf(h)
	m := false
	if cls != "" && typ != traces.NoSym {
		t := s.syms.String(typ)
		m = t == cls || strings.HasSuffix(t, "."+cls) || strings.HasSuffix(cls, "."+t)
	}
	s.isThis[key] = m
	return m
}

// abs returns the abstract location of loc.
func (s *Sampler) abs(loc traces.Location) absLoc {
	switch {
	case loc.Static:
		return absLoc{base: loc.Obj, field: loc.Field, kind: 1}
	}
	if info, ok := s.obj(loc.Obj); ok {
		return absLoc{base: info.site, field: loc.Field}
	}
	return absLoc{base: loc.Obj, field: loc.Field, kind: 2}
}

// node returns the number of abstract location a, numbering it if new.
func (s *Sampler) node(a absLoc) int32 {
	n, ok := s.nodes[a]
	if !ok {
		n = int32(len(s.parent))
		s.nodes[a] = n
		s.parent = append(s.parent, n)
	}
	return n
}

// root returns the root of node n's tree, halving the path to it.
func (s *Sampler) root(n int32) int32 {
	for s.parent[n] != n {
		s.parent[n] = s.parent[s.parent[n]]
		n = s.parent[n]
	}
	return n
}

func (s *Sampler) union(a, b absLoc) {
	ra, rb := s.root(s.node(a)), s.root(s.node(b))
	if ra != rb {
		s.parent[rb] = ra
	}
}

// group returns the abstract type of loc as a number (its tree's root,
// from 1); equal numbers mean one type until the next relate op.
func (s *Sampler) group(loc traces.Location) int32 {
	if !loc.Static {
		if fi := s.field(loc.Obj, loc.Field); fi != nil {
			return s.fieldGroup(loc, fi)
		}
	}
	return s.root(s.node(s.abs(loc))) + 1
}

// fieldGroup is group of loc, an object's field whose slot is fi: its
// node is kept there once the object is allocated (and so has a site).
func (s *Sampler) fieldGroup(loc traces.Location, fi *fieldInfo) int32 {
	if fi.node < 0 {
		n := s.node(s.abs(loc))
		if _, ok := s.obj(loc.Obj); !ok {
			return s.root(n) + 1
		}
		fi.node = n
	}
	return s.root(fi.node) + 1
}

// emptied returns m empty, for reuse: cleared, or made anew if it holds
// many entries. Clearing a map costs its capacity, not its length, so a
// scratch map that once grew large (a worker's body of thousands of
// reads) would cost that much at every reuse after.
func emptied[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) > maxReused {
		return make(M)
	}
	clear(m)
	return m
}

// maxReused is the most entries of a scratch map that is cleared rather
// than made anew.
const maxReused = 256
