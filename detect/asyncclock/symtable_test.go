package asyncclock

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

// checkSymTable checks t against want: every lookup, the count, the
// order and contents of all, and that the table holds no page it does
// not need: its directory starts at the page of the lowest entry and
// runs at least to that of the highest (an empty table has none), and a
// page is there exactly when it holds an entry, with the right count and
// bits of used slots.
func checkSymTable(tb testing.TB, what string, tab *symTable[int], want map[traces.Sym]*int) {
	tb.Helper()
	if tab.len() != len(want) {
		tb.Fatalf("%s: len %d, want %d", what, tab.len(), len(want))
	}
	for y, v := range want {
		if got := tab.get(y); got != v {
			tb.Fatalf("%s: get(%d) = %p, want %p", what, y, got, v)
		}
	}
	var ys []traces.Sym
	for y, v := range tab.all() {
		if want[y] != v {
			tb.Fatalf("%s: all yields %d: %p, want %p", what, y, v, want[y])
		}
		ys = append(ys, y)
	}
	if wantYs := slices.Sorted(maps.Keys(want)); !slices.Equal(ys, wantYs) {
		tb.Fatalf("%s: all yields %v, want %v", what, ys, wantYs)
	}
	if len(want) == 0 {
		if len(tab.pages) != 0 {
			tb.Fatalf("%s: empty table keeps %d pages in its directory", what, len(tab.pages))
		}
		return
	}
	counts := map[int]int{}
	for y := range want {
		counts[int(y>>symPageBits)]++
	}
	lo, hi := int(ys[0]>>symPageBits), int(ys[len(ys)-1]>>symPageBits)
	if tab.base != lo || tab.base+len(tab.pages)-1 < hi {
		tb.Fatalf("%s: directory spans pages %d..%d, entries %d..%d", what, tab.base, tab.base+len(tab.pages)-1, lo, hi)
	}
	for i, p := range tab.pages {
		switch n := counts[tab.base+i]; {
		case n == 0 && p != nil:
			tb.Fatalf("%s: page %d holds nothing but is kept", what, tab.base+i)
		case n > 0 && (p == nil || p.n != n):
			tb.Fatalf("%s: page %d holds %d entries, page is %v", what, tab.base+i, n, p)
		}
		if p == nil {
			continue
		}
		for j, v := range p.slots {
			if used := p.used[j/64]&(1<<(j%64)) != 0; used != (v != nil) {
				tb.Fatalf("%s: page %d slot %d: used bit %v, entry %p", what, tab.base+i, j, used, v)
			}
		}
	}
}

