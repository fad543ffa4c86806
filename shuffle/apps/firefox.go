package apps

import (
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var firefox = &App{
	Name:  "firefox",
	Title: "Firefox for Android: the locale read on the compositor thread",
	Description: `A harmful race AsyncClock found in Firefox, confirmed by its developers ` +
		`(thesis §4.5.5): Firefox processes user input on the UI thread and renders on a ` +
		`separate compositor thread, which reads the locale settings while a UI event may be ` +
		`updating them, so the browser renders locale-specific content wrongly until the next ` +
		`refresh. Here GeckoApp.onLocaleChanged writes Locale.language, then (after updating ` +
		`the preferences) Locale.country; LayerRenderer.onDrawFrame on the compositor looper ` +
		`reads both and asserts the pair is a locale the user chose. The two events run on ` +
		`different loopers, so they are not atomic with respect to each other: a frame drawn ` +
		`between the two writes renders a mixed locale. Harmless races by construction: the ` +
		`zoom level and the scroll position the renderer reads (delayed UI updates), the frame ` +
		`counter.`,
	Harmful: []Race{
		{A: "GeckoApp.onLocaleChanged", B: "LayerRenderer.onDrawFrame", Data: "language",
			Why:     "a frame drawn between the writes of language and country renders a locale nobody chose",
			Symptom: "rendered with locale"},
	},
	Harmless: []Race{
		{A: "GeckoApp.onZoom", B: "LayerRenderer.onDrawFrame", Data: "zoom",
			Why: "the frame uses the zoom as it is; the next frame catches up"},
		{A: "GeckoApp.onScroll", B: "LayerRenderer.onDrawFrame", Data: "scrollY",
			Why: "the frame uses the scroll position as it is"},
		{A: "GeckoApp.onZoom", B: "LayerRenderer.onViewportChanged", Data: "zoom",
			Why: "a viewport update sees this zoom or the next; the next update catches up"},
	},
	Main: runFirefox,
}

// locale is the static state of java.util.Locale's default.
type locale struct {
	language shuffle.String
	country  shuffle.String
}

var locales = [...][2]string{{"en", "US"}, {"de", "DE"}, {"fr", "FR"}, {"pt", "BR"}}

func validLocale(lang, country string) bool {
	for _, l := range locales {
		if l[0] == lang && l[1] == country {
			return true
		}
	}
	return false
}

// geckoApp is the browser's UI state, touched by the UI thread and read
// by the compositor.
type geckoApp struct {
	shuffle.Object
	locale     *locale
	compositor *shuffle.Looper
	renderer   *layerRenderer

	zoom    shuffle.Float
	scrollY shuffle.Int
	choice  shuffle.Int
}

type layerRenderer struct {
	shuffle.Object
	app    *geckoApp
	frames shuffle.Int
	label  shuffle.String // the locale's display name, as last drawn
}

func runFirefox(rt *shuffle.Runtime) {
	g := shuffle.New(rt, &geckoApp{})
	g.locale = shuffle.Static(rt, "Locale", &locale{})
	g.locale.language.Set("en")
	g.locale.country.Set("US")
	g.zoom.Set(1)
	g.compositor = rt.StartLooper("Compositor")
	g.renderer = shuffle.New(rt, &layerRenderer{app: g})
	g.compositor.Post(g.renderer.onDrawFrame)
	rt.AddActions(
		shuffle.Action{Name: "change locale", Weight: 1, Do: func(w *shuffle.World) { w.Post(rt.Main(), g.onLocaleChanged) }},
		shuffle.Action{Name: "zoom", Weight: 3, Do: func(w *shuffle.World) { w.Post(rt.Main(), g.onZoom) }},
		shuffle.Action{Name: "scroll", Weight: 6, Do: func(w *shuffle.World) { w.Post(rt.Main(), g.onScroll) }},
	)
}

// onLocaleChanged applies the locale the user picked in the settings.
func (g *geckoApp) onLocaleChanged() {
	rt := g.Runtime()
	l := locales[g.choice.Add(1)%int64(len(locales))]
	g.locale.language.Set(l[0])
	rt.Sleep(40 * time.Microsecond) // persist the preference
	g.locale.country.Set(l[1])
}

func (g *geckoApp) onZoom() {
	g.zoom.Set(g.zoom.Get() * 1.25)
	if g.zoom.Get() > 4 {
		g.zoom.Set(1)
	}
	g.compositor.Post(g.renderer.onViewportChanged)
}

func (g *geckoApp) onScroll() {
	g.scrollY.Add(g.Runtime().Rand().Int64N(400) - 200)
	g.compositor.Post(g.renderer.onViewportChanged)
}

// onViewportChanged moves the layers to the new viewport before the next
// frame draws them.
func (r *layerRenderer) onViewportChanged() {
	r.app.zoom.Get()
	r.app.scrollY.Get()
}

// frameInterval is the compositor's: every other vsync, 30 frames a
// second.
const frameInterval = 32 * time.Millisecond

// onDrawFrame composites a frame on the compositor thread.
func (r *layerRenderer) onDrawFrame() {
	rt := r.Runtime()
	lang := r.app.locale.language.Get()
	country := r.app.locale.country.Get()
	rt.Assert(validLocale(lang, country), "rendered with locale %s_%s, which nobody chose", lang, country)
	// The locale's display name leaves out a region that only repeats the
	// language: the two codes meet in one comparison (in Java, Locale's
	// constructor and toString combine them), so they are of one abstract
	// type, and the renderer's precondition can relate them.
	label := lang + "_" + country
	if r.app.locale.language.Equal(&r.app.locale.country) {
		label = lang
	}
	r.label.Set(label)
	r.app.zoom.Get()
	r.app.scrollY.Get()
	r.frames.Add(1)
	rt.Sleep(2 * time.Millisecond)
	// The next frame is due at the next vsync boundary (Choreographer's
	// frame time), an absolute time.
	next := (rt.Now()/frameInterval + 1) * frameInterval
	r.app.compositor.PostAtTime(r.onDrawFrame, next)
}
