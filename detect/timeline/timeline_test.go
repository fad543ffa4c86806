package timeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestExtract(t *testing.T) {
	// pair.jsonl: main forks the loader W1; E1 (from outside) posts E2;
	// W1 signals h1, posts E3; E2 waits on h1 and writes o1.f, E3 reads
	// it; W1 writes o1.f outside any event, at line 25. The fork (line 4)
	// comes before what is drawn.
	ws, err := Extract(context.Background(), "testdata/pair.jsonl", "pair.jsonl", []Request{
		{Tasks: [2]string{"E2", "W1"}, Lines: [2]int{17, 25}},
		{Tasks: [2]string{"E1", "E3"}, Lines: [2]int{7, 22}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Window{
		Lanes: []Lane{{Thread: "main", Name: "main", Looper: true}, {Thread: "W1", Name: "loader"}},
		Boxes: []Box{
			{Task: "E1", Lane: 0, Handler: "A.onCreate", Begin: 7, End: 11},
			{Task: "E2", Lane: 0, Handler: "A.onResume", Begin: 14, End: 19},
			{Task: "E3", Lane: 0, Handler: "A.onLoaded", Begin: 20, End: 24},
			{Task: "W1", Lane: 1, Begin: 25, End: 25, Op: true},
		},
		Arrows: []Arrow{
			// Sent at line 6, before what is drawn: drawn from its left edge.
			{Kind: "send", FromLane: -1, FromLine: 7, ToBox: 0, ToLane: 0, ToLine: 7},
			{Kind: "send", FromLane: 0, FromLine: 9, ToBox: 1, ToLane: 0, ToLine: 14},
			{Kind: "send", FromLane: 1, FromLine: 13, ToBox: 2, ToLane: 0, ToLine: 20},
			{Kind: "signal", FromLane: 1, FromLine: 12, ToBox: -1, ToLane: 0, ToLine: 16},
		},
		Pair: [2]int{1, 3},
	}
	if !reflect.DeepEqual(ws[0], want) {
		t.Errorf("E2 and W1's write:\n got %+v\nwant %+v", ws[0], want)
	}
	if got := ws[1].Pair; got != [2]int{0, 2} {
		t.Errorf("E1 and E3: pair at boxes %v, want [0 2]", got)
	}
	if len(ws[1].Lanes) != 1 || len(ws[1].Boxes) != 3 {
		t.Errorf("E1 and E3: %d lanes and %d boxes, want 1 and 3 (W1's write is not theirs)", len(ws[1].Lanes), len(ws[1].Boxes))
	}
}

// TestExtractFar: two events far apart are drawn with Around events on
// each side, and the ones between counted in a gap.
func TestExtractFar(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"licorice_trace":1}` + "\n" + `{"op":"thread_begin","t":"main","kind":"looper"}` + "\n" + `{"op":"attach","t":"main","q":"q"}` + "\n")
	line := 3
	begins := map[int]int{}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, `{"op":"send","q":"q","e":"E%d","external":true}`+"\n", i)
		fmt.Fprintf(&b, `{"op":"begin","t":"E%d","thread":"main"}`+"\n", i)
		fmt.Fprintf(&b, `{"op":"end","t":"E%d"}`+"\n", i)
		begins[i] = line + 2
		line += 3
	}
	path := filepath.Join(t.TempDir(), "far.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Extract(context.Background(), path, "far.jsonl", []Request{{Tasks: [2]string{"E10", "E30"}, Lines: [2]int{begins[10], begins[30]}}})
	if err != nil {
		t.Fatal(err)
	}
	w := ws[0]
	var tasks []string
	for _, bx := range w.Boxes {
		tasks = append(tasks, bx.Task)
	}
	want := []string{"E6", "E7", "E8", "E9", "E10", "E11", "E12", "E13", "E14", "E26", "E27", "E28", "E29", "E30", "E31", "E32", "E33", "E34"}
	if !reflect.DeepEqual(tasks, want) {
		t.Errorf("boxes %v, want %v", tasks, want)
	}
	if w.Boxes[w.Pair[0]].Task != "E10" || w.Boxes[w.Pair[1]].Task != "E30" {
		t.Errorf("pair %v: boxes %s and %s, want E10 and E30", w.Pair, w.Boxes[w.Pair[0]].Task, w.Boxes[w.Pair[1]].Task)
	}
	if want := []Gap{{Line: begins[26] - 1, Events: 11}}; !reflect.DeepEqual(w.Gaps, want) {
		t.Errorf("gaps %+v, want %+v", w.Gaps, want)
	}
	for _, a := range w.Arrows {
		if a.FromLane != -1 || a.Kind != "send" {
			t.Errorf("arrow %+v: want only sends from outside", a)
		}
	}
	if len(w.Arrows) != len(w.Boxes) {
		t.Errorf("%d arrows for %d events sent from outside", len(w.Arrows), len(w.Boxes))
	}
}

func TestExtractErrors(t *testing.T) {
	if _, err := Extract(context.Background(), "testdata/missing.jsonl", "missing.jsonl", nil); err == nil {
		t.Error("a missing trace: no error")
	}
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(`{"licorice_trace":1}`+"\n"+`{"op":"end","t":"E1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Extract(context.Background(), path, "bad.jsonl", nil)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl") {
		t.Errorf("an invalid trace: error %v, want one naming bad.jsonl", err)
	}
}