func TestSymTable(t *testing.T) {
	type step struct {
		set bool // else delete
		y   traces.Sym
	}
	far := traces.Sym(5*symPageSize + 3)
	tests := []struct {
		name  string
		steps []step
	}{
		{"empty", nil},
		{"one", []step{{true, 7}}},
		{"one, deleted", []step{{true, 7}, {false, 7}}},
		{"delete absent", []step{{true, 7}, {false, 8}, {false, far}, {false, 0}}},
		{"set twice", []step{{true, 7}, {true, 7}}},
		{"sym 0", []step{{true, 0}, {true, 1}, {false, 0}}},
		{"page edges", []step{{true, symPageSize - 1}, {true, symPageSize}, {false, symPageSize - 1}}},
		{"grows up", []step{{true, 3}, {true, far}, {true, 2 * far}}},
		{"grows down", []step{{true, 2 * far}, {true, far}, {true, 3}}},
		{"low page dropped", []step{{true, 3}, {true, far}, {true, 2 * far}, {false, 3}}},
		{"high page dropped", []step{{true, 3}, {true, far}, {true, 2 * far}, {false, 2 * far}}},
		{"middle page dropped", []step{{true, 3}, {true, far}, {true, 2 * far}, {false, far}}},
		{"all dropped, then again", []step{{true, 3}, {true, far}, {false, far}, {false, 3}, {true, 2 * far}}},
		{"largest sym", []step{{true, ^traces.Sym(0)}, {true, 1}, {false, ^traces.Sym(0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tab symTable[int]
			want := map[traces.Sym]*int{}
			for i, s := range tt.steps {
				if s.set {
					v := new(int)
					tab.set(s.y, v)
					want[s.y] = v
				} else {
					tab.delete(s.y)
					delete(want, s.y)
				}
				checkSymTable(t, fmt.Sprintf("%s: step %d", tt.name, i), &tab, want)
			}
		})
	}
}

// TestSymTableAsMap runs random sets, deletes and lookups, with ids
// spread as a trace's are (most of them new or recent, in a band that
// moves up; a few old ones that stay), on a table and on a map.
func TestSymTableAsMap(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		var tab symTable[int]
		want := map[traces.Sym]*int{}
		next := traces.Sym(1 + r.IntN(3*symPageSize))
		var held []traces.Sym
		steps := 4000
		if testing.Short() {
			steps = 1000
		}
		for i := range steps {
			switch k := r.IntN(10); {
			case k < 4: // a new id
				next += traces.Sym(1 + r.IntN(40))
				v := new(int)
				tab.set(next, v)
				want[next] = v
				held = append(held, next)
			case k < 5: // an old id, held or not
				y := traces.Sym(r.IntN(int(next) + 1))
				v := new(int)
				tab.set(y, v)
				want[y] = v
				held = append(held, y)
			case k < 8 && len(held) > 0: // delete one held, mostly an old one
				j := r.IntN(len(held))
				if r.IntN(3) > 0 {
					j = r.IntN(min(len(held), 8))
				}
				tab.delete(held[j])
				delete(want, held[j])
				held = slices.Delete(held, j, j+1)
			default: // look up an id, mostly absent
				y := traces.Sym(r.IntN(int(next) + 2*symPageSize))
				if got := tab.get(y); got != want[y] {
					t.Fatalf("seed %d step %d: get(%d) = %p, want %p", seed, i, y, got, want[y])
				}
			}
			if i%97 == 0 {
				checkSymTable(t, fmt.Sprintf("seed %d step %d", seed, i), &tab, want)
			}
		}
		checkSymTable(t, fmt.Sprintf("seed %d", seed), &tab, want)
		// all, deleting as it goes: every entry is yielded once.
		n, size := 0, len(want)
		for y := range tab.all() {
			tab.delete(y)
			delete(want, y)
			n++
		}
		if n != size {
			t.Fatalf("seed %d: all while deleting yielded %d entries, want %d", seed, n, len(held))
		}
		checkSymTable(t, fmt.Sprintf("seed %d, emptied", seed), &tab, want)
	}
}

// TestSymTableReusesPage checks that a page dropped with its last entry
// serves the next page needed: a task that begins and ends, alone in
// its page, costs no allocation.
func TestSymTableReusesPage(t *testing.T) {
	var tab symTable[int]
	v := new(int)
	tab.set(3, v) // a thread, far below
	y := traces.Sym(10 * symPageSize)
	allocs := testing.AllocsPerRun(100, func() {
		y += symPageSize
		tab.set(y, v)
		tab.delete(y)
	})
	if allocs != 0 {
		t.Errorf("a set and delete alone in a page: %v allocations, want 0", allocs)
	}
}

// TestSymTableKeepsTop checks that dropping the highest page leaves the
// directory above the lowest entry as it is: a task that begins and
// ends, alone in the newest page, far above the threads, would otherwise
// cost a pass over the directory at each end and a regrowth at the next
// begin.
func TestSymTableKeepsTop(t *testing.T) {
	var tab symTable[int]
	v := new(int)
	tab.set(3, v)
	far := traces.Sym(500 * symPageSize)
	tab.set(far, v)
	n := len(tab.pages)
	tab.delete(far)
	if len(tab.pages) != n {
		t.Fatalf("dropping the top page made the directory %d pages long, want %d", len(tab.pages), n)
	}
	tab.set(far+1, v)
	checkSymTable(t, "after", &tab, map[traces.Sym]*int{3: v, far + 1: v})
}
