package shuffle

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/licorice-dev/licorice/traces"
)

// World is the outside of the process: the user, the system services,
// the network. It acts at virtual times of its choosing and reaches the
// process only by sending external events; it never touches the heap.
type World struct {
	rt *Runtime
}

// Now returns the virtual time.
func (w *World) Now() time.Duration { return w.rt.now }

// Rand returns the world's random source (the monkey's).
func (w *World) Rand() *rand.Rand { return w.rt.monkeyRand }

// Post sends fn to run on looper l as an external event (an input event
// delivered to the main thread, a vsync): the event calls fn as a handler.
func (w *World) Post(l *Looper, fn func()) {
	name, src := w.rt.names.handler(fn)
	l.sendExternal(func(t *task) { t.callHandler(name, src, fn) })
}

// Transact sends an incoming binder transaction: fn runs on one of the
// process's binder threads as a handler.
func (w *World) Transact(fn func()) {
	w.transact(nil, fn)
}

// transact sends a binder transaction whose event first waits on h (the
// request it answers), if any, then calls fn as a handler.
func (w *World) transact(h *Handle, fn func()) {
	name, src := w.rt.names.handler(fn)
	w.transactBody(h, func(t *task) { t.callHandler(name, src, fn) })
}

// transactBody is transact with a body of the framework, not a handler.
func (w *World) transactBody(h *Handle, body func(t *task)) {
	w.rt.binder.sendExternal(func(t *task) {
		if h != nil {
			w.rt.emitSync(traces.Wait, t, h.m, caller{})
		}
		body(t)
	})
}

// After runs fn as the world after d.
func (w *World) After(d time.Duration, fn func(w *World)) {
	w.rt.addTimer(w.rt.now+d, func() { fn(w) })
}

// CallSystem asks a system service for something on behalf of the running
// task (bindService, requestLocationUpdates, a network request): after
// latency the service answers with a binder transaction that runs fn on a
// binder thread, causally after this call (the trace records signal here
// and wait at the start of the answer). fn typically posts the callback
// to the main looper, as Android's ServiceDispatcher does.
//
//go:noinline
func (rt *Runtime) CallSystem(latency time.Duration, fn func()) {
	h := rt.NewHandle()
	h.signaled = true
	rt.emitSync(traces.Signal, rt.running("CallSystem"), h.m, appCaller())
	w := &World{rt: rt}
	rt.addTimer(rt.now+latency, func() { w.transact(h, fn) })
}

// tellSystem records a signal by the running task and lets the world
// learn of it after ipcLatency: fn runs as the world with the handle, so
// that the world's later transactions can wait on it (lifecycle enabling:
// an activity reports that it resumed, and only then may the system pause
// it).
func (rt *Runtime) tellSystem(fn func(w *World, h *Handle)) {
	h := rt.NewHandle()
	h.signaled = true
	rt.emitSync(traces.Signal, rt.running("tellSystem"), h.m, caller{})
	w := &World{rt: rt}
	rt.addTimer(rt.now+ipcLatency, func() { fn(w, h) })
}

// ipcLatency is how long a message from the app takes to reach a system
// service.
const ipcLatency = time.Millisecond

// Action is something the monkey can do: a tap, a key, a rotation, a
// network reply, a timer going off in another app.
type Action struct {
	Name string
	// Weight is how often the monkey picks the action relative to the
	// others that are enabled. Default 1.
	Weight int
	// Enabled reports whether the action makes sense now (an activity
	// can be paused only while resumed). It sees the world's state only,
	// never the app's heap. Nil: always.
	Enabled func() bool
	// Do performs the action: external events, world state.
	Do func(w *World)
}

// AddActions adds actions for the monkey. Call it from the app's main
// function.
func (rt *Runtime) AddActions(actions ...Action) {
	rt.monkey.actions = append(rt.monkey.actions, actions...)
}

// monkey performs a run's random actions at random times.
type monkey struct {
	actions   []Action
	done      int           // actions performed
	idle      bool          // no action was enabled at the last try
	idleSince time.Duration // since when, if idle
	weights   []int
}

// monkeyPatience is how long the monkey tries before it gives up finding
// an enabled action: the app is stuck (the life cycle never moves on).
const monkeyPatience = time.Minute

// start schedules the first action; after the last one, the run ends a
// grace period later.
func (m *monkey) start(rt *Runtime) {
	m.next(rt)
}

func (m *monkey) next(rt *Runtime) {
	if m.done >= rt.opts.Actions || len(m.actions) == 0 {
		rt.addTimer(rt.now+grace, func() { rt.over = true })
		return
	}
	gap := rt.opts.Throttle + time.Duration(rt.monkeyRand.ExpFloat64()*float64(rt.opts.ActionGap))
	rt.addTimer(rt.now+gap, func() {
		if rt.checkResponsive() {
			return
		}
		a := m.choose(rt.monkeyRand)
		switch {
		case a != nil:
			m.done++
			m.idle = false
			a.Do(&World{rt: rt})
		case !m.idle:
			m.idle, m.idleSince = true, rt.now
		case rt.now-m.idleSince >= monkeyPatience:
			rt.hang(rt.mainThread, fmt.Sprintf("app not responding: no monkey action enabled for %v (%d of %d done)",
				monkeyPatience, m.done, rt.opts.Actions))
			return
		}
		m.next(rt)
	})
}

// choose picks an enabled action by weight; nil if none is enabled.
func (m *monkey) choose(r *rand.Rand) *Action {
	m.weights = m.weights[:0]
	total := 0
	for i := range m.actions {
		a := &m.actions[i]
		w := 0
		if a.Enabled == nil || a.Enabled() {
			w = max(a.Weight, 1)
		}
		m.weights = append(m.weights, w)
		total += w
	}
	if total == 0 {
		return nil
	}
	n := r.IntN(total)
	for i, w := range m.weights {
		if n < w {
			return &m.actions[i]
		}
		n -= w
	}
	return nil
}
