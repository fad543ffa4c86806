package asyncclock

import (
	"maps"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// TestChainsNearWidth checks that place keeps the loopers' chains near
// the width of the happens-before order among the events each ran: the
// fewest chains any decomposition could use for them (Dilworth: the
// events less a maximum matching of the pairs it orders). The width of
// every clock, and so the cost of every begin, follows the chains. First
// fit stays within 1.26 times the width on these and other seeds (FIFO
// chain decomposition: up to 1.33); the bounds catch a placement that
// goes badly wrong, while the benchmarks' chains metric tells the finer
// differences.
func TestChainsNearWidth(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  tracetest.Config
	}{
		{"app", tracetest.App(4000, 1)},
		{"app seed 4", tracetest.App(4000, 4)},
		{"android", tracetest.Android(1500, 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tt := tracetest.Generate(c.cfg)
			e := New(tt.Symbols, Config{Window: DefaultWindow, WideWindow: true, KeepEvents: true})
			ran := map[*thread][]*event{} // begun looper events, by looper, in begin order
			for i := range tt.Ops {
				op := &tt.Ops[i]
				if err := e.Step(op, i+2); err != nil {
					t.Fatal(err)
				}
				if op.Kind == traces.Begin {
					if ev := e.events.get(op.Task); !ev.q.binder {
						ran[ev.th] = append(ran[ev.th], ev)
					}
				}
			}
			if err := e.Finish(); err != nil {
				t.Fatal(err)
			}
			loopers := slices.SortedFunc(maps.Keys(ran), func(a, b *thread) int {
				return strings.Compare(e.name(a.id), e.name(b.id))
			})
			widths, chains := 0, 0
			for _, th := range loopers {
				evs := ran[th]
				used := map[Chain]bool{}
				for _, ev := range evs {
					used[ev.chain] = true
				}
				w := width(len(evs), func(u, v int) bool {
					return evs[u].status == evEnded && evs[v].begin.Covers(evs[u].endEpoch())
				})
				widths += w
				chains += len(used)
				t.Logf("looper %s: %d events, width %d, chains %d", e.name(th.id), len(evs), w, len(used))
				if len(used) < w {
					t.Errorf("looper %s: %d chains for an order of width %d: a chain holds unordered events", e.name(th.id), len(used), w)
				}
				if limit := w + w/2 + 2; len(used) > limit {
					t.Errorf("looper %s: %d chains for an order of width %d, more than %d", e.name(th.id), len(used), w, limit)
				}
			}
			if limit := widths * 14 / 10; chains > limit {
				t.Errorf("the loopers' events are on %d chains; the widths of their orders sum to %d: more than %d", chains, widths, limit)
			}
		})
	}
}

// width returns the width of a strict partial order on 0..n-1 in which
// u ≺ v only if u < v: n less a maximum matching of the bipartite graph
// of the ordered pairs (Hopcroft–Karp over bit rows).
func width(n int, precedes func(u, v int) bool) int {
	words := (n + 63) / 64
	adj := make([]uint64, n*words)
	row := func(u int) []uint64 { return adj[u*words : (u+1)*words] }
	for u := range n {
		for v := u + 1; v < n; v++ {
			if precedes(u, v) {
				row(u)[v>>6] |= 1 << (v & 63)
			}
		}
	}
	const none = -1
	mu, mv, dist := make([]int, n), make([]int, n), make([]int, n)
	for i := range mu {
		mu[i], mv[i] = none, none
	}
	free := make([]uint64, words) // right vertices not yet reached in a phase
	resetFree := func() {
		for i := range free {
			free[i] = ^uint64(0)
		}
	}
	bfs := func() bool {
		resetFree()
		var queue []int
		for u := range n {
			dist[u] = -1
			if mu[u] == none {
				dist[u] = 0
				queue = append(queue, u)
			}
		}
		found := false
		for i := 0; i < len(queue); i++ {
			u := queue[i]
			for wi, r := range row(u) {
				for w := r & free[wi]; w != 0; w &= w - 1 {
					v := wi<<6 | bits.TrailingZeros64(w)
					free[wi] &^= 1 << (v & 63)
					if p := mv[v]; p == none {
						found = true
					} else if dist[p] < 0 {
						dist[p] = dist[u] + 1
						queue = append(queue, p)
					}
				}
			}
		}
		return found
	}
	var augment func(u int) bool
	augment = func(u int) bool {
		for wi, r := range row(u) {
			for w := r & free[wi]; w != 0; w &= w - 1 {
				v := wi<<6 | bits.TrailingZeros64(w)
				if free[wi]&(1<<(v&63)) == 0 {
					continue // tried deeper down since w was read
				}
				p := mv[v]
				if p != none && dist[p] != dist[u]+1 {
					continue // not on the next layer: another vertex may use v
				}
				free[wi] &^= 1 << (v & 63) // tried once a phase
				if p == none || augment(p) {
					mu[u], mv[v] = v, u
					return true
				}
			}
		}
		dist[u] = -1
		return false
	}
	matched := 0
	for bfs() {
		resetFree()
		for u := range n {
			if mu[u] == none && augment(u) {
				matched++
			}
		}
	}
	return n - matched
}

