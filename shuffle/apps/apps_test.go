package apps

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/traces"
)

// run records one run of app and checks every op with traces.Validator
// and with the exact AsyncClock engine, which rejects a trace that breaks
// the causality model (an op ordered before one executed earlier). It
// returns the result and the names the trace uses: handlers called,
// fields, object ids and types.
func run(t *testing.T, app *App, opts shuffle.Options) (shuffle.Result, map[string]bool) {
	t.Helper()
	syms := traces.NewSymbols()
	val := traces.NewValidator(syms)
	hb := asyncclock.New(syms, asyncclock.Config{})
	seen := map[traces.Sym]bool{}
	line := 1
	res, err := shuffle.Run(context.Background(), app.Main, opts, syms, func(op *traces.Op) error {
		line++
		if err := val.Check(op, line); err != nil {
			return fmt.Errorf("invalid trace: %w", err)
		}
		if err := hb.Step(op, line); err != nil {
			return fmt.Errorf("trace inconsistent with the causality model: %w", err)
		}
		switch op.Kind {
		case traces.Call:
			seen[op.Name] = true
		case traces.Read, traces.Write:
			seen[op.Loc.Field] = true
			seen[op.Loc.Obj] = true
		case traces.Alloc:
			seen[op.Type] = true
		}
		return nil
	})
	if err == nil {
		err = hb.Finish()
	}
	if err != nil {
		t.Fatalf("%s seed %d: %v", app.Name, opts.Seed, err)
	}
	names := map[string]bool{}
	for y := range seen {
		names[syms.String(y)] = true
	}
	return res, names
}

func TestLookup(t *testing.T) {
	if len(All()) < 8 {
		t.Errorf("%d apps, want at least 8", len(All()))
	}
	for i, a := range All() {
		if i > 0 && All()[i-1].Name >= a.Name {
			t.Errorf("apps not sorted by name: %s before %s", All()[i-1].Name, a.Name)
		}
		if got, ok := Lookup(a.Name); !ok || got != a {
			t.Errorf("Lookup(%q) = %v, %v", a.Name, got, ok)
		}
		if a.Title == "" || a.Description == "" || a.Main == nil {
			t.Errorf("%s: title, description or main missing", a.Name)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error(`Lookup("nope") found an app`)
	}
}

// TestGroundTruthNames checks that the handlers and data named by every
// app's ground truth appear in its traces under those names.
func TestGroundTruthNames(t *testing.T) {
	for _, app := range All() {
		t.Run(app.Name, func(t *testing.T) {
			names := map[string]bool{}
			for seed := range int64(4) {
				_, n := run(t, app, shuffle.Options{Seed: seed, Actions: 300, Shuffle: seed%2 == 1})
				for k := range n {
					names[k] = true
				}
			}
			for _, r := range append(app.Harmful, app.Harmless...) {
				for _, h := range []string{r.A, r.B} {
					if !names[h] {
						t.Errorf("handler %s never called", h)
					}
				}
				if !names[r.Data] {
					t.Errorf("data %s never accessed", r.Data)
				}
			}
		})
	}
}

// TestBugs checks, for every app, that most unshuffled runs are correct,
// that apps without a harmful pair never crash, and that every harmful
// race is reachable: some seed hits it (its symptom), shuffling harder if
// needed. (Shuffled runs postpone events far, to reach such orders, and
// the apps' bugs are easy to hit: most of those crash.)
func TestBugs(t *testing.T) {
	runs, actions := 20, 400
	if testing.Short() {
		runs, actions = 8, 200
	}
	for _, app := range All() {
		t.Run(app.Name, func(t *testing.T) {
			crashed := 0
			hit := map[string]bool{}
			for seed := range int64(runs) {
				shuffled := seed%2 == 1
				res, _ := run(t, app, shuffle.Options{Seed: seed, Actions: actions, Shuffle: shuffled})
				if res.Crash != "" {
					if !shuffled {
						crashed++
					}
					hit[symptom(t, app, res.Crash)] = true
				}
				if res.Crash != "" && len(app.Harmful) == 0 {
					t.Errorf("seed %d: an app without a harmful pair crashed: %s", seed, res.Crash)
				}
			}
			if crashed*3 > runs/2 {
				t.Errorf("%d of %d unshuffled runs crashed; most should be correct", crashed, runs/2)
			}
			if testing.Short() {
				return
			}
			for seed := int64(1000); seed < 1400 && len(hit) < len(app.Harmful); seed++ {
				res, _ := run(t, app, shuffle.Options{Seed: seed, Actions: 1000, Shuffle: true, DelayMean: 30 * time.Millisecond})
				if res.Crash != "" {
					hit[symptom(t, app, res.Crash)] = true
				}
			}
			for _, r := range app.Harmful {
				if !hit[r.Symptom] {
					t.Errorf("no seed reaches %s / %s (%q)", r.A, r.B, r.Symptom)
				}
			}
		})
	}
}

// symptom returns the symptom of the harmful race a crash shows; a crash
// that shows none is an error.
func symptom(t *testing.T, app *App, crash string) string {
	t.Helper()
	for _, r := range app.Harmful {
		if strings.Contains(crash, r.Symptom) {
			return r.Symptom
		}
	}
	t.Errorf("crash %q is none of the app's harmful races", crash)
	return ""
}

// TestDeterministic checks that every app replays exactly from its seed.
func TestDeterministic(t *testing.T) {
	for _, app := range All() {
		t.Run(app.Name, func(t *testing.T) {
			opts := shuffle.Options{Seed: 5, Actions: 100, Shuffle: true}
			a, _ := run(t, app, opts)
			b, _ := run(t, app, opts)
			if a != b {
				t.Fatalf("two runs of seed 5 differ: %+v and %+v", a, b)
			}
		})
	}
}
