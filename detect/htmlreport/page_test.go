package htmlreport

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/detect"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/internal/golden"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// The page the browser test (browser/, `npm test`) opens is this golden
// file: `go test ./detect/htmlreport -update` rewrites it.
const (
	detectPage = "testdata/mytracks-detect.html"
	detectJSON = "testdata/mytracks-detect.json" // what the page must list
)

// maxPage is the most a page of the evaluation's size may weigh.
const maxPage = 1 << 20

// TestDetectPage writes the page of `licorice demo`'s MyTracks run: the
// training and test runs are recorded as the demo records them, learned
// from and detected on. The same inputs give the same bytes.
func TestDetectPage(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	app, _ := apps.Lookup("mytracks")
	ctx := context.Background()
	rec := func(dir string, runs, actions int, shuffled float64, seed int64) []string {
		b := shuffle.Batch{App: app.Name, Main: app.Main, Dir: dir, Runs: runs, Actions: actions, Shuffled: shuffled, Seed: seed, Format: traces.LCT}
		sums, err := b.Record(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, s := range sums {
			files = append(files, s.File)
		}
		return files
	}
	train := rec("train", 50, 500, 0.5, 1)
	test := rec("test", 1, 2000, 0, 7001)
	lr, err := learn.Learn(ctx, train, learn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := detect.Detect(ctx, lr.Spec, test, detect.Options{Explain: detect.DefaultExplain})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Reports) == 0 {
		t.Fatal("no report: the page shows nothing")
	}
	var page []byte
	for range 2 {
		p, err := Detect(ctx, res, test)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, p); err != nil {
			t.Fatal(err)
		}
		if page != nil && !bytes.Equal(page, b.Bytes()) {
			t.Fatal("the same result gave two different pages")
		}
		page = b.Bytes()
	}
	checkPage(t, page, len(res.Reports))
	var js bytes.Buffer
	if err := detect.WriteJSON(&js, res, "mytracks.spec.json"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, filepath.Base(detectPage)), page)
	golden.Check(t, filepath.Join(dir, filepath.Base(detectJSON)), js.Bytes())
}

// TestRacesPage builds the page of the race report of a small generated
// trace with over a hundred race groups (the browser test times the same
// page, made by the command).
func TestRacesPage(t *testing.T) {
	t.Chdir(t.TempDir())
	cfg := tracetest.Small(1)
	cfg.Events = 180
	f, err := os.Create("small.lct")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tracetest.Write(context.Background(), f, traces.LCT, cfg); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := traces.Open("small.lct")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := races.Detect(context.Background(), r, races.Config{Window: 0})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) < 100 {
		t.Fatalf("%d race groups; the page must show at least 100", len(rep.Groups))
	}
	var pages [2]bytes.Buffer
	for i := range pages {
		p, err := Races(context.Background(), []*races.Report{rep}, []string{"small.lct"})
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(&pages[i], p); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(pages[0].Bytes(), pages[1].Bytes()) {
		t.Fatal("the same report gave two different pages")
	}
	checkPage(t, pages[0].Bytes(), len(rep.Groups))
}

// checkPage checks what a page must be whatever its report: small, self-
// contained, an item and a timeline per group.
func checkPage(t *testing.T, page []byte, groups int) {
	t.Helper()
	s := string(page)
	if len(page) > maxPage {
		t.Errorf("the page weighs %d bytes, more than %d", len(page), maxPage)
	}
	for _, bad := range []string{"http://", "https://", "<link", "src="} {
		if strings.Contains(strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the page has %q: it must need no network", bad)
		}
	}
	if n := strings.Count(s, `<tr class="item"`); n != groups {
		t.Errorf("%d items listed, want %d", n, groups)
	}
	if n := strings.Count(s, `<article class="detail"`); n != groups {
		t.Errorf("%d details, want %d", n, groups)
	}
	if n := strings.Count(s, `<figure class="timeline">`); n != min(groups, MaxTimelines) {
		t.Errorf("%d timelines, want %d", n, min(groups, MaxTimelines))
	}
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"E12", 5, "E12"},
		{"E12 onPause", 5, "E12 …"},
		{"Ünïcödé", 4, "Ünï…"},
		{"abc", 1, "a"},
	} {
		if got := clip(tt.s, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
