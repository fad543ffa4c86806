package droidracer

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A plan is what the import must know before it writes the first op, found
// in one pass over the records: where each message runs (a POST names no
// destination; the CALL of the same message does), which threads serve
// which queues and where those are attached, where each thread's last op
// is, and which enable each trigger, and which NOTIFY each WAIT, is matched
// with.
type plan struct {
	looper  map[threadKey]bool // threads that serve a queue (ATTACH-Q, LOOP or CALL)
	callTid map[int64]int64    // msg -> the looper that ran it (its non-nested CALL)
	queue   map[int64]string   // msg -> the queue it was sent to: its looper's at the CALL
	postRec map[int64]int      // msg -> record of its first POST
	nested  map[int64]int64    // msg -> op id of its CALL, for a CALL inside a running event
	lastRec map[threadKey]int  // thread -> record of its last op (brackets excluded)
	owner   map[int]int64      // ADD_IDLE_HANDLER record -> the looper of its queue

	attachAt      map[int]string         // ATTACH-Q or LOOP record -> the queue attached there
	attachAtBegin map[threadKey][]string // looper -> queues it attaches when it begins
	queueOwner    map[string]threadKey   // queue -> its looper
	idleQueue     map[string]bool        // the queues of idle handler runs

	signals   map[int]string     // record -> the handle its op signals
	waits     map[int][]string   // record -> the handles its op waits on (present even if none)
	postWaits map[int][]postWait // POST record -> waits to place before its send

	// With Options.Lifecycle, the orders of the activity state machine
	// (see lifecycle): signals placed at the end of an event and right
	// after a send.
	endSignals  map[int64][]string // msg -> handles its event signals just before it ends
	postSignals map[int][]string   // POST record -> handles its task signals right after the send
}

// threadKey names one thread: a thread id can be used again after its
// thread exited, by a new thread begun with FORK or THREADINIT. Other ops
// of the id after its THREADEXIT are still the exited thread's.
type threadKey struct {
	tid int64
	inc int // 1, then 2 after the id was used again, ...
}

// A postWait is a wait placed before the send of a message whose event
// triggers an enable that came before the send: DroidRacer orders the
// enable before the message's POST.
type postWait struct {
	handle  string
	trigger int64 // op id of the trigger, for the wait's src
}

// enable is an enabling op a later trigger may be matched with.
type enable struct {
	rec       int // record index
	handle    string
	triggered bool // lifecycle enables: already matched with a trigger
}

// families name the handles of signal/wait pairs by the keyword of the
// enabling op: "<family>@<op id>".
func handle(family string, id int64) string { return family + "@" + strconv.FormatInt(id, 10) }

// queuePlan is what the plan learns of one queue.
type queuePlan struct {
	name     string
	owner    threadKey
	line     int // record of its ATTACH-Q or LOOP, where its looper runs no event; -1 if none
	firstUse int // record of its first send or begin; -1 if none
}

