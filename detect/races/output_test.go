package races

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/licorice-dev/licorice/internal/golden"

	"github.com/licorice-dev/licorice/traces"
)

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got)
}

func detectFiles(t *testing.T, cfg Config, paths ...string) []*Report {
	t.Helper()
	var reps []*Report
	for _, p := range paths {
		r, err := traces.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Detect(context.Background(), r, cfg)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// TestGolden checks the text and JSON reports of the MyTracks traces: the
// use-free race of the thesis' Fig. 3.6 (onServiceConnected uses
// providerUtils, onDestroy frees it), a guarded use the if-guard drops, a
// flag race that covers the races after it, a race a common lock
// suppresses, and races the harmless filter drops.
func TestGolden(t *testing.T) {
	filter, err := LoadFilter("testdata/harmless.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cfg   Config
		paths []string
	}{
		{"mytracks", Config{Window: 0}, []string{"testdata/mytracks.jsonl"}},
		{"mytracks-all", Config{All: true, Unfiltered: true}, []string{"testdata/mytracks.jsonl"}},
		{"mytracks-filtered", Config{Harmless: filter}, []string{"testdata/mytracks.jsonl", "testdata/mytracks-2.jsonl"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reps := detectFiles(t, c.cfg, c.paths...)
			var text, js bytes.Buffer
			if err := WriteText(&text, reps); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, reps); err != nil {
				t.Fatal(err)
			}
			if !json.Valid(js.Bytes()) {
				t.Errorf("invalid JSON:\n%s", js.Bytes())
			}
			checkGolden(t, c.name+".txt", text.Bytes())
			checkGolden(t, c.name+".json", js.Bytes())
			// Same input, same bytes.
			var again bytes.Buffer
			WriteJSON(&again, detectFiles(t, c.cfg, c.paths...))
			if !bytes.Equal(again.Bytes(), js.Bytes()) {
				t.Errorf("a second run gives other bytes")
			}
		})
	}
}
