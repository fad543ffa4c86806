package apps

import (
	"slices"

	"github.com/licorice-dev/licorice/shuffle"
)

// App is a benchmark app: a program for the shuffle runtime and the truth
// about the races it produces.
type App struct {
	Name        string // the name `licorice record --app` takes: "mytracks"
	Title       string // one line: what the app is
	Description string // the real bug, where it comes from (paper, app), and how the port reproduces it
	// Harmful are the pairs of handlers whose order is a real bug, with
	// the data they race on. Every other race the app produces is harmless
	// by construction.
	Harmful []Race
	// Harmless lists the harmless races the app was written to produce,
	// with why their order does not matter (not necessarily all of them).
	Harmless []Race
	// Main sets the app up on the main thread (see shuffle.Run).
	Main func(rt *shuffle.Runtime)
}

// Race is a pair of handlers that can run in either order and touch the
// same data.
type Race struct {
	A, B string // handler names as the trace spells them: "TrackDetailActivity.onPause"
	Data string // the field (or table) involved, as the trace names it: "dataHub"
	Why  string // what goes wrong (harmful) or why nothing does (harmless)
	// Symptom is, for a harmful race, a part of the message of the error
	// op of a run that hit it: how to tell which bug a crashed run shows.
	Symptom string
}

// Involves reports whether the race is between handlers a and b, in
// either order.
func (r Race) Involves(a, b string) bool {
	return (r.A == a && r.B == b) || (r.A == b && r.B == a)
}

// all is the list of apps, sorted by name.
var all = []*App{
	aardDict,
	barcodeScanner,
	connectBot,
	eventRacer,
	firefox,
	myTracks,
	toDoList,
	tomdroid,
	vlcPlayer,
}

// All returns the apps, sorted by name. The slice is shared: do not
// modify it.
func All() []*App { return all }

// Lookup returns the app with the given name.
func Lookup(name string) (*App, bool) {
	i, ok := slices.BinarySearchFunc(all, name, func(a *App, n string) int {
		switch {
		case a.Name < n:
			return -1
		case a.Name > n:
			return 1
		}
		return 0
	})
	if !ok {
		return nil, false
	}
	return all[i], true
}

// IsHarmful reports whether the race between handlers a and b is one of
// the app's harmful pairs.
func (app *App) IsHarmful(a, b string) bool {
	for _, r := range app.Harmful {
		if r.Involves(a, b) {
			return true
		}
	}
	return false
}