// TestWidth checks width against the longest antichain found by brute
// force (Dilworth: they are equal) on small random orders.
func TestWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := 1 + rng.IntN(12)
		p := rng.Float64()
		// A random order: the transitive closure of random pairs u < v.
		rel := make([][]bool, n)
		for u := range rel {
			rel[u] = make([]bool, n)
		}
		for u := n - 1; u >= 0; u-- {
			for v := u + 1; v < n; v++ {
				if rng.Float64() < p {
					rel[u][v] = true
					for x := v + 1; x < n; x++ {
						rel[u][x] = rel[u][x] || rel[v][x]
					}
				}
			}
		}
		want := 0
		for set := 1; set < 1<<n; set++ {
			if bits.OnesCount(uint(set)) <= want {
				continue
			}
			antichain := true
			for u := 0; u < n && antichain; u++ {
				for v := u + 1; v < n; v++ {
					if set&(1<<u) != 0 && set&(1<<v) != 0 && rel[u][v] {
						antichain = false
						break
					}
				}
			}
			if antichain {
				want = bits.OnesCount(uint(set))
			}
		}
		if got := width(n, func(u, v int) bool { return rel[u][v] }); got != want {
			t.Fatalf("n=%d, order %v: width %d, want %d", n, rel, got, want)
		}
	}
}

// TestChainsInBlocksOfTheirKind checks how newChain numbers chains: a
// looper's chains (its own and its events'), binder events' chains and
// other threads' own chains each fill blocks of a vector clock (chunk) of
// their own, except a looper's first sharedLooperChains chains, which
// share blocks with other loopers' first ones; and they leave few
// numbers unused, also with hundreds of loopers of few chains each
// (sharedLooperChains says why).
func TestChainsInBlocksOfTheirKind(t *testing.T) {
	manyLoopers := tracetest.App(3000, 1)
	manyLoopers.Loopers = 300
	for _, cfg := range []tracetest.Config{tracetest.App(3000, 1), tracetest.Android(800, 1), manyLoopers} {
		tt := tracetest.Generate(cfg)
		e := New(tt.Symbols, Config{Window: DefaultWindow, WideWindow: true})
		for i := range tt.Ops {
			if err := e.Step(&tt.Ops[i], i+2); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.Finish(); err != nil {
			t.Fatal(err)
		}
		type kind struct {
			looper *thread
			own    bool
		}
		kindOf := func(ch *chain) kind {
			if ch.own && (ch.owner == nil || ch.owner.kind != traces.Looper) {
				return kind{own: true}
			}
			return kind{looper: ch.owner} // a looper's own chain is among its events'; binder events' have none
		}
		taken := 0
		blockKinds := map[int]map[kind]int{} // by block: its chains' kinds, with how many of each
		chainsOf := map[*thread]int{}
		for c := 1; c < len(e.chains); c++ {
			ch := &e.chains[c]
			if e.tips[c].last == 0 {
				if c < e.NumChains() && ch.owner != nil {
					t.Fatalf("chain %d has an owner but no clock", c)
				}
				continue
			}
			if c >= e.NumChains() {
				t.Fatalf("chain %d is taken, but NumChains is %d", c, e.NumChains())
			}
			taken++
			k := kindOf(ch)
			i := c >> chunkBits
			if blockKinds[i] == nil {
				blockKinds[i] = map[kind]int{}
			}
			blockKinds[i][k]++
			if k.looper != nil {
				chainsOf[k.looper]++
			}
		}
		if got := e.Stats().Chains; got != taken {
			t.Errorf("Stats().Chains = %d, want the %d chains taken", got, taken)
		}
		shared := map[*thread]int{} // by looper: its chains in blocks it shares with other loopers
		for i, kinds := range blockKinds {
			if len(kinds) == 1 {
				continue
			}
			for k, n := range kinds {
				if k.looper == nil {
					t.Fatalf("block %d holds chains of %d kinds, among them %+v", i, len(kinds), k)
				}
				shared[k.looper] += n
			}
		}
		// Each kind leaves at most one block partly unused: binder events',
		// threads', loopers' first chains, and each looper's later ones.
		kinds := 3
		for th, n := range chainsOf {
			if shared[th] > sharedLooperChains {
				t.Errorf("a looper has %d chains in blocks shared with other loopers, want at most %d", shared[th], sharedLooperChains)
			}
			if n > sharedLooperChains {
				kinds++
			}
		}
		if unused := e.NumChains() - 1 - taken; unused > kinds*(chunkSize-1) {
			t.Errorf("%d of %d chain numbers unused, for %d kinds of chains (%d loopers)", unused, e.NumChains()-1, kinds, len(chainsOf))
		}
		// However the chains spread over the loopers, the numbers stay
		// within a few times the chains: they size every table by Chain.
		if e.NumChains()-1 > 5*taken+3*chunkSize {
			t.Errorf("%d chains numbered up to %d, want at most 5 times as many numbers (and 3 partial blocks)", taken, e.NumChains()-1)
		}
		if len(blockKinds) < 4 {
			t.Errorf("%d chains in %d blocks: the test checks little", taken, len(blockKinds))
		}
		t.Logf("%d chains (%d loopers) in %d blocks, numbered up to %d", taken, len(chainsOf), len(blockKinds), e.NumChains()-1)
	}
}
