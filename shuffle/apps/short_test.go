package apps

import (
	"context"
	"fmt"
	"testing"

	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/traces"
)

// TestNoSilentShortRun checks, for every app over many seeds, that a run
// of K monkey actions either performs them all and runs at least K
// events, or says why not (an error op: not a correct execution). A run
// that stops early and calls itself correct teaches licorice nothing and
// hides a bug of the runtime or the app.
func TestNoSilentShortRun(t *testing.T) {
	seeds, actions := 50, 30
	if testing.Short() {
		seeds = 6
	}
	for _, app := range All() {
		t.Run(app.Name, func(t *testing.T) {
			for seed := range int64(seeds) {
				for _, shuffled := range []bool{false, true} {
					// Preempting more often than the default shakes the
					// scheduler harder: the binder bug needed a preemption
					// at one particular op.
					preempt := []float64{0, 0.5, 1}[seed%3]
					opts := shuffle.Options{Seed: seed, Actions: actions, Shuffle: shuffled, Preempt: preempt}
					crash, err := checkFullRun(app, opts)
					if err != nil {
						t.Errorf("seed %d, shuffled %v, preempt %v: %v", seed, shuffled, preempt, err)
					}
					if crash != "" {
						symptom(t, app, crash) // a known bug, not a hang
					}
				}
			}
		})
	}
}

// TestNoSilentShortRunRegression pins the seeds that once recorded a
// correct trace of 11 operations for 2000 actions: a binder thread
// preempted during its first event was never scheduled again.
func TestNoSilentShortRunRegression(t *testing.T) {
	app, _ := Lookup("connectbot")
	for _, seed := range []int64{1002, 7001} {
		if _, err := checkFullRun(app, shuffle.Options{Seed: seed, Actions: 2000}); err != nil {
			t.Errorf("connectbot seed %d: %v", seed, err)
		}
	}
}

// checkFullRun runs app and returns the run's crash, if any, and an
// error if the run is called correct but performed fewer actions than
// asked or ran fewer events.
func checkFullRun(app *App, opts shuffle.Options) (crash string, err error) {
	syms := traces.NewSymbols()
	begins := 0
	res, err := shuffle.Run(context.Background(), app.Main, opts, syms, func(op *traces.Op) error {
		if op.Kind == traces.Begin {
			begins++
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if res.Crash != "" {
		return res.Crash, nil // not called correct: the run says why it stopped
	}
	if res.Actions < opts.Actions || begins < opts.Actions {
		return "", fmt.Errorf("a correct run of %d actions performed %d and ran %d events (%d ops, ended at %v)",
			opts.Actions, res.Actions, begins, res.Ops, res.End)
	}
	return "", nil
}
