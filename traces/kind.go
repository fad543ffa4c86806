package traces

// Kind is the kind of an operation: the "op" field of the text form.
type Kind uint8

// The operation kinds of trace format version 1, in the order of the
// contract's table. The zero Kind is not a valid operation.
const (
	ThreadBegin Kind = iota + 1 // thread t starts
	ThreadEnd                   // thread t ends
	Fork                        // t spawns thread Thread
	Join                        // t waits for thread Thread to end
	Attach                      // looper/binder thread t serves Queue
	Send                        // t enqueues Event to Queue
	Remove                      // t removes pending Event
	Begin                       // event t starts running on Thread
	End                         // event t finished
	Signal                      // notify on handle Name
	Wait                        // wake-up on handle Name
	Lock                        // t acquires lock Name
	Unlock                      // t releases lock Name
	Call                        // handler Name is entered
	Ret                         // handler Name is left
	Alloc                       // object Loc.Obj is created
	Read                        // heap read of Loc, value Val
	Write                       // heap write of Loc, value Val
	Relate                      // Loc and Loc2 met in a comparison or arithmetic
	Branch                      // a pointer test on Loc
	Error                       // a self-evident failure
	numKinds
)

// NumKinds is one more than the largest valid Kind, for tables indexed by Kind.
const NumKinds = int(numKinds)

var kindNames = [numKinds]string{
	ThreadBegin: "thread_begin",
	ThreadEnd:   "thread_end",
	Fork:        "fork",
	Join:        "join",
	Attach:      "attach",
	Send:        "send",
	Remove:      "remove",
	Begin:       "begin",
	End:         "end",
	Signal:      "signal",
	Wait:        "wait",
	Lock:        "lock",
	Unlock:      "unlock",
	Call:        "call",
	Ret:         "ret",
	Alloc:       "alloc",
	Read:        "read",
	Write:       "write",
	Relate:      "relate",
	Branch:      "branch",
	Error:       "error",
}

// String returns the kind as spelled in the text form ("thread_begin").
func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return "invalid"
}

// Valid reports whether k is one of the defined kinds.
func (k Kind) Valid() bool { return k > 0 && k < numKinds }

// ParseKind returns the kind spelled s, and false if there is none.
func ParseKind(s string) (Kind, bool) {
	for k := Kind(1); k < numKinds; k++ {
		if kindNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// ThreadKind is what a thread does: run its own code, or serve event queues.
type ThreadKind uint8

const (
	Worker ThreadKind = iota // an ordinary thread (the default)
	Looper                   // serves one or more queues, one event at a time, atomically
	Binder                   // one of several threads serving one queue, without atomicity
)

var threadKindNames = [...]string{Worker: "worker", Looper: "looper", Binder: "binder"}

func (k ThreadKind) String() string {
	if int(k) < len(threadKindNames) {
		return threadKindNames[k]
	}
	return "invalid"
}

// ParseThreadKind returns the thread kind spelled s.
func ParseThreadKind(s string) (ThreadKind, bool) {
	for i, n := range threadKindNames {
		if n == s {
			return ThreadKind(i), true
		}
	}
	return 0, false
}

// SendKind is how an event is placed in its queue (thesis Table 3.1).
type SendKind uint8

const (
	Delayed SendKind = iota // run after Time ms (0: a plain post); the default
	AtTime                  // run at absolute time Time ms
	AtFront                 // placed at the front of the queue
)

var sendKindNames = [...]string{Delayed: "delayed", AtTime: "at_time", AtFront: "at_front"}

func (k SendKind) String() string {
	if int(k) < len(sendKindNames) {
		return sendKindNames[k]
	}
	return "invalid"
}

// ParseSendKind returns the send kind spelled s.
func ParseSendKind(s string) (SendKind, bool) {
	for i, n := range sendKindNames {
		if n == s {
			return SendKind(i), true
		}
	}
	return 0, false
}

// BranchCond is the test of a branch op: what the pointer was compared
// to, or (CondTrue) that the value was tested as a condition.
type BranchCond uint8

const (
	CondNull    BranchCond = iota + 1 // jump if the pointer is null (if-eqz)
	CondNonNull                       // jump if the pointer is not null (if-nez)
	CondEq                            // jump if two pointers are equal (if-eq)
	CondTrue                          // a guard: the value was tested as a condition; taken if it held (version 2)
)

var branchCondNames = [...]string{CondNull: "null", CondNonNull: "nonnull", CondEq: "eq", CondTrue: "true"}

func (c BranchCond) String() string {
	if c > 0 && int(c) < len(branchCondNames) {
		return branchCondNames[c]
	}
	return "invalid"
}

// ParseBranchCond returns the branch condition spelled s.
func ParseBranchCond(s string) (BranchCond, bool) {
	for i, n := range branchCondNames {
		if i > 0 && n == s {
			return BranchCond(i), true
		}
	}
	return 0, false
}

// RelateVia is how two shared data met in a relate op.
type RelateVia uint8

const (
	ViaCmp   RelateVia = iota + 1 // in a comparison
	ViaArith                      // in an arithmetic operation
)

var relateViaNames = [...]string{ViaCmp: "cmp", ViaArith: "arith"}

func (v RelateVia) String() string {
	if v > 0 && int(v) < len(relateViaNames) {
		return relateViaNames[v]
	}
	return "invalid"
}

// ParseRelateVia returns the relate mode spelled s.
func ParseRelateVia(s string) (RelateVia, bool) {
	for i, n := range relateViaNames {
		if i > 0 && n == s {
			return RelateVia(i), true
		}
	}
	return 0, false
}
