package eval

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/shuffle/apps"
)

// TestEval runs the evaluation on every app at a reduced size (the full
// one is `licorice eval`, docs/evaluation.md): licorice must find every
// harmful pair, and report at least 70% fewer groups than the race
// detector.
func TestEval(t *testing.T) {
	cfg := Config{TrainRuns: 20, TrainActions: 400, TestRuns: 3, TestActions: 250}
	if testing.Short() {
		list, err := Lookup([]string{"mytracks", "connectbot", "firefox"})
		if err != nil {
			t.Fatal(err)
		}
		cfg = Config{Apps: list, TrainRuns: 16, TrainActions: 300, TestRuns: 1, TestActions: 250}
	}
	tab, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b.String())
	if len(tab.Total.Licorice.Missed) > 0 {
		t.Errorf("licorice missed %s", strings.Join(tab.Total.Licorice.Missed, "; "))
	}
	if len(tab.Total.Races.Missed) > 0 {
		t.Errorf("the race detector missed %s", strings.Join(tab.Total.Races.Missed, "; "))
	}
	if !testing.Short() && tab.Total.Reduction < 0.70 {
		t.Errorf("licorice reports %d groups, races %d: a reduction of %.0f%%, want at least 70%%",
			tab.Total.Licorice.Reported, tab.Total.Races.Reported, 100*tab.Total.Reduction)
	}
	for _, r := range tab.Rows {
		if r.TrainCorrect == 0 || r.Conditions == 0 {
			t.Errorf("%s: learned %d conditions from %d correct runs", r.App, r.Conditions, r.TrainCorrect)
		}
	}
}

// TestReproducible: the same config gives the same table.
func TestReproducible(t *testing.T) {
	app, _ := apps.Lookup("eventracer")
	cfg := Config{Apps: []*apps.App{app}, TrainRuns: 8, TrainActions: 200, TestRuns: 1, TestActions: 200}
	var outs []string
	for range 2 {
		tab, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := tab.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
}

func TestScore(t *testing.T) {
	app := &apps.App{Harmful: []apps.Race{{A: "A.a", B: "B.b"}, {A: "C.c", B: "C.c"}, {A: "D.d", B: "E.e"}}}
	found, missed := score(app, [][]string{{"B.b", "A.a"}, {"C.c"}, {"D.d", "X.x"}})
	if want := []string{"A.a / B.b", "C.c / C.c"}; !slices.Equal(found, want) {
		t.Errorf("found %q, want %q", found, want)
	}
	if want := []string{"D.d / E.e"}; !slices.Equal(missed, want) {
		t.Errorf("missed %q, want %q", missed, want)
	}
	if found, missed := score(&apps.App{}, nil); found == nil || missed == nil {
		t.Error("score returns nil slices (null in JSON)")
	}
}

func TestLookup(t *testing.T) {
	if list, err := Lookup(nil); err != nil || len(list) != len(apps.All()) {
		t.Errorf("Lookup(nil): %d apps, %v", len(list), err)
	}
	if list, err := Lookup([]string{"vlc", "mytracks"}); err != nil || len(list) != 2 || list[0].Name != "vlc" {
		t.Errorf("Lookup(vlc, mytracks): %v, %v", list, err)
	}
	if _, err := Lookup([]string{"nosuch"}); err == nil || !strings.Contains(err.Error(), `unknown app nosuch (known: aarddict`) {
		t.Errorf("Lookup(nosuch): %v", err)
	}
}

// TestDemo runs the demo at a small size and checks what it tells.
func TestDemo(t *testing.T) {
	var b bytes.Buffer
	runs, actions := 30, 400
	if testing.Short() {
		runs, actions = 16, 300
	}
	err := Demo(context.Background(), &b, DemoConfig{Dir: t.TempDir(), TrainRuns: runs, TrainActions: actions, TestActions: 1000})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Logf("\n%s", out)
	for _, want := range []string{
		"licorice demo: MyTracks",
		"1. Record 30 runs"[:10],
		"TrackDetailActivity.onUpdateResults: this.dataHub != null",
		"no crash. The test passes.",
		"── the report (licorice detect)",
		"REQ-KILL  TrackDetailActivity.onPause × TrackDetailActivity.onUpdateResults",
		"the app's 2 known bugs",
		"licorice detect --spec mytracks.spec.json test/",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo does not say %q", want)
		}
	}
}
