package apps

import (
	"strconv"
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var myTracks = &App{
	Name:  "mytracks",
	Title: "MyTracks, Google's GPS track recorder: the thesis' running example",
	Description: `Two use-after-free bugs of Google's MyTracks (thesis Fig. 1.2, 1.4, 3.6 and 5.1; ` +
		`CAFA found them in MyTracks.java and TrackDetailActivity.java). ` +
		`(1) onResume creates a TrackDataHub, which loads the track on its own HandlerThread and ` +
		`posts onUpdateResults to the main thread; onUpdateResults requires dataHub != null, but ` +
		`onPause stops the hub and sets dataHub to null, and nothing orders the hub's post with the ` +
		`pause the user causes: if the update is processed after onPause, NullPointerException. ` +
		`(2) onCreate binds the recording service; the system answers on a binder thread, which ` +
		`posts onServiceConnected; it starts recording through providerUtils, which onDestroy frees ` +
		`(the source's own TODO: "avoid the hack below and a race condition"). Leaving or rotating ` +
		`the screen before the service connects crashes the app. ` +
		`Harmless races by construction: the periodic stats refresh reads the selected tab, the ` +
		`recording flag and the shown points that input events and updates write (delayed UI ` +
		`updates, flag-controlled drawing); it tests dataHub before using it.`,
	Harmful: []Race{
		{A: "TrackDetailActivity.onUpdateResults", B: "TrackDetailActivity.onPause", Data: "dataHub",
			Why:     "onUpdateResults dereferences dataHub, which onPause sets to null: processed after onPause, the update crashes",
			Symptom: "TrackDetailActivity.dataHub"},
		{A: "TrackDetailActivity.onServiceConnected", B: "TrackDetailActivity.onDestroy", Data: "providerUtils",
			Why:     "onServiceConnected starts recording through providerUtils, which onDestroy sets to null",
			Symptom: "TrackDetailActivity.providerUtils"},
	},
	Harmless: []Race{
		{A: "TrackDetailActivity.onTabSelected", B: "TrackDetailActivity.refreshStats", Data: "tab",
			Why: "the refresh draws whichever tab is selected"},
		{A: "TrackDetailActivity.onRecordClicked", B: "TrackDetailActivity.refreshStats", Data: "recording",
			Why: "the refresh shows the recording state as it is"},
		{A: "TrackDetailActivity.onUpdateResults", B: "TrackDetailActivity.refreshStats", Data: "shownPoints",
			Why: "a refresh before the update shows the previous count, which the next refresh corrects"},
	},
	Main: runMyTracks,
}

// myTracksApp is the app's glue outside the trace: which activity
// instance has the focus, for the monkey's taps.
type myTracksApp struct {
	rt      *shuffle.Runtime
	current *trackDetailActivity
}

func runMyTracks(rt *shuffle.Runtime) {
	app := &myTracksApp{rt: rt}
	detail := rt.StartActivity(app.newTrackDetailActivity)
	rt.AddActions(
		shuffle.Action{Name: "select tab", Weight: 3, Enabled: detail.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onTabSelected)
		}},
		shuffle.Action{Name: "tap record", Weight: 1, Enabled: detail.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onRecordClicked)
		}},
		shuffle.Action{Name: "location fix", Weight: 2, Do: func(w *shuffle.World) {
			w.Transact(app.onTrackPointsChanged)
		}},
	)
}

// trackDetailActivity shows one track: statistics, chart and map tabs.
type trackDetailActivity struct {
	shuffle.Object
	app     *myTracksApp
	refresh *shuffle.Message

	dataHub       shuffle.Ptr[trackDataHub]
	providerUtils shuffle.Ptr[providerUtils]
	trackID       shuffle.Int
	tab           shuffle.Int
	recording     shuffle.Bool
	shownPoints   shuffle.Int
}

// onTrackPointsChanged is the content observer of the track points, which
// the recording service inserts: it runs on a binder thread and asks the
// shown activity's hub, if any, to reload.
func (app *myTracksApp) onTrackPointsChanged() {
	if a := app.current; a != nil {
		// One read: this is another thread than the activity's, so the
		// field may change between a test and a second read.
		if hub := a.dataHub.Get(); hub != nil {
			hub.reload()
		}
	}
}

func (app *myTracksApp) newTrackDetailActivity() any {
	a := shuffle.New(app.rt, &trackDetailActivity{app: app})
	app.current = a
	return a
}

