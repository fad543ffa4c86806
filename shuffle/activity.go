package shuffle

import (
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"unicode"

	"github.com/licorice-dev/licorice/traces"
)

// Activity is an activity as the system drives it: the system launches it,
// pauses and stops it when the user leaves, restarts it when the user comes
// back, destroys it on "back", and destroys and recreates it on rotation.
//
// As in Android, every life-cycle step reaches the app as a binder
// transaction whose binder thread posts a message to the main looper; that
// event calls the instance's life-cycle methods, those of OnCreate(),
// OnStart(), OnRestart(), OnResume(), OnPause(), OnStop() and OnDestroy()
// it has, as handlers named "TrackDetailActivity.onPause". The system
// moves on only after the app reported the previous step (lifecycle
// enabling): each life-cycle event ends with a signal that the next
// step's transaction waits on.
type Activity struct {
	rt     *Runtime
	create func() any
	inst   any // the live instance; main-thread events only

	// The world's view.
	state   lifeState
	enabled *Handle // the app's report of the last step
}

type lifeState uint8

const (
	lifeBusy lifeState = iota // a transition is under way
	lifeResumed
	lifeStopped
	lifeDestroyed
)

// StartActivity starts an activity whose instances create makes (with
// [New], on the main thread); the running task asks the system to launch
// it (startActivity). It adds the monkey actions that drive the life cycle:
// "home" and "reopen", "back" and "launch", "rotate".
func (rt *Runtime) StartActivity(create func() any) *Activity {
	a := &Activity{rt: rt, create: create}
	rt.tellSystem(func(w *World, h *Handle) { a.schedule(w, h, a.handleLaunch) })
	is := func(s lifeState) func() bool { return func() bool { return a.state == s } }
	rt.AddActions(
		Action{Name: "home", Weight: 2, Enabled: is(lifeResumed), Do: func(w *World) {
			a.schedule(w, a.enabled, a.handlePause(false))
		}},
		Action{Name: "reopen", Weight: 3, Enabled: is(lifeStopped), Do: func(w *World) {
			a.schedule(w, a.enabled, a.handleRestart)
		}},
		Action{Name: "back", Weight: 1, Enabled: is(lifeResumed), Do: func(w *World) {
			a.schedule(w, a.enabled, a.handlePause(true))
		}},
		Action{Name: "launch", Weight: 3, Enabled: is(lifeDestroyed), Do: func(w *World) {
			a.schedule(w, a.enabled, a.handleLaunch)
		}},
		Action{Name: "rotate", Weight: 1, Enabled: is(lifeResumed), Do: func(w *World) {
			a.schedule(w, a.enabled, a.handleRelaunch)
		}},
	)
	return a
}

// Resumed reports whether the system sees the activity resumed, in the
// foreground: an Enabled function for input actions.
func (a *Activity) Resumed() bool { return a.state == lifeResumed }

// schedule sends the transaction of a life-cycle step: on a binder thread,
// wait for the app's report of the previous step, then post the step to
// the main looper.
func (a *Activity) schedule(w *World, after *Handle, step func(t *task)) {
	a.state = lifeBusy
	w.transactBody(after, func(*task) {
		a.rt.main.sendBody(sendSpec{}, step, caller{})
	})
}

// report tells the system that a step is done; the world's state becomes s.
func (a *Activity) report(s lifeState, then func(w *World, h *Handle)) {
	a.rt.tellSystem(func(w *World, h *Handle) {
		a.state, a.enabled = s, h
		if then != nil {
			then(w, h)
		}
	})
}

func (a *Activity) handleLaunch(t *task) {
	a.instantiate(t)
	a.call(t, "OnCreate")
	a.call(t, "OnStart")
	a.call(t, "OnResume")
	a.report(lifeResumed, nil)
}

func (a *Activity) handlePause(finishing bool) func(t *task) {
	return func(t *task) {
		a.call(t, "OnPause")
		a.report(lifeBusy, func(w *World, h *Handle) {
			if finishing {
				a.schedule(w, h, a.handleDestroy)
			} else {
				a.schedule(w, h, a.handleStop)
			}
		})
	}
}

func (a *Activity) handleStop(t *task) {
	a.call(t, "OnStop")
	a.report(lifeStopped, nil)
}

func (a *Activity) handleRestart(t *task) {
	a.call(t, "OnRestart")
	a.call(t, "OnStart")
	a.call(t, "OnResume")
	a.report(lifeResumed, nil)
}

func (a *Activity) handleDestroy(t *task) {
	a.call(t, "OnStop")
	a.call(t, "OnDestroy")
	a.inst = nil
	a.report(lifeDestroyed, nil)
}

func (a *Activity) handleRelaunch(t *task) {
	a.call(t, "OnPause")
	a.call(t, "OnStop")
	a.call(t, "OnDestroy")
	a.instantiate(t)
	a.call(t, "OnCreate")
	a.call(t, "OnStart")
	a.call(t, "OnResume")
	a.report(lifeResumed, nil)
}

// instantiate makes a new instance, in a handler named after the
// activity's constructor.
func (a *Activity) instantiate(t *task) {
	cname, csrc := a.rt.names.handler(a.create)
	t.callHandler(cname, csrc, func() { a.inst = a.create() })
}

// call calls the instance's life-cycle method, if it has it, as a handler.
func (a *Activity) call(t *task, method string) {
	if a.inst == nil {
		return
	}
	fn, name, src := a.rt.names.lifecycle(a.inst, method)
	if fn != nil {
		t.callHandler(name, src, fn)
	}
}

// lifecycle returns inst's method named method as a func, with its
// handler name and source location; nil if inst has no such method.
func (c *nameCache) lifecycle(inst any, method string) (func(), traces.Sym, traces.Sym) {
	v := reflect.ValueOf(inst)
	typ := v.Type()
	m, ok := typ.MethodByName(method)
	if !ok || m.Type.NumIn() != 1 || m.Type.NumOut() != 0 {
		return nil, traces.NoSym, traces.NoSym
	}
	key := methodKey{typ, method}
	h, ok := c.methods[key]
	if !ok {
		class := typ.Name()
		if typ.Kind() == reflect.Pointer {
			class = typ.Elem().Name()
		}
		h.name = c.syms.Intern(ClassName(class) + "." + withFirst(method, unicode.ToLower))
		if f := runtime.FuncForPC(m.Func.Pointer()); f != nil {
			file, line := f.FileLine(f.Entry())
			h.src = c.syms.Intern(filepath.Base(file) + ":" + strconv.Itoa(line))
		}
		c.methods[key] = h
	}
	return v.Method(m.Index).Interface().(func()), h.name, h.src
}
