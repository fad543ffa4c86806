package asyncclock

import (
	"slices"

	"github.com/licorice-dev/licorice/traces"
)

// shrink returns a smaller valid trace on which fails still holds, by
// removing operations (alone, or with everything that depends on what
// they introduce) as long as it can.
func shrink(tr *trace, fails func(*trace) bool) *trace {
	for changed := true; changed; {
		changed = false
		for i := len(tr.ops) - 1; i >= 0; i-- {
			if i >= len(tr.ops) {
				continue
			}
			for _, drop := range [][]int{{i}, unit(tr.ops, i)} {
				if len(drop) == 0 {
					continue
				}
				c := without(tr, drop)
				if c != nil && fails(c) {
					tr, changed = c, true
					break
				}
			}
		}
	}
	return tr
}

// introduces returns the symbol op brings into the trace, if any.
func introduces(op *traces.Op) traces.Sym {
	switch op.Kind {
	case traces.Send:
		return op.Event
	case traces.ThreadBegin:
		return op.Task
	case traces.Fork:
		return op.Thread
	case traces.Attach:
		return op.Queue
	}
	return traces.NoSym
}

// unit returns op i and every op that mentions what it introduces,
// transitively.
func unit(ops []traces.Op, i int) []int {
	in := map[int]bool{i: true}
	todo := []traces.Sym{introduces(&ops[i])}
	seen := map[traces.Sym]bool{}
	for len(todo) > 0 {
		y := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if y == traces.NoSym || seen[y] {
			continue
		}
		seen[y] = true
		for j := range ops {
			op := &ops[j]
			if op.Task == y || op.Event == y || op.Thread == y || op.Queue == y {
				in[j] = true
				todo = append(todo, introduces(op), op.Task)
			}
		}
	}
	if len(in) == 1 {
		return nil
	}
	var out []int
	for j := range in {
		out = append(out, j)
	}
	slices.Sort(out)
	return out
}

// without returns tr without the ops drop (sorted), or nil if that is not
// a valid trace.
func without(tr *trace, drop []int) *trace {
	c := &trace{syms: tr.syms}
	v := traces.NewValidator(tr.syms)
	k := 0
	for i := range tr.ops {
		if k < len(drop) && drop[k] == i {
			k++
			continue
		}
		line := len(c.ops) + 2
		if v.Check(&tr.ops[i], line) != nil {
			return nil
		}
		c.ops = append(c.ops, tr.ops[i])
		c.lines = append(c.lines, line)
	}
	return c
}
