package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
)

// TestReachCoversOrders: shuffled runs that postpone some events far
// (shuffle.Options.Reach) run more pairs of handlers' first events in both
// orders than shuffled runs without, and MyTracks' refresh of the
// statistics, 500 ms after a resume, runs before the data hub's first load
// (which comes within 20 ms) and reads its points at 0: the order whose
// absence made training learn refreshStats: points >= 1.
func TestReachCoversOrders(t *testing.T) {
	app, ok := apps.Lookup("mytracks")
	if !ok {
		t.Fatal("no app mytracks")
	}
	const refresh, load = "TrackDetailActivity.refreshStats", "TrackDataHub.loadTrack"
	count := func(reach float64) (*Orders, int) {
		dir := t.TempDir()
		b := shuffle.Batch{App: app.Name, Main: app.Main, Dir: dir, Runs: 30, Actions: 300, Shuffled: 1,
			Reach: reach, Seed: 1, Format: traces.LCT, NoSource: true}
		sums, err := b.Record(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		paths := make([]string, len(sums))
		for i, s := range sums {
			paths[i] = s.File
		}
		o, err := CountOrders(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		return o, zeroReads(t, paths, refresh, "points")
	}
	without, zeroWithout := count(-1)
	with, zeroWith := count(0)
	t.Logf("pairs of handlers whose first events ran both ways: %d of %d without reach, %d of %d with",
		without.BothWays, without.Pairs, with.BothWays, with.Pairs)
	if with.BothWays <= without.BothWays {
		t.Errorf("reach covers %d pairs both ways, no more than the %d without", with.BothWays, without.BothWays)
	}
	t.Logf("%s read points 0 (before the hub's first %s) %d times without reach, %d with", refresh, load, zeroWithout, zeroWith)
	if zeroWithout > 0 {
		t.Errorf("without reach, %s read points 0: the test shows nothing", refresh)
	}
	if zeroWith == 0 {
		t.Errorf("with reach, %s never read points 0", refresh)
	}
}

// zeroReads counts the reads of field with value 0 by events whose first
// handler is h.
func zeroReads(t *testing.T, paths []string, h, field string) int {
	n := 0
	for _, path := range paths {
		r, err := traces.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		syms := r.Symbols()
		first := map[traces.Sym]traces.Sym{}
		err = traces.Each(context.Background(), r, func(op *traces.Op) error {
			switch op.Kind {
			case traces.Call:
				if _, ok := first[op.Task]; !ok {
					first[op.Task] = op.Name
				}
			case traces.End:
				delete(first, op.Task)
			case traces.Read:
				if syms.String(first[op.Task]) == h && syms.String(op.Loc.Field) == field && op.Val == traces.Int(0) {
					n++
				}
			}
			return nil
		})
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestCountOrders counts the orders of hand-written traces: A, B, C in
// one, C, B in the other (D, called inside each event, is no event's
// first handler).
func TestCountOrders(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, handlers ...string) string {
		s := `{"licorice_trace":2}` + "\n" + `{"op":"thread_begin","t":"main","kind":"looper"}` + "\n" + `{"op":"attach","t":"main","q":"main"}` + "\n"
		for i, h := range handlers {
			e := "E" + string(rune('1'+i))
			s += `{"op":"send","t":"main","q":"main","e":"` + e + `"}` + "\n" +
				`{"op":"begin","t":"` + e + `","thread":"main"}` + "\n" +
				`{"op":"call","t":"` + e + `","h":"` + h + `"}` + "\n" +
				`{"op":"call","t":"` + e + `","h":"D"}` + "\n" + `{"op":"ret","t":"` + e + `","h":"D"}` + "\n" +
				`{"op":"ret","t":"` + e + `","h":"` + h + `"}` + "\n" +
				`{"op":"end","t":"` + e + `"}` + "\n"
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	o, err := CountOrders(context.Background(), []string{write("a.jsonl", "A", "B", "C", "A"), write("b.jsonl", "C", "B")})
	if err != nil {
		t.Fatal(err)
	}
	if o.Pairs != 3 || o.BothWays != 1 || !o.BothWaysSeen("B", "C") || !o.BothWaysSeen("C", "B") || o.BothWaysSeen("A", "C") {
		t.Errorf("pairs %d, both ways %d (B/C %v, A/C %v); want 3 pairs, 1 both ways: B/C", o.Pairs, o.BothWays,
			o.BothWaysSeen("B", "C"), o.BothWaysSeen("A", "C"))
	}
}
