package tracetest

import (
	"fmt"
	"strings"

	"github.com/licorice-dev/licorice/traces"
)

// A Situation is one kind of instance of a rule of the causality model
// (docs/causality.md) or of an operation form, which a trace may contain.
// [Measure] counts them, so that a test over generated traces can show, and
// assert, what it exercised.
//
// Situations whose premise needs happens-before (for example PRIORITY's
// send(E1) ≺ send(E2)) are counted where the premise holds by the
// synchronous rules (PO, FORK, JOIN, SIGNAL, SEND, LOOPBEGIN, LOOPEND,
// EXTERNAL) and ATOMIC. PRIORITY, ATFRONT and the binder rules may order
// more, so the counts are lower bounds of the instances an exact engine
// sees.
type Situation uint16

// The PRIORITY situations come first: for each cell of Table 3.1 (E1's and
// E2's send kind and sync/async), the pairs of events of a looper queue
// with send(E1) ≺ send(E2) where E2 began or was removed, split by the
// cell's outcome. See [PrioritySituation].
const numCells = 6 * 6

// The other situations.
const (
	// AtFront: events E1 (sent at front) and E2 of a looper queue with
	// send(E2) ≺ send(E1) ≺ begin(E2): ATFRONT orders E1 before E2.
	AtFront Situation = 2*numCells + iota
	// AtomicAtBegin: events E1, E2 run in this order on one looper, where
	// begin(E2) is after begin(E1) but not otherwise after end(E1) (e.g.
	// E1 sent E2): ATOMIC orders end(E1) before begin(E2).
	AtomicAtBegin
	// AtomicMidEvent: as AtomicAtBegin, but an op inside E2 comes to be
	// after begin(E1) through a wait or a join (a handoff): ATOMIC orders
	// end(E1) before that op.
	AtomicMidEvent
	// IPCHandle: binder events E1, E2 of one queue run in this order by
	// one binder thread, sent in this order from the same process, E1 sync
	// or E2 async: IPCHANDLE orders them.
	IPCHandle
	// IPCHandleNot: as IPCHandle, but from different processes (one send
	// external) or E1 async and E2 sync: IPCHANDLE does not order them.
	IPCHandleNot
	// IPCAsync: binder events E1, E2 as above, both async, sent by the same
	// task with send(E1) ≺ send(E2): IPCASYNC orders them.
	IPCAsync
	// RemovedBetween: a removed event R with a predecessor P and a
	// successor S by PRIORITY (P ≺ run(R) ≺ S).
	RemovedBetween
	// ExternalWithTask, ExternalWithoutTask: external sends with and
	// without "t".
	ExternalWithTask
	ExternalWithoutTask
	// ExternalOrdered: an external send after an earlier one (EXTERNAL
	// orders the two).
	ExternalOrdered
	// LoopBeginSetup: the first event of a looper or binder thread, after
	// ops of the thread's own beyond thread_begin and attach (LOOPBEGIN).
	LoopBeginSetup
	// LoopBeginIdle: an event after ops of its thread's own code that ran
	// since its previous event (LOOPBEGIN orders them before it, not the
	// previous event).
	LoopBeginIdle
	// LoopEnd: an event of a looper or binder thread that ends (LOOPEND).
	LoopEnd
	// ForkFromThread, ForkFromEvent: forks by a thread and by an event.
	ForkFromThread
	ForkFromEvent
	// Join: a join (of a thread that has ended).
	Join
	// SignalWait: a wait with an earlier signal of its handle (SIGNAL).
	SignalWait
	// WaitUnsignaled: a wait whose handle was never signaled before.
	WaitUnsignaled
	// Pending: an event still pending at the end of the trace.
	Pending
	// LooperQueues: a looper that ran events of several queues.
	LooperQueues
	// BinderThreads: a binder queue whose events ran on several threads.
	BinderThreads

	// ReadValue: the first of numValueKinds situations: reads by the form
	// of their value (ReadValue + traces.ValueKind: absent, null,
	// reference, int, float, bool, string).
	ReadValue
)

const (
	// WriteValue: as ReadValue, for writes.
	WriteValue = ReadValue + numValueKinds
	// Deref: a read whose value is dereferenced (a use).
	Deref = WriteValue + numValueKinds
)

// numValueKinds is the number of value forms, absent included.
const numValueKinds = Situation(traces.StringValue) + 1

const (
	RelateCmp Situation = Deref + 1 + iota
	RelateArith
	// Branch: the first of 6 situations: the conditions null, nonnull and
	// eq, each not taken and taken (Branch + 2*(cond-1) + taken).
	Branch
)

const (
	NestedCall    Situation = Branch + 6 + iota // a call inside another
	NestedLock                                  // a lock taken while another is held
	ReentrantLock                               // a lock taken again by its holder
	Alloc
	ErrorOp
	Src // an op with "src"
	TS  // an op with "ts"
	numSituations
)

// PrioritySituation returns the PRIORITY situation of Table 3.1's cell for
// E1's and E2's send kinds and asynchrony, with the cell's outcome holds
// (for the cells that compare times, holds is t1 ≤ t2).
func PrioritySituation(k1 traces.SendKind, async1 bool, k2 traces.SendKind, async2 bool, holds bool) Situation {
	s := Situation(2 * (cellIndex(k1, async1)*6 + cellIndex(k2, async2)))
	if holds {
		s++
	}
	return s
}

// cellIndex is the row or column of Table 3.1.
func cellIndex(k traces.SendKind, async bool) int {
	i := 2 * int(k)
	if !async {
		i++
	}
	return i
}