// makePlan walks the records once.
func (l *Log) makePlan(opts Options) *plan {
	p := &plan{
		looper: map[threadKey]bool{}, callTid: map[int64]int64{}, queue: map[int64]string{},
		postRec: map[int64]int{}, nested: map[int64]int64{}, lastRec: map[threadKey]int{},
		owner: map[int]int64{}, attachAt: map[int]string{}, attachAtBegin: map[threadKey][]string{},
		queueOwner: map[string]threadKey{}, idleQueue: map[string]bool{}, signals: map[int]string{}, waits: map[int][]string{},
		postWaits: map[int][]postWait{}, endSignals: map[int64][]string{}, postSignals: map[int][]string{},
	}
	var activities *lifecycle
	if opts.Lifecycle {
		activities = newLifecycle()
	}
	inBracket := map[int64]bool{}
	curMsg := map[int64]int64{} // tid -> message it runs
	depth := map[int64]int{}    // tid -> nested CALLs open
	called := map[int64]bool{}  // messages called
	inc := map[int64]int{}      // tid -> its current incarnation, from 1
	exited := map[int64]bool{}  // tid -> its current incarnation exited
	key := func(tid int64) threadKey { return threadKey{tid, max(inc[tid], 1)} }
	reuse := func(tid int64) { // a FORK or THREADINIT of tid
		if exited[tid] {
			inc[tid], exited[tid] = max(inc[tid], 1)+1, false
			delete(curMsg, tid)
			delete(depth, tid)
		}
	}
	var queues []*queuePlan
	idle := map[int64]bool{}             // messages that run idle handlers
	byAddr := map[int64]*queuePlan{}     // queue address -> its latest queue
	serves := map[threadKey]*queuePlan{} // looper -> the queue it serves now
	newQueue := func(name string, owner threadKey, line int) *queuePlan {
		qp := &queuePlan{name: name, owner: owner, line: line, firstUse: -1}
		queues = append(queues, qp)
		p.looper[owner] = true
		serves[owner] = qp
		return qp
	}
	m := newMatcher()
	for i := range l.records {
		r := &l.records[i]
		if !r.known {
			continue
		}
		tid := r.tid()
		if r.access {
			// Accesses are written at their ACCESS line, or when their
			// thread ends: a thread that exits before its last access
			// line ends after it.
			if !inBracket[tid] {
				p.lastRec[key(tid)] = i
			}
			continue
		}
		switch r.kw {
		case "NATIVE-ENTRY":
			inBracket[tid] = true
		case "NATIVE-EXIT":
			inBracket[tid] = false
		case "THREADINIT":
			reuse(tid)
			p.lastRec[key(tid)] = i
		case "THREADEXIT":
			p.lastRec[key(tid)] = i
			exited[tid] = true
		case "FORK":
			reuse(r.num("child-tid"))
			if !inBracket[tid] {
				p.lastRec[key(tid)] = i
			}
		case "ADD_IDLE_HANDLER", "REMOVE_IDLE_HANDLER":
			// No tid: the op is the queue's looper's (Android adds idle
			// handlers on the looper thread, and DroidRacer's QUEUE_IDLE
			// runs there).
			if qp := byAddr[r.num("queue")]; qp != nil && r.kw == "ADD_IDLE_HANDLER" {
				p.owner[i] = qp.owner.tid
				if !inBracket[qp.owner.tid] {
					p.lastRec[key(qp.owner.tid)] = i
				}
			}
		case "ATTACH-Q", "LOOP", "CALL", "RET":
			// The looper thread's own, even inside a native bracket.
			p.lastRec[key(tid)] = i
		default:
			if r.hasTid() && !inBracket[tid] {
				p.lastRec[key(tid)] = i
			}
		}
		switch r.kw {
		case "ATTACH-Q", "LOOP":
			// A queue is its address, served by one looper: the same
			// address attached by another thread is another queue.
			addr, k := r.num("queue"), key(tid)
			qp := byAddr[addr]
			if qp == nil || qp.owner != k {
				name := queueName(addr)
				if qp != nil {
					name += "#" + strconv.Itoa(countPrefix(queues, name)+1)
				}
				line := i
				if _, running := curMsg[tid]; running {
					line = -1 // a looper attaches outside events
				}
				qp = newQueue(name, k, line)
				byAddr[addr] = qp
			}
			serves[k] = qp
		case "POST":
			if _, ok := p.postRec[r.num("msg")]; !ok {
				p.postRec[r.num("msg")] = i
			}
		case "CALL":
			msg := r.num("msg")
			if called[msg] {
				continue // a message runs once: the import drops this CALL
			}
			called[msg] = true
			if _, running := curMsg[tid]; running {
				depth[tid]++
				p.nested[msg] = r.id
				continue
			}
			curMsg[tid] = msg
			p.callTid[msg] = tid
			qp := serves[key(tid)]
			if qp == nil { // a looper that never attached a queue
				qp = newQueue("q-"+threadTask(tid, key(tid).inc), key(tid), -1)
			}
			p.queue[msg] = qp.name
			use := i
			if post, ok := p.postRec[msg]; ok {
				use = min(use, post)
			}
			if qp.firstUse < 0 || use < qp.firstUse {
				qp.firstUse = use
			}
		case "QUEUE_IDLE":
			if msg, running := curMsg[tid]; running && depth[tid] == 0 {
				idle[msg] = true
			}
		case "RET":
			if depth[tid] > 0 {
				depth[tid]--
			} else if curMsg[tid] == r.num("msg") {
				delete(curMsg, tid)
			}
		}
		sig, waits, isTrigger := m.match(l, i, byAddr)
		if sig != "" {
			p.signals[i] = sig
		}
		if activities != nil {
			msg, running := curMsg[tid]
			if !running || inBracket[tid] || depth[tid] > 0 {
				msg = -1
			}
			activities.step(p, r, i, msg)
		}
		if !isTrigger {
			continue
		}
		p.waits[i] = append(handlesOf(waits), p.waits[i]...)
		// The trigger runs in message msg: DroidRacer also orders each
		// enable before msg's POST. Where the enable comes before that
		// POST in the log, so does the wait that says so.
		msg, running := curMsg[tid]
		post, posted := p.postRec[msg]
		if !running || inBracket[tid] || depth[tid] > 0 || !posted {
			continue
		}
		for _, e := range waits {
			if e.rec < post && !hasPostWait(p.postWaits[post], e.handle) {
				p.postWaits[post] = append(p.postWaits[post], postWait{e.handle, r.id})
			}
		}
	}
	// Android runs idle handlers between messages, when the queue is idle,
	// not as messages of the queue; DroidRacer makes up a message for each
	// run. Such messages go to a queue of their own on the same looper, so
	// that they are not in FIFO order with the queue's real messages.
	idleQueues := map[string]string{}
	for _, msg := range slices.Sorted(maps.Keys(idle)) {
		q := p.queue[msg]
		iq, ok := idleQueues[q]
		if !ok {
			iq = q + "/idle"
			idleQueues[q] = iq
			p.idleQueue[iq] = true
			owner := p.looperOf(queues, q)
			queues = append(queues, &queuePlan{name: iq, owner: owner, line: -1, firstUse: -1})
		}
		p.queue[msg] = iq
	}
	// A queue is attached at its ATTACH-Q or LOOP line, unless the log
	// uses it before (or never attaches it): then when its looper begins.
	for _, qp := range queues {
		p.queueOwner[qp.name] = qp.owner
		if qp.line >= 0 && (qp.firstUse < 0 || qp.line < qp.firstUse) {
			p.attachAt[qp.line] = qp.name
		} else {
			p.attachAtBegin[qp.owner] = append(p.attachAtBegin[qp.owner], qp.name)
		}
	}
	return p
}

