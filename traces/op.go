package traces

// Location is a heap location: a field of an object, or a static field of a
// class. Array elements are fields named "[i]"; high-level locations (a
// database row, a map key) are objects such as "db:Users" with a field.
type Location struct {
	Obj    Sym  // the object id, or the class name when Static
	Field  Sym  // the field name
	Static bool // Obj names a class ("class" in the text form), not an object
}

// Op is one operation of a trace. Which fields are meaningful depends on
// Kind; the others are zero. The text form's field for each is given in
// brackets.
//
//	thread_begin  ThreadKind [kind], Name [name]
//	thread_end    -
//	fork, join    Thread [child]
//	attach        Queue [q]
//	send          Queue [q], Event [e], SendKind [kind], Time [delay or at],
//	              Async [async], External [external]
//	remove        Event [e]
//	begin         Thread [thread]
//	end           -
//	signal, wait  Name [m]
//	lock, unlock  Name [l]
//	call, ret     Name [h]
//	alloc         Loc.Obj [obj], Site [site], Type [type]
//	read          Loc [obj|class, field], Val [val], Deref [deref]
//	write         Loc [obj|class, field], Val [val], Init [init], Update [update]
//	relate        Loc [a], Loc2 [b], Via [via]
//	branch        Loc [obj|class, field], Cond [cond], Taken [taken],
//	              PC [pc], Target [target]
//	error         Name [msg]
//
// Every op has Task [t] (NoSym only for an external send without t), and
// may have TS [ts] (when HasTS) and Src [src].
type Op struct {
	// The fields are in this order so that those of every op and of
	// reads and writes, the bulk of a trace, share an op's first 64
	// bytes (one cache line): an analysis that steps through ops touches
	// one line of most.
	Kind  Kind
	HasTS bool // TS is set
	Deref bool // read: the value read is dereferenced (a "use")
	Task  Sym  // the thread, or the event while it runs, executing the op

	TS  float64 // wall-clock time in ms, when HasTS
	Val Value   // read/write: the value read or written
	Loc Location
	Src Sym // source location, e.g. "TrackDetailActivity.java:233"

	Thread Sym      // fork/join: the child; begin: the looper/binder thread
	Event  Sym      // send/remove: the event
	Queue  Sym      // attach/send: the queue
	Name   Sym      // the handle, lock, handler, thread name or error message
	Loc2   Location // relate: the second datum
	Site   Sym      // alloc: the allocation context
	Type   Sym      // alloc: the object's type

	ThreadKind ThreadKind // thread_begin
	SendKind   SendKind   // send
	Cond       BranchCond // branch
	Via        RelateVia  // relate

	Async    bool // send: an asynchronous message (not held by sync barriers)
	External bool // send: from outside the program
	Taken    bool // branch: the jump was taken
	// Init marks a write that declares the location's initial value (a
	// field's default, a static's or module variable's first value): no
	// access of the program's, and no change. Update marks a write of a
	// value computed from the task's last read of the location (count++,
	// list.push(x)): an update in place.
	Init, Update bool

	Time       int64 // send: the delay (Delayed) or the absolute time (AtTime), in ms
	PC, Target int64 // branch: the address of the test and of its jump target
}

// Reset clears op for reuse.
func (op *Op) Reset() { *op = Op{} }
