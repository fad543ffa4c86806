package shuffle

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/licorice-dev/licorice/traces"
)

// nameCache turns Go code addresses into the trace's names: handler names
// from functions, source locations and allocation sites from call sites.
// Everything is computed once per address.
type nameCache struct {
	syms     *traces.Symbols
	handlers map[uintptr]handlerName
	sites    map[uintptr]callSite
	allocs   map[allocKey]traces.Sym
	methods  map[methodKey]handlerName
	indexes  []traces.Sym // "[i]"
	pcs      [1]uintptr
}

type handlerName struct{ name, src traces.Sym }

// callSite is a source location: "file.go:line" and the line.
type callSite struct {
	src  traces.Sym
	line int
}

type methodKey struct {
	typ    reflect.Type
	method string
}

type allocKey struct {
	handler traces.Sym
	pc      uintptr
}

func (c *nameCache) init(syms *traces.Symbols) {
	c.syms = syms
	c.handlers = make(map[uintptr]handlerName)
	c.sites = make(map[uintptr]callSite)
	c.allocs = make(map[allocKey]traces.Sym)
	c.methods = make(map[methodKey]handlerName)
}

func (c *nameCache) intern(s string) traces.Sym { return c.syms.Intern(s) }

// handler returns the handler name of fn, a function, and the source
// location of its definition.
func (c *nameCache) handler(fn any) (name, src traces.Sym) {
	pc := reflect.ValueOf(fn).Pointer()
	if h, ok := c.handlers[pc]; ok {
		return h.name, h.src
	}
	f := runtime.FuncForPC(pc)
	h := handlerName{name: c.syms.Intern("func")}
	if f != nil {
		h.name = c.syms.Intern(JavaName(f.Name()))
		// A method value's code is a wrapper without a source of its own.
		if file, line := f.FileLine(f.Entry()); !strings.HasPrefix(file, "<") {
			h.src = c.syms.Intern(filepath.Base(file) + ":" + strconv.Itoa(line))
		}
	}
	c.handlers[pc] = h
	return h.name, h.src
}

// JavaName turns the name of a Go function as the runtime spells it
// ("example.com/app.(*trackDetailActivity).OnPause-fm") into a handler
// name in the style of the Java apps the thesis studies: the receiver type
// with a capital first letter, then the method with a small one
// ("TrackDetailActivity.onPause"), whether the receiver is a pointer or
// a value. Closures keep their suffix ("TrackDataHub.start.func1"); a
// plain function is its name alone.
func JavaName(goName string) string {
	s := goName
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[i+1:] // the package
	}
	s = strings.TrimSuffix(s, "-fm")
	s = strings.ReplaceAll(s, "[...]", "")
	parts := strings.Split(s, ".")
	// A method: "(*T).m" or "(T).m", or "T.m" for a value receiver (not a
	// closure "f.func1").
	method := strings.HasPrefix(parts[0], "(") ||
		len(parts) == 2 && !isClosure(parts[1])
	if method {
		parts[0] = withFirst(strings.Trim(parts[0], "(*)"), unicode.ToUpper)
		if len(parts) > 1 {
			parts[1] = withFirst(parts[1], unicode.ToLower)
		}
	}
	return strings.Join(parts, ".")
}

// isClosure reports whether a part of a function name is a closure's
// ("func1").
func isClosure(part string) bool {
	rest, ok := strings.CutPrefix(part, "func")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ClassName is the Java-style name of a Go type name: capital first
// letter.
func ClassName(goType string) string { return withFirst(goType, unicode.ToUpper) }

func withFirst(s string, f func(rune) rune) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(f(r)) + s[n:]
}

// site returns the call site skip frames above the caller of site (1: the
// caller itself).
func (c *nameCache) site(skip int) (callSite, uintptr) {
	if runtime.Callers(skip+1, c.pcs[:]) == 0 {
		return callSite{}, 0
	}
	pc := c.pcs[0]
	if s, ok := c.sites[pc]; ok {
		return s, pc
	}
	fr, _ := runtime.CallersFrames(c.pcs[:]).Next()
	s := callSite{line: fr.Line}
	if fr.File != "" {
		s.src = c.syms.Intern(filepath.Base(fr.File) + ":" + strconv.Itoa(fr.Line))
	}
	c.sites[pc] = s
	return s, pc
}

// srcOf sets op's source location to the app's call site, skip frames
// above the caller of srcOf (1: srcOf's caller; 2: its caller, the app
// when srcOf is called by a method the app calls).
func (rt *Runtime) srcOf(op *traces.Op, skip int) {
	if rt.opts.NoSource || skip <= 0 {
		return // skip 0: an op of the runtime itself, not of app code
	}
	s, _ := rt.names.site(skip + 1)
	op.Src = s.src
}

// allocSite is the allocation context of an object created at the call
// site skip frames above allocSite's caller by task t: the innermost
// handler t runs and the line, "TrackDetailActivity.onResume:57".
func (rt *Runtime) allocSite(t *task, skip int) (site, src traces.Sym) {
	s, pc := rt.names.site(skip + 1)
	h := traces.NoSym
	if n := len(t.calls); n > 0 {
		h = t.calls[n-1]
	}
	key := allocKey{h, pc}
	if y, ok := rt.names.allocs[key]; ok {
		return y, s.src
	}
	name := rt.syms.String(h)
	if name == "" {
		name = rt.syms.String(t.id)
	}
	y := rt.syms.Intern(name + ":" + strconv.Itoa(s.line))
	rt.names.allocs[key] = y
	if rt.opts.NoSource {
		return y, traces.NoSym
	}
	return y, s.src
}

// index returns the field name "[i]" of an array element.
func (c *nameCache) index(i int) traces.Sym {
	for len(c.indexes) <= i {
		c.indexes = append(c.indexes, c.syms.Intern("["+strconv.Itoa(len(c.indexes))+"]"))
	}
	return c.indexes[i]
}
