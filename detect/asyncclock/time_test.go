package asyncclock

import (
	"math/rand/v2"
	"testing"
)

// TestJoinsSkipKnownBlocks checks the joins' shortcuts — a block that is
// the same pointer, a block whose point (chunk.at) the joining side
// knows, a time whose point (Time.at) it knows, a block of a base it
// knows, a block taken whole when it dominates — against plain vectors
// joined clock by clock. Times are made as the engine makes them: tasks
// on chains publish a time (a send, a signal) only as it is last at its
// clock, learn published times at a new clock, begin new points on a
// chain whose last point their start knows (builder.timeOf), and handles
// join published times without being points themselves.
func TestJoinsSkipKnownBlocks(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		nChains := 1 + r.IntN(3*pageSize*chunkSize) // up to three pages of blocks
		type known struct {
			t     Time
			plain []Clock // by chain
		}
		plainOf := func(t Time) []Clock {
			p := make([]Clock, nChains+1)
			for c := range p {
				p[c] = t.Get(Chain(c))
			}
			return p
		}
		join := func(a, b []Clock) []Clock {
			p := make([]Clock, len(a))
			for c := range p {
				p[c] = max(a[c], b[c])
			}
			return p
		}
		check := func(step int, what string, got Time, want []Clock) {
			t.Helper()
			for c, k := range want {
				if g := got.Get(Chain(c)); g != k {
					t.Fatalf("seed %d step %d: %s: chain %d has clock %d, want %d (%v)", seed, step, what, c, g, k, got)
				}
			}
		}
		tasks := make([]*task, nChains+1) // by chain: the task running on it
		plain := make([][]Clock, nChains+1)
		// pointTime holds the plain time of every published point: a
		// time's point (Time.at) must know its whole vector.
		pointTime := map[Epoch][]Clock{}
		// pointPlain returns the plain time of point p, as known so far.
		pointPlain := func(step int, what string, p Epoch) []Clock {
			t.Helper()
			pt, ok := pointTime[p]
			if c := p.Chain(); !ok && int(c) < len(tasks) && tasks[c] != nil && tasks[c].st.top == p {
				pt, ok = plain[c], true // its task's current point, not published yet
			}
			if !ok {
				t.Fatalf("seed %d step %d: %s: %v is no point", seed, step, what, p)
			}
			return pt
		}
		// checkAt checks the points of got and of its blocks (chunk.at):
		// each must know what it stands for.
		checkAt := func(step int, what string, got Time) {
			t.Helper()
			if got.at != 0 {
				pt := pointPlain(step, what, got.at)
				for c, k := range plainOf(Time{pages: got.pages}) {
					if k > pt[c] {
						t.Fatalf("seed %d step %d: %s: %v has point %v, whose time %v does not know chain %d's clock %d", seed, step, what, got, got.at, pt, c, k)
					}
				}
			}
			for i := range len(got.pages) << pageBits {
				ch := got.block(i)
				if ch == nil {
					continue
				}
				if ch.at == 0 {
					continue
				}
				pt := pointPlain(step, what, ch.at)
				for j, k := range ch.clocks {
					if c := i<<chunkBits | j; c < len(pt) && k > pt[c] || c >= len(pt) && k > 0 {
						t.Fatalf("seed %d step %d: %s: block %d of %v has point %v, whose time %v does not know chain %d's clock %d", seed, step, what, i, got, ch.at, pt, c, k)
					}
				}
			}
		}
		published := []known{}
		handles := []known{}
		for c := 1; c <= nChains; c++ {
			tasks[c] = &task{st: Time{top: MakeEpoch(Chain(c), 1)}}
			plain[c] = plainOf(tasks[c].st)
		}
		publish := func(c int) {
			ts := tasks[c]
			checkAt(-1, "publish", ts.st)
			pointTime[ts.st.top] = plain[c]
			published = append(published, known{ts.st, plain[c]})
			// Its next op is at a new clock.
			ts.st.top = MakeEpoch(Chain(c), ts.st.top.Clock()+1)
			plain[c] = slicesWith(plain[c], c, ts.st.top.Clock())
		}
		pick := func() known {
			if len(handles) > 0 && r.IntN(4) == 0 {
				return handles[r.IntN(len(handles))]
			}
			return published[r.IntN(len(published))]
		}
		for c := 1; c <= nChains; c++ {
			publish(c)
		}
		var pool []*builder
		getBuilder := func() *builder {
			if n := len(pool); n > 0 && r.IntN(2) == 0 {
				b := pool[n-1] // builders are reused
				pool = pool[:n-1]
				return b
			}
			return &builder{}
		}
		for step := range 3000 {
			c := 1 + r.IntN(nChains)
			switch r.IntN(5) {
			case 0:
				publish(c)
			case 1: // a task learns (a wait, a join)
				u := pick()
				b := getBuilder()
				tasks[c].st, _ = tasks[c].st.joinIn(b, u.t, true) // as Engine.learn
				pool = append(pool, b)
				plain[c] = join(plain[c], u.plain)
				check(step, "learn", tasks[c].st, plain[c])
				checkAt(step, "learn", tasks[c].st)
			case 2: // a handle learns a signal
				publish(c)
				u := published[len(published)-1]
				if len(handles) == 0 || r.IntN(3) == 0 {
					handles = append(handles, u)
					break
				}
				h := &handles[r.IntN(len(handles))]
				h.t = h.t.join(u.t)
				h.plain = join(h.plain, u.plain)
				check(step, "handle", h.t, h.plain)
				checkAt(step, "handle", h.t)
			case 3: // a new point on chain c, from a start that knows its last one
				publish(c)
				b := getBuilder()
				start := published[len(published)-1]
				b.start(start.t)
				want := start.plain
				for range r.IntN(8) {
					u := pick()
					if r.IntN(2) == 0 {
						b.learn(u.t)
						want = join(want, u.plain)
						continue
					}
					// Over a base b knows (as learnFinish: an end over
					// its send), blocks the base has are skipped unseen.
					v := pick()
					b.learn(v.t)
					b.learnVectorOver(u.t, v.t.pages)
					if u.t.top != 0 {
						b.raise(u.t.top.Chain(), u.t.top.Clock())
					}
					want = join(join(want, v.plain), u.plain)
				}
				k := tasks[c].st.top.Clock()
				tasks[c].st = b.timeOf(MakeEpoch(Chain(c), k))
				plain[c] = slicesWith(want, c, k)
				pool = append(pool, b)
				check(step, "begin", tasks[c].st, plain[c])
				checkAt(step, "begin", tasks[c].st)
			default: // a plain join of two known times, and whether it added
				u, v := pick(), pick()
				want := join(u.plain, v.plain)
				got, grew := u.t.joinIn(getBuilder(), v.t, false)
				checkAt(step, "join", got)
				above := false
				for x := range want {
					if got.Get(Chain(x)) != want[x] {
						t.Fatalf("seed %d step %d: join: chain %d has clock %d, want %d", seed, step, x, got.Get(Chain(x)), want[x])
					}
					if v.plain[x] > u.plain[x] {
						above = true
					}
				}
				if above && !grew {
					t.Fatalf("seed %d step %d: join says it added nothing, but %v has a clock above %v", seed, step, v.t, u.t)
				}
			}
		}
		// No block or vector was handed out twice, or written once shared.
		for _, k := range append(published, handles...) {
			check(-1, "kept", k.t, k.plain)
		}
		for c := 1; c <= nChains; c++ {
			check(-1, "kept task", tasks[c].st, plain[c])
		}
	}
}