// Table 3.1: cellOrdered, cellTimed or cellNever for each E1 (row), E2
// (column): Delayed Async, Delayed Sync, AtTime Async, AtTime Sync,
// AtFront Async, AtFront Sync.
const (
	cellNever = iota
	cellOrdered
	cellTimed // t1 <= t2
)

var priorityTable = [6][6]uint8{
	{cellTimed, cellTimed, cellNever, cellNever, cellNever, cellNever},
	{cellNever, cellTimed, cellNever, cellNever, cellNever, cellNever},
	{cellNever, cellNever, cellTimed, cellTimed, cellNever, cellNever},
	{cellNever, cellNever, cellNever, cellTimed, cellNever, cellNever},
	{cellOrdered, cellOrdered, cellOrdered, cellOrdered, cellNever, cellNever},
	{cellNever, cellOrdered, cellNever, cellOrdered, cellNever, cellNever},
}

var cellNames = [6]string{"delayed-async", "delayed-sync", "at_time-async", "at_time-sync", "at_front-async", "at_front-sync"}

// priority evaluates Table 3.1 for E1 sent before E2.
func priority(e1, e2 *sendInfo) bool {
	switch priorityTable[cellIndex(e1.kind, e1.async)][cellIndex(e2.kind, e2.async)] {
	case cellOrdered:
		return true
	case cellTimed:
		return e1.time <= e2.time
	}
	return false
}

var otherNames = map[Situation]string{
	AtFront:             "ATFRONT",
	AtomicAtBegin:       "ATOMIC at begin",
	AtomicMidEvent:      "ATOMIC mid-event (through a wait or join)",
	IPCHandle:           "IPCHANDLE",
	IPCHandleNot:        "IPCHANDLE not applicable (other process, or async then sync)",
	IPCAsync:            "IPCASYNC",
	RemovedBetween:      "removed event between predecessor and successor",
	ExternalWithTask:    "EXTERNAL send with t",
	ExternalWithoutTask: "EXTERNAL send without t",
	ExternalOrdered:     "EXTERNAL pair",
	LoopBeginSetup:      "LOOPBEGIN after set-up ops",
	LoopBeginIdle:       "LOOPBEGIN after ops between events",
	LoopEnd:             "LOOPEND",
	ForkFromThread:      "FORK from a thread",
	ForkFromEvent:       "FORK from an event",
	Join:                "JOIN",
	SignalWait:          "SIGNAL then wait",
	WaitUnsignaled:      "wait without signal",
	Pending:             "event pending at the end",
	LooperQueues:        "looper running several queues",
	BinderThreads:       "binder queue run by several threads",
	Deref:               "read with deref",
	RelateCmp:           "relate cmp",
	RelateArith:         "relate arith",
	NestedCall:          "nested call",
	NestedLock:          "nested lock",
	ReentrantLock:       "re-entrant lock",
	Alloc:               "alloc",
	ErrorOp:             "error",
	Src:                 "op with src",
	TS:                  "op with ts",
}

// String names the situation.
func (s Situation) String() string {
	switch {
	case s < 2*numCells:
		cell := int(s / 2)
		e1, e2 := cell/6, cell%6
		outcome := [2]string{"false", "true"}
		if priorityTable[e1][e2] == cellTimed {
			outcome = [2]string{"t1>t2", "t1<=t2"}
		}
		return fmt.Sprintf("PRIORITY %s -> %s: %s", cellNames[e1], cellNames[e2], outcome[s%2])
	case s >= ReadValue && s < WriteValue:
		return "read " + traces.ValueKind(s-ReadValue).String()
	case s >= WriteValue && s < WriteValue+numValueKinds:
		return "write " + traces.ValueKind(s-WriteValue).String()
	case s >= Branch && s < Branch+6:
		taken := [2]string{"not taken", "taken"}[(s-Branch)%2]
		return fmt.Sprintf("branch %s %s", traces.BranchCond(1+(s-Branch)/2), taken)
	}
	if n, ok := otherNames[s]; ok {
		return n
	}
	return fmt.Sprintf("Situation(%d)", int(s))
}

// possible reports whether a valid, consistent trace can contain s: the
// PRIORITY outcomes a cell cannot have are not.
func (s Situation) possible() bool {
	if s >= 2*numCells {
		return s < numSituations
	}
	cell := priorityTable[s/2/6][s/2%6]
	return cell == cellTimed || (cell == cellOrdered) == (s%2 == 1)
}

// Coverage counts the situations of one or more traces.
type Coverage struct {
	n [numSituations]int
}

// Count returns how many times s occurred.
func (c *Coverage) Count(s Situation) int {
	if s >= numSituations {
		return 0
	}
	return c.n[s]
}

// Add adds the counts of o to c.
func (c *Coverage) Add(o *Coverage) {
	for i, n := range o.n {
		c.n[i] += n
	}
}

// Situations returns every situation a trace can contain, in order.
func Situations() []Situation {
	var all []Situation
	for s := range Situation(numSituations) {
		if s.possible() {
			all = append(all, s)
		}
	}
	return all
}

// Missing returns the situations of [Situations] that never occurred.
func (c *Coverage) Missing() []Situation {
	var miss []Situation
	for _, s := range Situations() {
		if c.n[s] == 0 {
			miss = append(miss, s)
		}
	}
	return miss
}

// String lists every possible situation with its count, one per line.
func (c *Coverage) String() string {
	var b strings.Builder
	for _, s := range Situations() {
		fmt.Fprintf(&b, "%8d  %v\n", c.n[s], s)
	}
	return b.String()
}
