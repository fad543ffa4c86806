package tracetest

import (
	"strconv"

	"github.com/licorice-dev/licorice/traces"
)

// A name identifies a string of the trace (a task, a queue, an object, a
// field, a string value, ...) before it is interned: its kind and a number.
// The generator keeps names in its state, never Syms, and interns each when
// it emits an operation; so it can empty its symbol table at any time (see
// Generator.RecycleSymbols) and memory stays flat however long it runs.
type name uint64

type nameKind uint8

const (
	nThread     nameKind = iota + 1 // looperID, binderID, workerID or threadInput
	nThreadName                     // the same numbers: the thread's "name"
	nEvent                          // the event's number
	nQueue                          // looperQueueID or binderQueueID
	nObject                         // the object's number
	nClass                          // the class (a type, and the owner of statics)
	nField                          // the field's index within its class
	nStatic                         // the static field's index within its class
	nHandler                        // class<<16 | handler
	nHandle                         // pooled handles: the index; fresh: freshHandle | number
	nLock                           // the lock's index
	nSite                           // class<<16 | line: an allocation context
	nSrc                            // class<<16 | line: a source location
	nString                         // index into stringValues
	nError                          // index into errorMessages
)

const (
	kindShift   = 56
	numberMask  = 1<<kindShift - 1
	freshHandle = 1 << 40 // marks fresh handle numbers
)

func mkName(k nameKind, n uint64) name { return name(uint64(k)<<kindShift | n&numberMask) }

func (n name) kind() nameKind { return nameKind(n >> kindShift) }
func (n name) number() uint64 { return uint64(n) & numberMask }

// Thread numbers: the kind in the top bits, an index below.
const (
	threadLooper uint64 = iota << 32
	threadBinder
	threadWorker
	threadInput
)

func looperID(i int) uint64         { return threadLooper | uint64(i) }
func binderID(queue, i int) uint64  { return threadBinder | uint64(queue)<<16 | uint64(i) }
func workerID(i int64) uint64       { return threadWorker | uint64(i) }
func looperQueueID(l, k int) uint64 { return uint64(l)<<16 | uint64(k) }
func binderQueueID(q int) uint64    { return 1<<31 | uint64(q) }

// stringValues are the contents of string values: plain words and every
// kind of character the canonical text form must escape or keep as UTF-8.
var stringValues = [...]string{
	"", "ok", "hello world", "Track 1", "say \"hi\"", `back\slash`, "two\nlines",
	"tab\there", "\u0001\u001f", "ünïcödé", "日本語", "emoji 😀", "/sdcard/tracks.db",
	"</script>", "\u2028", "a b c d e f g h i j k l m n o p",
}

var errorMessages = [...]string{
	"java.lang.NullPointerException",
	"java.lang.IllegalStateException: not attached to a window",
}

// threadWords spell thread ids (row 0) and names (row 1) by thread kind:
// looper, binder, worker, input; then the separator of a binder thread's
// queue and index.
var threadWords = [2][5]string{
	{"looper", "binder", "worker", "input", "."},
	{"HandlerThread-", "Binder:", "AsyncTask #", "InputReader", "_"},
}

// appendThread appends the id of thread x, or its name.
func appendThread(b []byte, x uint64, display bool) []byte {
	words := &threadWords[0]
	if display {
		words = &threadWords[1]
	}
	kind, i := x>>32, x&(1<<32-1)
	switch {
	case x == looperID(0):
		return append(b, "main"...)
	case x == threadInput:
		return append(b, words[3]...)
	}
	b = append(b, words[kind]...)
	if x&^(1<<32-1) == threadBinder {
		b = strconv.AppendUint(b, i>>16, 10)
		b = append(b, words[4]...)
		i &= 0xffff
	}
	return strconv.AppendUint(b, i, 10)
}

// appendName appends the string of n.
func appendName(b []byte, n name) []byte {
	x := n.number()
	num := func(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }
	switch n.kind() {
	case nThread:
		return appendThread(b, x, false)
	case nThreadName:
		return appendThread(b, x, true)
	case nEvent:
		return num(append(b, 'e'), x)
	case nQueue:
		if x&(1<<31) != 0 {
			return num(append(b, "binderq"...), x&(1<<31-1))
		}
		b = num(append(b, 'q'), x>>16)
		return num(append(b, '.'), x&0xffff)
	case nObject:
		return num(append(b, 'o'), x)
	case nClass:
		return num(append(b, "app.C"...), x)
	case nField:
		return num(append(b, 'f'), x)
	case nStatic:
		return num(append(b, 's'), x)
	case nHandler:
		b = num(append(b, "C"...), x>>16)
		return num(append(b, ".on"...), x&0xffff)
	case nHandle:
		if x&freshHandle != 0 {
			return num(append(b, 'm'), x&^freshHandle)
		}
		return num(append(b, "listener"...), x)
	case nLock:
		return num(append(b, "lock"...), x)
	case nSite:
		b = num(append(b, 'C'), x>>16)
		return num(append(b, ".init:"...), x&0xffff)
	case nSrc:
		b = num(append(b, 'C'), x>>16)
		return num(append(b, ".java:"...), x&0xffff)
	case nString:
		return append(b, stringValues[x%uint64(len(stringValues))]...)
	case nError:
		return append(b, errorMessages[x%uint64(len(errorMessages))]...)
	}
	return append(b, '?')
}

// interner turns names into Syms of one table. A small direct-mapped
// cache answers most lookups: the names an operation uses are mostly
// those of a few live objects, tasks and fields.
type interner struct {
	syms  *traces.Symbols
	cache [1 << 12]cached
	buf   []byte
}

type cached struct {
	n name // 0: empty
	y traces.Sym
}

func newInterner(syms *traces.Symbols) *interner { return &interner{syms: syms} }

func (in *interner) sym(n name) traces.Sym {
	c := &in.cache[(uint64(n)*0x9e3779b97f4a7c15)>>52]
	if c.n == n {
		return c.y
	}
	in.buf = appendName(in.buf[:0], n)
	c.n, c.y = n, in.syms.InternBytes(in.buf)
	return c.y
}

// reset empties the table and the cache: every Sym issued so far is
// invalid.
func (in *interner) reset() {
	in.syms.Reset()
	in.cache = [len(in.cache)]cached{}
}
