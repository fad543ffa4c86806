package apps

import (
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var connectBot = &App{
	Name:  "connectbot",
	Title: "ConnectBot, an SSH client: the thesis' harmless race (Fig. 3.5, 5.2b)",
	Description: `ConnectBot's terminal resizes itself on layout: onLayout reads ` +
		`manager.resizeAllowed and, if set, recomputes columns and rows from the view's size ` +
		`and resizes the remote terminal; onPause clears resizeAllowed (thesis Fig. 3.5 and ` +
		`5.2b). onLayout comes from a traversal the view system posts (behind a sync barrier, ` +
		`as an async message) and onPause from the system, so nothing orders them: a data race, ` +
		`but events of one looper are atomic, so onPause can never fall between the test and the ` +
		`update, and either order leaves a valid terminal. Every race of this app is harmless: ` +
		`the relay thread's output (delayed UI updates), the bytes-received counter, the ` +
		`keyboard toggle that changes the view's height.`,
	Harmless: []Race{
		{A: "TerminalView.onLayout", B: "ConsoleActivity.onPause", Data: "resizeAllowed",
			Why: "events are atomic: onPause falls before the test or after the resize, and both leave a valid terminal"},
		{A: "TerminalView.onTerminalOutput", B: "TerminalView.onLayout", Data: "columns",
			Why: "output wraps at the current width; a later layout re-wraps"},
		{A: "TerminalView.onTerminalOutput", B: "ConsoleActivity.onPause", Data: "bytesShown",
			Why: "a counter of output shown; its readers tolerate any value"},
	},
	Main: runConnectBot,
}

type connectBotApp struct {
	rt      *shuffle.Runtime
	current *consoleActivity
}

func runConnectBot(rt *shuffle.Runtime) {
	app := &connectBotApp{rt: rt}
	act := rt.StartActivity(app.newConsoleActivity)
	rt.AddActions(
		shuffle.Action{Name: "toggle keyboard", Weight: 3, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.view.onKeyboardToggled)
		}},
		shuffle.Action{Name: "type key", Weight: 4, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.view.onKey)
		}},
	)
}

// consoleActivity hosts the terminal of one SSH session.
type consoleActivity struct {
	shuffle.Object
	app   *connectBotApp
	view  *terminalView
	relay *shuffle.Thread

	manager shuffle.Ptr[terminalManager]
	paused  shuffle.Bool
}

func (app *connectBotApp) newConsoleActivity() any {
	a := shuffle.New(app.rt, &consoleActivity{app: app})
	app.current = a
	return a
}

func (a *consoleActivity) OnCreate() {
	m := shuffle.New(a, &terminalManager{})
	m.columns.Set(80)
	m.rows.Set(24)
	a.manager.Set(m)
	a.view = shuffle.New(a, &terminalView{activity: a})
	a.view.height.Set(1200)
	a.view.width.Set(800)
	a.relay = a.Runtime().Go("Relay", a.view.relayOutput)
}

func (a *consoleActivity) OnResume() {
	a.paused.Set(false)
	a.manager.Use().resizeAllowed.Set(true)
	a.view.requestLayout()
}

func (a *consoleActivity) OnDestroy() {
	a.view.closed.Set(true) // the relay thread stops
}

func (a *consoleActivity) OnPause() {
	a.paused.Set(true)
	a.manager.Use().resizeAllowed.Set(false)
	a.view.bytesShown.Get()
}

// terminalManager is the terminal's state (TerminalBridge).
type terminalManager struct {
	shuffle.Object
	resizeAllowed shuffle.Bool
	columns       shuffle.Int
	rows          shuffle.Int
}

// terminalView draws the terminal.
type terminalView struct {
	shuffle.Object
	activity      *consoleActivity
	layoutPending bool
	barrier       int64

	width, height shuffle.Int
	bytesShown    shuffle.Int
	closed        shuffle.Bool
}

// requestLayout schedules a traversal as ViewRootImpl does: a sync
// barrier holds ordinary messages back until the next frame's
// asynchronous traversal has run.
func (v *terminalView) requestLayout() {
	if v.layoutPending {
		return
	}
	v.layoutPending = true
	main := v.Runtime().Main()
	v.barrier = main.PostSyncBarrier()
	main.PostAsync(v.performTraversals, 16*time.Millisecond)
}

func (v *terminalView) performTraversals() {
	v.layoutPending = false
	v.Runtime().Main().RemoveSyncBarrier(v.barrier)
	v.Runtime().Call(v.onLayout)
}

// onLayout resizes the terminal to the view (Fig. 3.5).
func (v *terminalView) onLayout() {
	m := v.activity.manager.Use()
	if m.resizeAllowed.Test() {
		m.columns.Set(v.width.Get() / 10)
		m.rows.Set(v.height.Get() / 20)
		if m.columns.Less(&m.rows) {
			m.rows.Set(m.columns.Get())
		}
	}
}

func (v *terminalView) onKeyboardToggled() {
	if v.height.Get() == 1200 {
		v.height.Set(700)
	} else {
		v.height.Set(1200)
	}
	v.requestLayout()
}

func (v *terminalView) onKey() {
	v.activity.manager.Use().columns.Get()
}

// relayOutput is the Relay thread: it reads the SSH channel and hands the
// output to the UI.
func (v *terminalView) relayOutput() {
	rt := v.Runtime()
	for !v.closed.Get() {
		rt.Sleep(50*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(400*time.Millisecond)))
		rt.Main().Post(v.onTerminalOutput)
	}
}

func (v *terminalView) onTerminalOutput() {
	m := v.activity.manager.Use()
	m.columns.Get()
	v.bytesShown.Add(1 + v.Runtime().Rand().Int64N(80))
}
