package apps

import (
	"strconv"
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var aardDict = &App{
	Name:  "aarddict",
	Title: "A dictionary (after Aard Dict): delayed UI updates and flag-controlled handlers",
	Description: `An app full of the two kinds of harmless races that make up most of ` +
		`AsyncClock's reports (thesis §4.5.5): "delayed updates", where an input event changes ` +
		`the UI state and an independently posted event redraws it later, and ` +
		`"control-dependent races", where an earlier event sets a flag that changes what a later ` +
		`one does. Typing updates the query and a search posted 300ms later reads it (the last ` +
		`one wins, whatever the order); a worker thread loads the dictionary index and posts ` +
		`progress, which is drawn only while the activity is visible (onPause clears the flag); ` +
		`the word of the day is fetched from the network and drawn if the view is there. No ` +
		`harmful pair: every order is a correct execution.`,
	Harmless: []Race{
		{A: "LookupActivity.onTextChanged", B: "LookupActivity.search", Data: "query",
			Why: "the search uses the query as typed so far; the last search sees the final query"},
		{A: "LookupActivity.onProgress", B: "LookupActivity.onPause", Data: "visible",
			Why: "progress is drawn only while visible; either order leaves a consistent screen"},
		{A: "LookupActivity.onWordOfDay", B: "LookupActivity.onResume", Data: "wordView",
			Why: "the word is drawn if the view exists and kept for the next resume otherwise"},
	},
	Main: runAardDict,
}

type aardDictApp struct {
	rt      *shuffle.Runtime
	current *lookupActivity
}

func runAardDict(rt *shuffle.Runtime) {
	app := &aardDictApp{rt: rt}
	act := rt.StartActivity(app.newLookupActivity)
	rt.AddActions(
		shuffle.Action{Name: "type", Weight: 6, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onTextChanged)
		}},
		shuffle.Action{Name: "word of the day", Weight: 1, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Transact(app.current.onNetworkReply)
		}},
	)
}

type lookupActivity struct {
	shuffle.Object
	app     *aardDictApp
	pending *shuffle.Message

	query    shuffle.String
	results  shuffle.Int
	visible  shuffle.Bool
	loaded   shuffle.Int
	wordView shuffle.Ptr[wordView]
	word     shuffle.String
}

type wordView struct {
	shuffle.Object
	text shuffle.String
}

func (app *aardDictApp) newLookupActivity() any {
	a := shuffle.New(app.rt, &lookupActivity{app: app})
	app.current = a
	return a
}

func (a *lookupActivity) OnCreate() {
	a.query.Set("")
	a.Runtime().Go("IndexLoader", a.loadIndex)
}

func (a *lookupActivity) OnResume() {
	a.visible.Set(true)
	a.wordView.Set(shuffle.New(a, &wordView{}))
	a.wordView.Use().text.Set(a.word.Get())
}

func (a *lookupActivity) OnPause() {
	a.visible.Set(false)
	a.wordView.Set(nil)
	a.pending.Remove()
}

// onTextChanged updates the query and (re)schedules the search.
func (a *lookupActivity) onTextChanged() {
	q := a.query.Get()
	if len(q) > 8 {
		q = ""
	}
	a.query.Set(q + string(rune('a'+a.Runtime().Rand().IntN(26))))
	a.pending.Remove()
	a.pending = a.Runtime().Main().PostDelayed(a.search, 300*time.Millisecond)
}

func (a *lookupActivity) search() {
	a.results.Set(int64(len(a.query.Get())))
}

// loadIndex reads the dictionary's index volume by volume.
func (a *lookupActivity) loadIndex() {
	rt := a.Runtime()
	for range 20 {
		rt.Sleep(20*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(30*time.Millisecond)))
		rt.Main().Post(a.onProgress)
	}
}

func (a *lookupActivity) onProgress() {
	n := a.loaded.Add(1)
	if a.visible.Test() {
		a.results.Set(n)
	}
}

// onNetworkReply is the word of the day arriving on a binder thread.
func (a *lookupActivity) onNetworkReply() {
	a.Runtime().Main().Post(a.onWordOfDay)
}