// looperOf returns the looper of the queue named q.
func (p *plan) looperOf(queues []*queuePlan, q string) threadKey {
	for _, qp := range queues {
		if qp.name == q {
			return qp.owner
		}
	}
	return threadKey{}
}

// countPrefix counts the queues named name or name#n.
func countPrefix(qs []*queuePlan, name string) int {
	n := 0
	for _, q := range qs {
		if q.name == name || strings.HasPrefix(q.name, name+"#") {
			n++
		}
	}
	return n
}

func handlesOf(es []*enable) []string {
	hs := make([]string, len(es))
	for i, e := range es {
		hs[i] = e.handle
	}
	return hs
}

func hasPostWait(ws []postWait, h string) bool {
	for _, w := range ws {
		if w.handle == h {
			return true
		}
	}
	return false
}

// queueName is the id of a DroidRacer queue in the imported trace.
func queueName(q int64) string { return "q" + strconv.FormatInt(q, 10) }

// matcher pairs enables with triggers as DroidRacer's race detector does
// (abc.cpp, AbcModel.cpp).
type matcher struct {
	lifecycle map[string][]*enable // "<id>|<state>" -> enables, newest last
	blank     *enable              // an ENABLE-LIFECYCLE RESUME-ACT with id 0
	latest    map[string]*enable   // event, focus, idle, receiver, service keys -> newest enable
	register  map[string]*enable   // "<component>|<action>" -> first registration
	sent      map[int64]*enable    // broadcast intent id -> its send
	later     map[int64][]*enable  // TRIGGER_ONRECIEVE_LATER op id -> what it matched
	notify    map[int64][]*enable  // tid -> NOTIFYs to it not yet waited for
}

