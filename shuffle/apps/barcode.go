package apps

import (
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var barcodeScanner = &App{
	Name:  "barcodescanner",
	Title: "BarcodeScanner (ZXing): the camera manager and the preview surface",
	Description: `A harmful race AsyncClock found in BarcodeScanner (thesis §4.5.5): ` +
		`CaptureActivity creates its CameraManager in onResume and opens the camera driver in ` +
		`surfaceCreated, which usually comes after onResume but is not ordered with the ` +
		`life cycle: the preview surface is created by the window system, which answers on a ` +
		`binder thread. onPause closes the driver. If surfaceCreated is processed after ` +
		`onPause, it opens the camera through a CameraManager that onPause already closed: the ` +
		`camera stays open behind a paused activity (the port asserts that the manager is not ` +
		`closed). Harmless races by construction: decode results and the periodic autofocus ` +
		`(delayed UI updates), the torch flag the autofocus checks (flag-controlled), the ` +
		`decoded-frames counter.`,
	Harmful: []Race{
		{A: "CaptureActivity.surfaceCreated", B: "CaptureActivity.onPause", Data: "cameraManager",
			Why:     "surfaceCreated opens the driver of the CameraManager that onPause closed: the camera leaks",
			Symptom: "CameraManager closed by onPause"},
	},
	Harmless: []Race{
		{A: "CaptureActivity.handleDecode", B: "CaptureActivity.onPause", Data: "lastResult",
			Why: "a result decoded just before the pause is shown or dropped; both are fine"},
		{A: "CaptureActivity.onTorchClicked", B: "CaptureActivity.autoFocus", Data: "torch",
			Why: "autofocus uses whichever torch setting is on"},
		{A: "CaptureActivity.handleDecode", B: "CaptureActivity.autoFocus", Data: "framesDecoded",
			Why: "a statistics counter"},
	},
	Main: runBarcodeScanner,
}

type barcodeApp struct {
	rt      *shuffle.Runtime
	current *captureActivity
}

func runBarcodeScanner(rt *shuffle.Runtime) {
	app := &barcodeApp{rt: rt}
	act := rt.StartActivity(app.newCaptureActivity)
	rt.AddActions(
		shuffle.Action{Name: "toggle torch", Weight: 2, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Post(rt.Main(), app.current.onTorchClicked)
		}},
		shuffle.Action{Name: "show a barcode", Weight: 4, Enabled: act.Resumed, Do: func(w *shuffle.World) {
			w.Transact(app.current.onPreviewFrame)
		}},
	)
}

// captureActivity scans barcodes from the camera preview.
type captureActivity struct {
	shuffle.Object
	app       *barcodeApp
	decoder   *shuffle.Looper
	autofocus *shuffle.Message

	cameraManager shuffle.Ptr[cameraManager]
	hasSurface    shuffle.Bool
	torch         shuffle.Bool
	lastResult    shuffle.String
	framesDecoded shuffle.Int
}

func (app *barcodeApp) newCaptureActivity() any {
	a := shuffle.New(app.rt, &captureActivity{app: app})
	app.current = a
	return a
}

func (a *captureActivity) OnCreate() {
	a.decoder = a.Runtime().StartLooper("DecodeThread")
	a.hasSurface.Set(false)
}

func (a *captureActivity) OnResume() {
	a.cameraManager.Set(shuffle.New(a, &cameraManager{}))
	if a.hasSurface.Test() {
		a.initCamera()
	} else {
		// surfaceHolder.addCallback(this): the window system answers
		// on a binder thread when the surface exists.
		a.Runtime().CallSystem(surfaceLatency(a.Runtime()), surfaceCallback{a}.surfaceCreated)
	}
	a.autofocus = a.Runtime().Main().PostDelayed(a.autoFocus, 1500*time.Millisecond)
}

func (a *captureActivity) OnPause() {
	a.autofocus.Remove()
	a.cameraManager.Use().closeDriver()
	a.lastResult.Set("")
}

// OnStop: the window is hidden and its surface destroyed
// (surfaceDestroyed).
func (a *captureActivity) OnStop() {
	a.hasSurface.Set(false)
}

func (a *captureActivity) OnDestroy() {
	a.decoder.Quit()
}

// surfaceCreated opens the camera on the new preview surface.
func (a *captureActivity) surfaceCreated() {
	if !a.hasSurface.Test() {
		a.hasSurface.Set(true)
		a.initCamera()
	}
}

func (a *captureActivity) initCamera() {
	cm := a.cameraManager.Use()
	a.Runtime().Assert(!cm.closed.Get(), "camera driver opened through a CameraManager closed by onPause: the camera leaks")
	cm.open.Set(true)
}

func (a *captureActivity) onTorchClicked() {
	a.torch.Set(!a.torch.Get())
}

func (a *captureActivity) autoFocus() {
	if a.torch.Test() {
		a.framesDecoded.Get()
	}
	a.autofocus = a.Runtime().Main().PostDelayed(a.autoFocus, 1500*time.Millisecond)
}

// onPreviewFrame is the camera's preview callback on a binder thread: it
// hands the frame to the decode thread.
func (a *captureActivity) onPreviewFrame() {
	a.decoder.Post(a.decode)
}

func (a *captureActivity) decode() {
	rt := a.Runtime()
	rt.Sleep(3*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(10*time.Millisecond)))
	rt.Main().Post(a.handleDecode)
}

func (a *captureActivity) handleDecode() {
	a.framesDecoded.Add(1)
	a.lastResult.Set("978-0-13-468599-1")
}

// surfaceCallback is the SurfaceHolder.Callback dispatch on a binder
// thread.
type surfaceCallback struct{ a *captureActivity }

func (c surfaceCallback) surfaceCreated() {
	c.a.Runtime().Main().Post(c.a.surfaceCreated)
}

// surfaceLatency is how long the window system takes to create the
// preview surface.
func surfaceLatency(rt *shuffle.Runtime) time.Duration {
	return 3*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(5*time.Millisecond))
}

// cameraManager owns the camera driver.
type cameraManager struct {
	shuffle.Object
	open   shuffle.Bool
	closed shuffle.Bool
}

func (m *cameraManager) closeDriver() {
	m.open.Set(false)
	m.closed.Set(true)
}
