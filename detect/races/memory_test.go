package races

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// TestShadowBounded: with a time window, the race detector's shadow (its
// accesses and locations) holds what the window keeps alive, not what the
// trace has had: four times the events, at the same rate, leave it about
// as large. Without the sweeps it would grow fourfold.
func TestShadowBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads traces of 5k and 20k events")
	}
	dir := t.TempDir()
	peak := func(events int) (ents, locs int) {
		r := openApp(t, dir, events)
		d := NewDetector(r.Symbols(), Config{Window: 5 * time.Second})
		d.SetFile(r.Name())
		var op traces.Op
		for {
			if err := r.Next(&op); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if err := d.Step(&op, r.Line()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := d.Finish(); err != nil {
			t.Fatal(err)
		}
		// The tables only grow when their free lists are empty: their
		// sizes are the most entries and locations ever live at once.
		return int(d.nEnts), len(d.locs)
	}
	e1, l1 := peak(5000)
	e4, l4 := peak(20000)
	t.Logf("peak shadow: %d entries, %d locations at 5k events; %d, %d at 20k", e1, l1, e4, l4)
	if float64(e4) > 1.5*float64(e1) || float64(l4) > 1.5*float64(l1) {
		t.Errorf("the shadow grows with the trace: %d entries and %d locations at 5k events, %d and %d at 20k", e1, l1, e4, l4)
	}
}

// TestExplainBounded: explaining an ordered pair whose chain may cross
// the whole trace (from the first event to one near the end) holds the
// nodes the search can still use, not one per operation it reached: four
// times the events leave the most nodes held at once about the same.
func TestExplainBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads traces of 20k and 80k events")
	}
	dir := t.TempDir()
	peak := func(events int) int32 {
		r := openApp(t, dir, events)
		ex, peak, err := explain(context.Background(), r, "e10", fmt.Sprintf("e%d", events-10), 5*time.Second, limits{compactAt: 1 << 12, scan: 64})
		if err != nil {
			t.Fatal(err)
		}
		if ex.Order == asyncclock.Concurrent {
			t.Fatalf("e10 and e%d are concurrent: the test wants an ordered pair", events-10)
		}
		return peak
	}
	p1, p4 := peak(20000), peak(80000)
	t.Logf("most nodes held: %d at 20k events, %d at 80k", p1, p4)
	if float64(p4) > 1.5*float64(p1) {
		t.Errorf("the search grows with the trace: %d nodes at 20k events, %d at 80k", p1, p4)
	}
}

// openApp opens the App trace of the given events, made in dir.
func openApp(t *testing.T, dir string, events int) *traces.Reader {
	t.Helper()
	path, err := tracetest.File(context.Background(), dir, tracetest.App(events, 1))
	if err != nil {
		t.Fatal(err)
	}
	r, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