func newMatcher() *matcher {
	return &matcher{
		lifecycle: map[string][]*enable{}, latest: map[string]*enable{}, register: map[string]*enable{},
		sent: map[int64]*enable{}, later: map[int64][]*enable{}, notify: map[int64][]*enable{},
	}
}

// serviceEnables lists, for each service state DroidRacer triggers, the
// requests that enable it.
var serviceEnables = map[string][]string{
	"CREATE-SERVICE":  {"REQUEST_START_SERVICE", "REQUEST_BIND_SERVICE"},
	"SERVICE-ARGS":    {"REQUEST_START_SERVICE"},
	"BIND-SERVICE":    {"REQUEST_BIND_SERVICE"},
	"SERVICE_CONNECT": {"REQUEST_BIND_SERVICE"},
	"UNBIND-SERVICE":  {"REQUEST_UNBIND_SERVICE"},
	"STOP-SERVICE":    {"REQUEST_STOP_SERVICE"},
}

// match updates the matcher with record i. It returns the handle the
// record's op signals ("" if none) and, for a trigger, the enables it is
// matched with.
func (m *matcher) match(l *Log, i int, queues map[int64]*queuePlan) (signal string, waits []*enable, trigger bool) {
	r := &l.records[i]
	en := func(family string) *enable { return &enable{rec: i, handle: handle(family, r.id)} }
	one := func(e *enable) []*enable {
		if e == nil {
			return nil
		}
		return []*enable{e}
	}
	s := r.str
	switch r.kw {
	case "NOTIFY":
		e := en("notify")
		to := r.num("notifiedTid")
		m.notify[to] = append(m.notify[to], e)
		return e.handle, nil, false
	case "WAIT":
		waits = m.notify[r.tid()]
		delete(m.notify, r.tid())
		return "", waits, true

	case "ENABLE-LIFECYCLE":
		e := en("lifecycle")
		k := s("id") + "|" + s("state")
		m.lifecycle[k] = append(m.lifecycle[k], e)
		if s("state") == "RESUME-ACT" && s("id") == "0" {
			m.blank = e
		}
		return e.handle, nil, false
	case "INSTANCE-INTENT":
		// The activity instance is known now: enables issued with the
		// intent id for its launch and resume now belong to the instance.
		for _, st := range []string{"LAUNCH-ACT", "RESUME-ACT"} {
			from := s("intentId") + "|" + st
			if es, ok := m.lifecycle[from]; ok {
				m.lifecycle[s("instance")+"|"+st] = es
				delete(m.lifecycle, from)
			}
		}
		return "", nil, false
	case "TRIGGER-LIFECYCLE":
		// All the newest enables not yet triggered; for a resume with none,
		// a pending blank resume enable.
		es := m.lifecycle[s("id")+"|"+s("state")]
		for j := len(es) - 1; j >= 0 && !es[j].triggered; j-- {
			es[j].triggered = true
			waits = append(waits, es[j])
		}
		if len(waits) == 0 && s("state") == "RESUME-ACT" && m.blank != nil {
			waits = append(waits, m.blank)
			m.blank.triggered = true
			m.blank = nil
		}
		return "", waits, true

	case "ENABLE-EVENT", "ENABLE-WINDOW-FOCUS":
		fam, k := eventKey(r)
		e := en(fam)
		m.latest[k] = e
		return e.handle, nil, false
	case "TRIGGER-EVENT", "TRIGGER-WINDOW-FOCUS":
		_, k := eventKey(r)
		return "", one(m.latest[k]), true

	case "ADD_IDLE_HANDLER":
		if queues[r.num("queue")] == nil {
			return "", nil, false // dropped: no thread serves the queue
		}
		e := en("idle")
		m.latest["idle|"+s("idler")+"|"+s("queue")] = e
		return e.handle, nil, false
	case "REMOVE_IDLE_HANDLER":
		delete(m.latest, "idle|"+s("idler")+"|"+s("queue"))
		return "", nil, false
	case "QUEUE_IDLE":
		return "", one(m.latest["idle|"+s("idler")+"|"+s("queue")]), true

	case "REGISTER-RECEIVER":
		e := en("receiver")
		m.latest["receiver|"+s("action")] = e
		return e.handle, nil, false
	case "TRIGGER-RECEIVER":
		return "", one(m.latest["receiver|"+s("action")]), true

	case "TRIGGER-BROADCAST":
		return m.broadcast(r, en)

	case "TRIGGER-SERVICE":
		st := s("state")
		if len(st) > 8 && st[:8] == "REQUEST_" {
			e := en("service")
			m.latest["service|"+s("id")+"|"+st] = e
			return e.handle, nil, false
		}
		for _, req := range serviceEnables[st] {
			if e := m.latest["service|"+s("id")+"|"+req]; e != nil {
				waits = append(waits, e)
			}
		}
		return "", waits, true
	}
	return "", nil, false
}