func (a *trackDetailActivity) OnCreate() {
	a.providerUtils.Set(shuffle.New(a, &providerUtils{}))
	a.trackID.Set(1 + a.Runtime().Rand().Int64N(9))
	a.tab.Set(0)
	// bindService: the recording service answers on a binder thread.
	a.Runtime().CallSystem(serviceLatency(a.Runtime()), serviceConnection{a}.connected)
}

func (a *trackDetailActivity) OnResume() {
	hub := shuffle.New(a, &trackDataHub{})
	hub.start(a)
	a.dataHub.Set(hub) // published once started: the content observer may use it at once
	a.refresh = a.Runtime().Main().PostDelayed(a.refreshStats, 500*time.Millisecond)
}

// onUpdateResults is the hub's listener callback.
func (a *trackDetailActivity) onUpdateResults() {
	hub := a.dataHub.Use() // null if onPause came first: the bug
	a.shownPoints.Set(hub.points.Get())
}

func (a *trackDetailActivity) OnPause() {
	a.refresh.Remove()
	a.dataHub.Use().stop()
	a.dataHub.Set(nil)
}

func (a *trackDetailActivity) OnDestroy() {
	a.providerUtils.Set(nil)
}

// onServiceConnected runs MyTracks.startRecordingNewTrack.
func (a *trackDetailActivity) onServiceConnected() {
	utils := a.providerUtils.Use() // null if onDestroy came first: the bug
	utils.insertTrack(a.trackID.Get())
	a.recording.Set(true)
}

func (a *trackDetailActivity) onTabSelected() {
	a.tab.Set((a.tab.Get() + 1) % 3)
}

func (a *trackDetailActivity) onRecordClicked() {
	a.recording.Set(!a.recording.Get())
}

// refreshStats redraws the statistics twice a second while resumed.
func (a *trackDetailActivity) refreshStats() {
	if a.tab.Get() == 0 && a.dataHub.NotNull() {
		a.dataHub.Use().points.Get()
	}
	a.recording.Get()
	a.shownPoints.Get()
	a.refresh = a.Runtime().Main().PostDelayed(a.refreshStats, 500*time.Millisecond)
}

// serviceConnection is ServiceConnection's dispatcher: it runs on a
// binder thread and posts the callback to the main thread.
type serviceConnection struct{ a *trackDetailActivity }

func (c serviceConnection) connected() {
	c.a.Runtime().Main().Post(c.a.onServiceConnected)
}

// serviceLatency is how long binding the service takes: usually a few
// milliseconds, now and then much longer (a busy system).
func serviceLatency(rt *shuffle.Runtime) time.Duration {
	return 2*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(8*time.Millisecond))
}

// providerUtils writes tracks to the content provider.
type providerUtils struct {
	shuffle.Object
	inserted shuffle.Int
}

func (p *providerUtils) insertTrack(id int64) {
	tracks := shuffle.Table[int64](p, "Tracks")
	tracks.Put(strconv.FormatInt(id, 10), p.inserted.Add(1))
}

// trackDataHub loads track data on its own thread and notifies its
// listener (TrackDataHub.java).
type trackDataHub struct {
	shuffle.Object
	lock         *shuffle.Mutex
	looper       *shuffle.Looper
	registration *shuffle.Handle

	listener shuffle.Ptr[trackDetailActivity]
	started  shuffle.Bool
	points   shuffle.Int
}

// start registers the listener and starts loading on the hub's thread.
func (h *trackDataHub) start(l *trackDetailActivity) {
	rt := h.Runtime()
	h.lock = shuffle.NewMutex(h)
	h.lock.Lock()
	h.listener.Set(l)
	h.registration = rt.NewHandle()
	h.registration.Signal()
	h.started.Set(true)
	h.lock.Unlock()
	h.looper = rt.StartLooper("TrackDataHub")
	h.looper.Post(h.loadTrack)
}

// reload makes the hub load the track again (from any thread).
func (h *trackDataHub) reload() {
	h.looper.Post(h.loadTrack)
}

// loadTrack reads the track's points and tells the listener.
func (h *trackDataHub) loadTrack() {
	rt := h.Runtime()
	rt.Sleep(5*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(5*time.Millisecond)))
	h.points.Add(1 + rt.Rand().Int64N(20))
	h.lock.Lock()
	l := h.listener.Get()
	h.lock.Unlock()
	if l != nil {
		h.registration.Wait() // the listener is invoked after its registration
		rt.Main().Post(l.onUpdateResults)
	}
}

// stop unregisters the listener and ends the hub's thread.
func (h *trackDataHub) stop() {
	h.lock.Lock()
	h.listener.Set(nil)
	h.started.Set(false)
	h.lock.Unlock()
	h.looper.Quit()
}
