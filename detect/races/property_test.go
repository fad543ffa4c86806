package races

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// bruteAccess is an access as the brute-force check sees it.
type bruteAccess struct {
	idx   int // the op's index in the trace
	task  traces.Sym
	write bool
	use   bool // a read that dereferences
	free  bool // a write of null
	locks []traces.Sym
	// looper is the looper thread whose event made the access, NoSym if
	// none: a lock does not order two events of one looper thread.
	looper traces.Sym
}

// bruteRaces finds every racing pair of tr the slow, obvious way: every
// pair of accesses to a location, ordered or not by the reference engine.
// It returns the races as "kind first-second" lines.
func bruteRaces(t *testing.T, tr *tracetest.Trace) (map[string]bool, *asyncclock.Graph) {
	t.Helper()
	g, err := asyncclock.NewGraph(context.Background(), tr.Symbols, tr.Ops, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	held := map[traces.Sym][]traces.Sym{}
	loopers := map[traces.Sym]bool{}        // looper threads
	onLooper := map[traces.Sym]traces.Sym{} // event -> its looper thread
	byLoc := map[traces.Location][]bruteAccess{}
	for i := range tr.Ops {
		op := &tr.Ops[i]
		switch op.Kind {
		case traces.ThreadBegin:
			loopers[op.Task] = op.ThreadKind == traces.Looper
		case traces.Begin:
			if loopers[op.Thread] {
				onLooper[op.Task] = op.Thread
			}
		case traces.Lock:
			held[op.Task] = append(held[op.Task], op.Name)
		case traces.Unlock:
			h := held[op.Task]
			j := slices.Index(h, op.Name)
			held[op.Task] = slices.Delete(h, j, j+1)
		case traces.Read, traces.Write:
			locks := slices.Clone(held[op.Task])
			slices.Sort(locks)
			byLoc[op.Loc] = append(byLoc[op.Loc], bruteAccess{
				idx: i, task: op.Task, write: op.Kind == traces.Write, locks: locks,
				use:    op.Kind == traces.Read && op.Deref,
				free:   op.Kind == traces.Write && op.Val.Kind() == traces.NullValue,
				looper: onLooper[op.Task],
			})
		}
	}
	races := map[string]bool{}
	for _, as := range byLoc {
		for j, b := range as {
			for _, a := range as[:j] {
				if a.task == b.task || g.Before(asyncclock.Node(a.idx), asyncclock.Node(b.idx)) {
					continue
				}
				oneLooper := a.looper != traces.NoSym && a.looper == b.looper
				if (a.write || b.write) && (oneLooper || !slices.ContainsFunc(a.locks, func(l traces.Sym) bool { return slices.Contains(b.locks, l) })) {
					races[fmt.Sprintf("data %d-%d", a.idx+2, b.idx+2)] = true
				}
				if a.use && b.free || a.free && b.use {
					races[fmt.Sprintf("use-free %d-%d", a.idx+2, b.idx+2)] = true
				}
			}
		}
	}
	return races, g
}

func detectOps(t *testing.T, tr *tracetest.Trace, cfg Config) *Report {
	t.Helper()
	d := NewDetector(tr.Symbols, cfg)
	for i := range tr.Ops {
		if err := d.Step(&tr.Ops[i], i+2); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func propertySeeds() int64 {
	if testing.Short() {
		return 10
	}
	return 60
}

// TestAllMatchesReference: with All, the detector reports exactly the
// racing pairs a brute-force check against the reference engine finds,
// and marks exactly the races covered by another.
func TestAllMatchesReference(t *testing.T) {
	var total, covered int
	for seed := range propertySeeds() {
		tr := tracetest.Generate(tracetest.Small(seed))
		want, g := bruteRaces(t, tr)
		rep := detectOps(t, tr, Config{All: true, Unfiltered: true})
		var races []*Race
		got := map[string]bool{}
		for _, gr := range rep.Groups {
			for _, r := range gr.Races {
				k := fmt.Sprintf("%s %d-%d", r.Kind, r.First.Line, r.Second.Line)
				if got[k] {
					t.Errorf("seed %d: %s reported twice", seed, k)
				}
				got[k] = true
				races = append(races, r)
			}
		}
		for k := range want {
			if !got[k] {
				t.Errorf("seed %d: missed race %s", seed, k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("seed %d: reported %s, which is no race", seed, k)
			}
		}
		// Coverage, brute force: (a, b) is covered by (c, d) if a ≼ c and d ≼ b.
		leq := func(x, y int) bool { return x == y || g.Before(asyncclock.Node(x-2), asyncclock.Node(y-2)) }
		for _, r := range races {
			cov := slices.ContainsFunc(races, func(c *Race) bool {
				return c != r && c.Kind == r.Kind && leq(r.First.Line, c.First.Line) && leq(c.Second.Line, r.Second.Line)
			})
			if cov != r.Covered {
				t.Errorf("seed %d: race %s %d-%d: covered %v, want %v", seed, r.Kind, r.First.Line, r.Second.Line, r.Covered, cov)
			}
			if cov {
				covered++
			}
		}
		total += len(races)
		if t.Failed() {
			return
		}
	}
	if total == 0 || covered == 0 || covered == total {
		t.Errorf("%d races, %d covered: the traces exercise too little", total, covered)
	}
	t.Logf("%d races, %d covered", total, covered)
}

// TestDefaultReportsEveryRacingAccess: without All, every reported race is
// a race, every access that races with an earlier one is the second
// access of a reported data race, and every use is checked against the
// free before it and the free after it (CAFA).
func TestDefaultReportsEveryRacingAccess(t *testing.T) {
	for seed := range propertySeeds() {
		tr := tracetest.Generate(tracetest.Small(seed))
		want, g := bruteRaces(t, tr)
		rep := detectOps(t, tr, Config{Unfiltered: true})
		got := map[string]bool{}
		seconds := map[string]bool{} // kind and line of second accesses
		for _, gr := range rep.Groups {
			for _, r := range gr.Races {
				k := fmt.Sprintf("%s %d-%d", r.Kind, r.First.Line, r.Second.Line)
				if !want[k] {
					t.Errorf("seed %d: reported %s, which is no race", seed, k)
				}
				got[k] = true
				seconds[fmt.Sprintf("%s %d", r.Kind, r.Second.Line)] = true
			}
		}
		for k := range want {
			var kind string
			var a, b int
			fmt.Sscanf(k, "%s %d-%d", &kind, &a, &b)
			if kind == "data" && !seconds[fmt.Sprintf("data %d", b)] {
				t.Errorf("seed %d: access at line %d races (%s) but is reported in no race", seed, b, k)
			}
		}
		// CAFA: the free before each use, and the free after.
		lastFree := map[traces.Location]int{}
		usesSince := map[traces.Location][]int{}
		for i := range tr.Ops {
			op := &tr.Ops[i]
			switch {
			case op.Kind == traces.Read && op.Deref:
				if f, ok := lastFree[op.Loc]; ok && !g.Before(asyncclock.Node(f), asyncclock.Node(i)) {
					if k := fmt.Sprintf("use-free %d-%d", f+2, i+2); !got[k] {
						t.Errorf("seed %d: missed %s (a use and the free before it)", seed, k)
					}
				}
				usesSince[op.Loc] = append(usesSince[op.Loc], i)
			case op.Kind == traces.Write && op.Val.Kind() == traces.NullValue:
				racy := slices.ContainsFunc(usesSince[op.Loc], func(u int) bool { return !g.Before(asyncclock.Node(u), asyncclock.Node(i)) })
				if racy && !seconds[fmt.Sprintf("use-free %d", i+2)] {
					t.Errorf("seed %d: the free at line %d races with a use since the free before it, reported with none", seed, i+2)
				}
				lastFree[op.Loc] = i
				usesSince[op.Loc] = nil
			}
		}
		if t.Failed() {
			return
		}
	}
}
