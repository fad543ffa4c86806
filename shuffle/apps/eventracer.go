package apps

import (
	"strconv"
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var eventRacer = &App{
	Name:  "eventracer",
	Title: "EventRacer's AsyncTask example: onPostExecute against onStop",
	Description: `The example of EventRacer for Android (Bielik et al.'s slides): onCreate ` +
		`(here a tap on "refresh") starts an AsyncTask; doInBackground downloads on a worker ` +
		`thread and onPostExecute, posted to the main thread, inserts the rows into the ` +
		`database (writes of TABLE:Users row by row). onStop closes the database. Nothing ` +
		`orders the download's end with the user leaving: if onPostExecute runs after onStop, it ` +
		`writes through a closed database (IllegalStateException, asserted here). Harmless ` +
		`races by construction: downloads of different feeds put into a cache on different ` +
		`keys (map puts on different keys) and bump a commutative counter; the list adapter ` +
		`shows whatever count is there (delayed UI updates).`,
	Harmful: []Race{
		{A: "DownloadTask.onPostExecute", B: "FeedActivity.onStop", Data: "database",
			Why:     "onPostExecute writes rows through the database that onStop closed",
			Symptom: "closed database"},
	},
	Harmless: []Race{
		{A: "DownloadTask.onPostExecute", B: "DownloadTask.onPostExecute", Data: "cache",
			Why: "each download puts its own key"},
		{A: "DownloadTask.onPostExecute", B: "FeedActivity.onScroll", Data: "rowsShown",
			Why: "the list shows the rows there are; the next scroll or post corrects it"},
		{A: "DownloadTask.onPostExecute", B: "FeedActivity.updateTimestamps", Data: "rowsShown",
			Why: "the labels are redrawn every second"},
	},
	Main: runEventRacer,
}

type eventRacerApp struct {
	rt      *shuffle.Runtime
	current *feedActivity
}

func runEventRacer(rt *shuffle.Runtime) {
	app := &eventRacerApp{rt: rt}
	act := rt.StartActivity(app.newFeedActivity)
	rt.AddActions(
		shuffle.Action{Name: "refresh", Weight: 2, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onRefreshClicked)
		}},
		shuffle.Action{Name: "scroll", Weight: 4, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onScroll)
		}},
	)
}

type feedActivity struct {
	shuffle.Object
	app   *eventRacerApp
	feeds int
	clock *shuffle.Message

	database  shuffle.Ptr[database]
	cache     shuffle.Ptr[shuffle.Map[int64]]
	downloads shuffle.Int
	rowsShown shuffle.Int
}

func (app *eventRacerApp) newFeedActivity() any {
	a := shuffle.New(app.rt, &feedActivity{app: app})
	app.current = a
	return a
}

func (a *feedActivity) OnCreate() {
	a.cache.Set(shuffle.NewMap[int64](a))
}

func (a *feedActivity) OnStart() {
	db := shuffle.New(a, &database{})
	db.users = shuffle.Table[int64](a, "Users")
	a.database.Set(db)
}

func (a *feedActivity) OnResume() {
	a.clock = a.Runtime().Main().PostDelayed(a.updateTimestamps, time.Second)
}

func (a *feedActivity) OnPause() {
	a.clock.Remove()
}

func (a *feedActivity) OnStop() {
	a.database.Use().close()
}

// updateTimestamps redraws the "posted 5 minutes ago" labels every second.
func (a *feedActivity) updateTimestamps() {
	a.rowsShown.Get()
	a.clock = a.Runtime().Main().PostDelayed(a.updateTimestamps, time.Second)
}

func (a *feedActivity) onRefreshClicked() {
	a.feeds++
	task := shuffle.New(a, &downloadTask{})
	task.activity.Set(a)
	task.feed.Set("feed" + strconv.Itoa(a.feeds%4))
	a.Runtime().Go("AsyncTask", task.doInBackground)
}

func (a *feedActivity) onScroll() {
	a.rowsShown.Set(a.downloads.Get() * 3)
}

// downloadTask is the activity's AsyncTask (an inner class in Java).
type downloadTask struct {
	shuffle.Object
	activity shuffle.Ptr[feedActivity]
	feed     shuffle.String
}

func (d *downloadTask) doInBackground() {
	rt := d.Runtime()
	d.feed.Get()
	rt.Sleep(5*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(16*time.Millisecond)))
	rt.Main().Post(d.onPostExecute)
}

// onPostExecute stores the download in the activity's database.
func (d *downloadTask) onPostExecute() {
	a := d.activity.Use()
	db := a.database.Use()
	a.Runtime().Assert(!db.closed.Get(), "IllegalStateException: attempt to write to a closed database")
	for row := range 3 {
		db.users.Put(strconv.Itoa(row), a.downloads.Get())
	}
	a.cache.Use().Put(d.feed.Get(), a.downloads.Add(1))
	a.rowsShown.Set(a.downloads.Get() * 3)
}

// database is the SQLiteDatabase of the activity.
type database struct {
	shuffle.Object
	users  *shuffle.Map[int64]
	closed shuffle.Bool
}

func (db *database) close() { db.closed.Set(true) }