func (a *lookupActivity) onWordOfDay() {
	a.word.Set("serendipity")
	if a.wordView.NotNull() {
		a.wordView.Use().text.Set(a.word.Get())
	}
}

var tomdroid = &App{
	Name:  "tomdroid",
	Title: "A note-taking app (after Tomdroid) syncing on binder threads: commutative updates",
	Description: `An app whose races all commute: notes arrive from the sync server as binder ` +
		`transactions, served by the process's binder threads in parallel; each puts its note ` +
		`into the notes map and the database on its own key (map puts on different keys), bumps ` +
		`the synced counter under a lock (a commutative counter), and posts a refresh of the ` +
		`list to the main thread (a delayed UI update). Editing a note on the main thread ` +
		`writes its own key too. No harmful pair.`,
	Harmless: []Race{
		{A: "SyncService.onNoteReceived", B: "SyncService.onNoteReceived", Data: "db:Notes",
			Why: "two notes are put on different keys (rows)"},
		{A: "SyncService.onNoteReceived", B: "SyncService.onNoteReceived", Data: "synced",
			Why: "increments under a lock commute"},
		{A: "NoteListActivity.refreshList", B: "NoteListActivity.refreshList", Data: "refreshes",
			Why: "a counter of refreshes: increments commute"},
		{A: "NoteListActivity.refreshList", B: "SyncService.onNoteReceived", Data: "synced",
			Why: "the list shows the count synced so far; the transaction posts its own refresh"},
	},
	Main: runTomdroid,
}

type tomdroidApp struct {
	rt      *shuffle.Runtime
	sync    *syncService
	current *noteListActivity
}

func runTomdroid(rt *shuffle.Runtime) {
	app := &tomdroidApp{rt: rt}
	app.sync = shuffle.New(rt, &syncService{app: app})
	app.sync.lock = shuffle.NewMutex(rt)
	app.sync.notes = shuffle.NewMap[string](rt)
	act := rt.StartActivity(app.newNoteListActivity)
	rt.AddActions(
		shuffle.Action{Name: "sync", Weight: 4, Do: func(w *shuffle.World) {
			for range 1 + w.Rand().IntN(3) {
				w.Transact(app.sync.onNoteReceived)
			}
		}},
		shuffle.Action{Name: "edit note", Weight: 3, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onNoteEdited)
		}},
	)
}

// syncService receives notes from the server on binder threads.
type syncService struct {
	shuffle.Object
	app  *tomdroidApp
	lock *shuffle.Mutex
	// notes is a Go field: the map object is made once and never
	// replaced.
	notes *shuffle.Map[string]

	received shuffle.Int
	synced   shuffle.Int
}

func (s *syncService) onNoteReceived() {
	rt := s.Runtime()
	s.lock.Lock()
	id := "note" + strconv.FormatInt(s.received.Add(1), 10)
	s.lock.Unlock()
	rt.Sleep(time.Duration(rt.Rand().IntN(3000)) * time.Microsecond) // parse the note
	s.notes.Put(id, "text of "+id)
	shuffle.Table[string](s, "Notes").Put(id, "text of "+id)
	s.lock.Lock()
	s.synced.Add(1)
	s.lock.Unlock()
	if a := s.app.current; a != nil {
		rt.Main().Post(a.refreshList)
	}
}

type noteListActivity struct {
	shuffle.Object
	app       *tomdroidApp
	shown     shuffle.Int
	edits     shuffle.Int
	refreshes shuffle.Int
}

func (app *tomdroidApp) newNoteListActivity() any {
	a := shuffle.New(app.rt, &noteListActivity{app: app})
	app.current = a
	return a
}

func (a *noteListActivity) OnResume() { a.refreshList() }

func (a *noteListActivity) refreshList() {
	a.refreshes.Add(1)
	a.shown.Set(a.app.sync.synced.Get())
}

func (a *noteListActivity) onNoteEdited() {
	n := a.edits.Add(1)
	a.app.sync.notes.Put("draft"+strconv.FormatInt(n, 10), "edited")
	a.Runtime().Main().Post(a.refreshList)
}
