package asyncclock

import "fmt"

// Rule is a rule of the causality model (docs/causality.md) that orders
// one operation before another.
type Rule uint8

// The rules, in the order of docs/causality.md.
const (
	PO        Rule = iota + 1 // program order within a task
	Fork                      // fork(_, T) ≺ thread_begin(T)
	Join                      // thread_end(T) ≺ join(_, T)
	Signal                    // signal(m) ≺ every later wait(m)
	Send                      // send(E) ≺ begin(E)
	LoopBegin                 // a looper/binder thread's own ops ≺ the begin of its later events
	LoopEnd                   // end(E) ≺ thread_end of the thread that ran E
	External                  // external sends are totally ordered
	Priority                  // Table 3.1 (includes FIFO)
	AtFront                   // an at-front send overtakes a pending event (Fig. 3.4c)
	Atomic                    // events of one looper never interleave
	IPCHandle                 // binder events handled in order by one binder thread
	IPCAsync                  // async binder events from one task, handled by one thread
	Window                    // the time-window approximation (not part of the exact model)
	numRules
)

var ruleNames = [numRules]string{
	PO: "PO", Fork: "FORK", Join: "JOIN", Signal: "SIGNAL", Send: "SEND",
	LoopBegin: "LOOPBEGIN", LoopEnd: "LOOPEND", External: "EXTERNAL",
	Priority: "PRIORITY", AtFront: "ATFRONT", Atomic: "ATOMIC",
	IPCHandle: "IPCHANDLE", IPCAsync: "IPCASYNC", Window: "WINDOW",
}

// String returns the rule's name as docs/causality.md spells it.
func (r Rule) String() string {
	if r > 0 && r < numRules {
		return ruleNames[r]
	}
	return "invalid"
}

// ConflictError says that a trace contradicts the causality model: a rule
// orders event First before event Second, but the trace ran Second while
// First had not finished (docs/causality.md, "Consistency"). Such a trace
// cannot come from a program that follows the model; rather than compute
// a wrong relation, the engines stop with this error.
type ConflictError struct {
	File      string // the trace's file name, if known
	Line      int    // the line where the contradiction shows (Second's begin, usually)
	Rule      Rule   // the rule that orders First before Second
	First     string // the event that must come first
	FirstLine int    // the line that sent First
	Second    string // the event that ran too early
	Detail    string // the contradiction in words
}

func (e *ConflictError) Error() string {
	prefix := ""
	if e.File != "" {
		prefix = e.File + ":"
	}
	if e.Line > 0 {
		prefix += fmt.Sprint(e.Line) + ":"
	}
	if prefix != "" {
		prefix += " "
	}
	return fmt.Sprintf("%strace contradicts the causality model: %s", prefix, e.Detail)
}
