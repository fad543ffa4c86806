package races

import (
	"math"
	"strconv"
	"strings"

	"github.com/licorice-dev/licorice/traces"
)

// srcPos is a source location split into its file and line.
type srcPos struct {
	file string
	line int64
	ok   bool
}

// srcPos returns the file and line of source location src ("File.java:233").
func (d *Detector) srcPos(src traces.Sym) srcPos {
	if src == traces.NoSym {
		return srcPos{}
	}
	if p, ok := d.srcs[src]; ok {
		return p
	}
	var p srcPos
	s := d.syms.String(src)
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if n, err := strconv.ParseInt(s[i+1:], 10, 64); err == nil {
			p = srcPos{file: s[:i], line: n, ok: true}
		}
	}
	d.srcs[src] = p
	return p
}

// branch records the if-guard of a null test by a looper event (thesis
// §3.2.3, Fig. 3.8): a test whose outcome guarantees the location is not
// null guards the uses of the location that follow in the same handler
// invocation, within the region of code the outcome leads to.
//
// The region is known when pc and target are source lines of the test's
// file, as the runtime records them (shuffle/doc.go: the test's src line
// is its pc): a jump taken because the pointer is not null ("nonnull", and
// "eq", which tests a pointer against this) guards the code from its
// target on, to the end of the invocation for a forward jump or up to the
// test for a backward one; a test for null that is not taken guards the
// code from the test up to its target, or to the end of the invocation
// for a backward jump. Otherwise (addresses that are not lines, a test
// without a source location) the test guards the rest of the invocation.
func (d *Detector) branch(op *traces.Op) {
	if !d.wants(UseFree) {
		return
	}
	t := d.task(op.Task)
	if !t.looper {
		return
	}
	var jumpIfNotNull bool
	switch {
	case (op.Cond == traces.CondNonNull || op.Cond == traces.CondEq) && op.Taken:
		jumpIfNotNull = true
	case op.Cond == traces.CondNull && !op.Taken:
	default:
		return // the outcome says nothing about the pointer being non-null
	}
	g := guard{loc: op.Loc, frame: t.frameID()}
	if p := d.srcPos(op.Src); p.ok && p.line == op.PC && op.Target != op.PC {
		g.file = p.file
		forward := op.Target > op.PC
		switch {
		case jumpIfNotNull && forward:
			g.lo, g.hi = op.Target, math.MaxInt64
		case jumpIfNotNull:
			g.lo, g.hi = op.Target, op.PC
		case forward:
			g.lo, g.hi = op.PC, op.Target-1
		default:
			g.lo, g.hi = op.PC, math.MaxInt64
		}
	}
	for i, old := range t.guards {
		if old.loc == g.loc && old.frame == g.frame {
			t.guards[i] = g
			return
		}
	}
	t.guards = append(t.guards, g)
}

// guarded reports whether a use of loc at source location src, by t in
// its current handler invocation, is guarded by a null test.
func (d *Detector) guarded(t *task, loc traces.Location, src traces.Sym) bool {
	frame := t.frameID()
	for _, g := range t.guards {
		if g.loc != loc || g.frame != frame {
			continue
		}
		if g.file == "" {
			return true
		}
		p := d.srcPos(src)
		return p.ok && p.file == g.file && g.lo <= p.line && p.line <= g.hi
	}
	return false
}