// eventKey is the family and matching key of a UI event or window focus
// enable or trigger.
func eventKey(r *record) (family, key string) {
	if r.kw == "ENABLE-EVENT" || r.kw == "TRIGGER-EVENT" {
		return "event", "event|" + r.str("view") + "|" + r.str("event")
	}
	return "focus", "focus|" + r.str("windowHash")
}

// broadcastStates maps the states of TRIGGER-BROADCAST lines to what they
// do; states not listed are reported as unknown.
var broadcastStates = map[string]string{
	"ABC_REGISTER_RECEIVER":       "register",
	"ABC_UNREGISTER_RECEIVER":     "unregister",
	"ABC_SEND_BROADCAST":          "send",
	"ABC_SEND_STICKY_BROADCAST":   "send",
	"ABC_REMOVE_STICKY_BROADCAST": "none",
	"ABC_TRIGGER_ONRECIEVE_LATER": "later",
	"ABC_ONRECEIVE":               "receive",
	"ABC_TRIGGER_ONRECIEVE":       "receive",
}

// broadcast matches a TRIGGER-BROADCAST line: registrations and sends
// enable, onReceive triggers.
func (m *matcher) broadcast(r *record, en func(string) *enable) (string, []*enable, bool) {
	comp := r.str("component") + "|" + r.str("action")
	switch broadcastStates[r.str("state")] {
	case "register":
		e := en("broadcast")
		if m.register[comp] == nil {
			m.register[comp] = e
		}
		return e.handle, nil, false
	case "unregister":
		for k := range m.register {
			if c, _, _ := strings.Cut(k, "|"); c == r.str("component") {
				delete(m.register, k)
			}
		}
	case "send":
		e := en("broadcast")
		m.sent[r.num("intent")] = e
		return e.handle, nil, false
	case "later":
		// Decides now which send and registration a later onReceive
		// (onRecLater:<this op id>) answers.
		var es []*enable
		if e := m.sent[r.num("intent")]; e != nil {
			es = append(es, e)
		}
		if e := m.register[comp]; e != nil {
			es = append(es, e)
		}
		m.later[r.id] = es
	case "receive":
		if es, ok := m.later[r.num("onRecLater")]; ok {
			return "", es, true
		}
		var es []*enable
		if e := m.sent[r.num("intent")]; e != nil {
			es = append(es, e)
		}
		if e := m.register[comp]; e != nil {
			es = append(es, e)
		}
		return "", es, true
	}
	return "", nil, false
}
