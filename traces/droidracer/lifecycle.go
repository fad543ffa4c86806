package droidracer

import "slices"

// lifecycle is DroidRacer's activity state machine (AbcModel.cpp,
// checkAndUpdateComponentState), which Options.Lifecycle adds to the
// import. Android drives each activity instance through its lifecycle:
// the system sends the next transition (pause, stop, ...) only once the
// app has handled the one before, so the callbacks of one instance run in
// the order of the machine in every execution, and the system posts them
// in that order. For each trigger that follows the instance's previous
// trigger by a transition of the machine, DroidRacer adds three edges:
// previous trigger → trigger, end of the previous trigger's event → begin
// of this one's, and post of the previous trigger's message → post of
// this one's. The import writes them as signals and waits:
//
//   - "activity@<previous trigger>": signalled just before the previous
//     trigger's event ends (or at the trigger, outside any event), waited
//     for at the trigger;
//   - "activity-post@<previous trigger>": signalled right after the send
//     of the previous trigger's message, waited for just before the send
//     of this one's, when the one comes before the other in the log. With
//     rule PRIORITY this orders the two events whole, as DroidRacer's
//     second edge does.
type lifecycle struct {
	last map[string]*trigger // activity (its intent id until INSTANCE-INTENT names the instance) -> its last trigger
}

// trigger is one lifecycle trigger of an activity.
type trigger struct {
	rec   int
	id    int64
	state string
	msg   int64 // the message whose event ran it; -1 if none
}

// activityPrev lists, per activity lifecycle state, the states DroidRacer's
// machine accepts before it.
var activityPrev = map[string][]string{
	"LAUNCH-ACT":  nil,
	"RESUME-ACT":  {"LAUNCH-ACT", "START-ACT", "PAUSE-ACT", "STOP-ACT", "NEW_INTENT", "RESULT-ACT"},
	"START-ACT":   {"STOP-ACT"},
	"PAUSE-ACT":   {"RESUME-ACT"},
	"STOP-ACT":    {"PAUSE-ACT"},
	"DESTROY-ACT": {"STOP-ACT"},
	"RESULT-ACT":  {"STOP-ACT", "NEW_INTENT"},
	"NEW_INTENT":  {"RESULT-ACT", "PAUSE-ACT", "STOP-ACT"},
}

func newLifecycle() *lifecycle { return &lifecycle{last: map[string]*trigger{}} }

// step updates the machine with record i, run by message msg (-1 if
// none), and plans the signals and waits of the orders it finds.
func (lc *lifecycle) step(p *plan, r *record, i int, msg int64) {
	switch r.kw {
	case "INSTANCE-INTENT":
		if t, ok := lc.last[r.str("intentId")]; ok {
			delete(lc.last, r.str("intentId"))
			lc.last[r.str("instance")] = t
		}
		return
	case "TRIGGER-LIFECYCLE":
	default:
		return
	}
	state := r.str("state")
	prevStates, ok := activityPrev[state]
	if !ok {
		return // not an activity state
	}
	act := r.str("id")
	cur := &trigger{rec: i, id: r.id, state: state, msg: msg}
	if prev := lc.last[act]; prev != nil && slices.Contains(prevStates, prev.state) {
		lc.order(p, prev, cur)
	}
	if state == "DESTROY-ACT" {
		delete(lc.last, act)
	} else {
		lc.last[act] = cur
	}
}

// order plans the orders of transition prev → cur.
func (lc *lifecycle) order(p *plan, prev, cur *trigger) {
	if prev.msg >= 0 && prev.msg == cur.msg {
		return // one event: program order
	}
	h := handle("activity", prev.id)
	if prev.msg >= 0 {
		p.endSignals[prev.msg] = append(p.endSignals[prev.msg], h)
	} else if p.signals[prev.rec] == "" {
		p.signals[prev.rec] = h
	} else {
		return // the trigger signals another handle already (an op signals one)
	}
	p.waits[cur.rec] = append(p.waits[cur.rec], h)
	if prev.msg < 0 || cur.msg < 0 {
		return
	}
	from, ok1 := p.postRec[prev.msg]
	to, ok2 := p.postRec[cur.msg]
	if !ok1 || !ok2 || from >= to {
		return
	}
	hp := handle("activity-post", prev.id)
	p.postSignals[from] = append(p.postSignals[from], hp)
	p.postWaits[to] = append(p.postWaits[to], postWait{hp, cur.id})
}