// TestAnyAboveLow checks the test for clocks below 2^31 against a loop
// over the clocks, where it must be exact, edges included, and so the
// raise of one block to another's clocks in Go (maxBlocksGo), both
// ways, in place and into a new block.
func TestAnyAboveLow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	values := []Clock{0, 1, 2, 1<<30 - 1, 1 << 30, 1<<31 - 2, 1<<31 - 1}
	pick := func() Clock {
		if r.IntN(4) == 0 {
			return values[r.IntN(len(values))]
		}
		return Clock(r.Uint32() >> 1)
	}
	above := 0
	for n := range 200_000 {
		ub, vb := new(chunk), new(chunk) // allocated alone, as the engine's blocks are
		u, v := &ub.clocks, &vb.clocks
		for j := range u {
			v[j] = pick()
			u[j] = pick()
			if n%2 == 0 { // mostly dominated: the common case at a begin
				u[j] = min(u[j], v[j])
			}
		}
		if n%4 == 0 {
			j := r.IntN(chunkSize)
			u[j], v[j] = max(v[j], 1), max(v[j], 1)-1 // one clock just above
		}
		want := false
		for j := range u {
			want = want || u[j] > v[j]
		}
		if got := anyAboveLow(ub, vb); got != want {
			t.Fatalf("anyAboveLow(%v, %v) = %v, want %v", *u, *v, got, want)
		}
		for _, pair := range [2][2]*chunk{{ub, vb}, {vb, ub}} {
			inPlace, made := *pair[0], new(chunk)
			maxBlocksGo(&inPlace, &inPlace, pair[1])
			maxBlocksGo(made, pair[0], pair[1])
			for j := range chunkSize {
				want := max(pair[0].clocks[j], pair[1].clocks[j])
				if inPlace.clocks[j] != want || made.clocks[j] != want {
					t.Fatalf("maxBlocksGo(%v, %v): clock %d is %d in place and %d into a new block, want %d", pair[0].clocks, pair[1].clocks, j, inPlace.clocks[j], made.clocks[j], want)
				}
			}
		}
		if want {
			above++
		}
	}
	if above < 50_000 || above > 150_000 {
		t.Fatalf("%d of 200000 cases had a clock above: the test checks little", above)
	}
}

