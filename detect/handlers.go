package detect

import "github.com/licorice-dev/licorice/traces"

// handlerStacks follows the handlers each task is in and, for each
// running event whose send was seen, the first handler it called: what
// an op of the task is said to be in (of), for the second pass and for
// the read of the reports' origins alike.
type handlerStacks struct {
	stacks map[traces.Sym][]traces.Sym
	first  map[traces.Sym]traces.Sym // NoSym until the event calls one
}

func newHandlerStacks() handlerStacks {
	return handlerStacks{stacks: make(map[traces.Sym][]traces.Sym), first: make(map[traces.Sym]traces.Sym)}
}

// begin starts event, whose send was seen.
func (h *handlerStacks) begin(event traces.Sym) { h.first[event] = traces.NoSym }

// call enters task into handler; it reports whether that is the first
// handler of a running event.
func (h *handlerStacks) call(task, handler traces.Sym) (first bool) {
	h.stacks[task] = append(h.stacks[task], handler)
	if f, ok := h.first[task]; ok && f == traces.NoSym {
		h.first[task] = handler
		return true
	}
	return false
}

// ret leaves task's innermost handler.
func (h *handlerStacks) ret(task traces.Sym) {
	if s := h.stacks[task]; len(s) > 0 {
		h.stacks[task] = s[:len(s)-1]
	}
}

// end forgets event, which ended.
func (h *handlerStacks) end(event traces.Sym) {
	delete(h.stacks, event)
	delete(h.first, event)
}

// of returns the handler task is in: its innermost, else (an event
// between handlers) the first it called, else NoSym.
func (h *handlerStacks) of(task traces.Sym) traces.Sym {
	if s := h.stacks[task]; len(s) > 0 {
		return s[len(s)-1]
	}
	return h.first[task]
}