// slicesWith returns a copy of p with p[c] at least k.
func slicesWith(p []Clock, c int, k Clock) []Clock {
	q := append([]Clock(nil), p...)
	q[c] = max(q[c], k)
	return q
}

// TestTimesSharePages checks that a time made from another shares the
// pages whose blocks stayed the same, so that a time over many chains
// costs the pages it changed (a looper's chains have a block of their
// own: 16k loopers make vectors of 700 blocks).
func TestTimesSharePages(t *testing.T) {
	const pages = 5
	chainIn := func(p int) Chain { return Chain(p<<(pageBits+chunkBits) | 3) }
	var b builder
	for p := range pages {
		if p != 1 { // a page with no block stays nil
			b.raise(chainIn(p), Clock(10+p))
		}
	}
	base := b.time(0)
	if len(base.pages) != pages || base.pages[1] != &noBlocks {
		t.Fatalf("base has pages %v, want %d with the second empty", base.pages, pages)
	}
	tests := []struct {
		name    string
		raise   Chain // in page changed
		changed int
	}{
		{"a clock of a block it has", chainIn(3), 3},
		{"a block of its own in a page it has", chainIn(2) + chunkSize, 2},
		{"a page it had not", chainIn(1), 1},
		{"a page past its last", chainIn(pages + 1), pages + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := Time{top: MakeEpoch(tt.raise, 99)}
			got := base.join(other)
			for p := range max(len(got.pages), len(base.pages)) {
				was, is := &noBlocks, &noBlocks
				if p < len(base.pages) {
					was = base.pages[p]
				}
				if p < len(got.pages) {
					is = got.pages[p]
				}
				if p == tt.changed {
					if is == nil || is == was {
						t.Errorf("page %d, the one changed: %p, was %p", p, is, was)
					}
				} else if is != was {
					t.Errorf("page %d is %p, was %p: a page that stayed the same is copied", p, is, was)
				}
			}
			for c := range Chain((pages + 2) << (pageBits + chunkBits)) {
				want := max(base.Get(c), other.Get(c))
				if k := got.Get(c); k != want {
					t.Fatalf("chain %d: clock %d, want %d", c, k, want)
				}
			}
		})
	}
}

// TestCoversTop checks Covers's arithmetic on a time's top against the
// plain rule: e is on top's chain at a clock at most top's.
func TestCoversTop(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	edge := []uint32{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<32 - 2, 1<<32 - 1}
	pick := func() uint32 {
		if r.IntN(2) == 0 {
			return edge[r.IntN(len(edge))]
		}
		return r.Uint32()
	}
	for range 100000 {
		top := MakeEpoch(Chain(pick()), Clock(pick()))
		e := MakeEpoch(Chain(pick()), Clock(pick()))
		if r.IntN(2) == 0 {
			e = MakeEpoch(top.Chain(), Clock(pick())) // on top's chain
		}
		tm := Time{top: top}
		want := top.Chain() == e.Chain() && e.Clock() <= top.Clock() || e.Clock() == 0
		if got := tm.Covers(e); got != want {
			t.Fatalf("{%v}.Covers(%v) = %v, want %v", top, e, got, want)
		}
	}
}
