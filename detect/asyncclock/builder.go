package asyncclock

import "slices"

// builder accumulates a time out of many joins, as at an event's begin,
// without allocating a vector per join: it keeps a dense clock per chain
// on top of a base time, and notes the chains that went past it.
type builder struct {
	base  Time
	k     []Clock // by chain; k[c] is the clock so far, where touched
	seen  []Chain // chains set in k (to reset it)
	delta []Chain // chains whose clock went past base's
}

// start makes b hold t.
func (b *builder) start(t Time, chains int) {
	for _, c := range b.seen {
		b.k[c] = 0
	}
	b.seen, b.delta = b.seen[:0], b.delta[:0]
	if len(b.k) < chains {
		b.k = append(b.k, make([]Clock, chains-len(b.k))...)
	}
	b.base = t
	for _, e := range t.vc {
		b.k[e.Chain()] = e.Clock()
		b.seen = append(b.seen, e.Chain())
	}
	if t.top != 0 {
		c := t.top.Chain()
		if b.k[c] == 0 {
			b.seen = append(b.seen, c)
		}
		b.k[c] = max(b.k[c], t.top.Clock())
	}
}

func (b *builder) get(c Chain) Clock {
	if int(c) < len(b.k) {
		return b.k[c]
	}
	return 0
}

func (b *builder) covers(e Epoch) bool { return e.Clock() <= b.get(e.Chain()) }

// raise sets chain c's clock to at least k; it reports whether it grew.
func (b *builder) raise(c Chain, k Clock) bool {
	if int(c) >= len(b.k) {
		b.k = append(b.k, make([]Clock, int(c)+1-len(b.k))...)
	}
	old := b.k[c]
	if k <= old {
		return false
	}
	if old == 0 {
		b.seen = append(b.seen, c)
	}
	if b.base.Get(c) == old { // first time past the base
		b.delta = append(b.delta, c)
	}
	b.k[c] = k
	return true
}

// learn joins t in; it reports whether b grew.
func (b *builder) learn(t Time) bool {
	grew := false
	for _, e := range t.vc {
		if b.raise(e.Chain(), e.Clock()) {
			grew = true
		}
	}
	if t.top != 0 && b.raise(t.top.Chain(), t.top.Clock()) {
		grew = true
	}
	return grew
}

// knows reports whether b covers all of t.
func (b *builder) knows(t Time) bool {
	for _, e := range t.vc {
		if !b.covers(e) {
			return false
		}
	}
	return t.top == 0 || b.covers(t.top)
}

// each calls f with every nonzero chain and its clock.
func (b *builder) each(f func(c Chain, k Clock)) {
	for _, c := range b.seen {
		f(c, b.k[c])
	}
}

// time returns what b holds, with top as its own component (0: none).
// It shares the base's vector when nothing went past it.
func (b *builder) time(top Epoch) Time {
	vc := b.base.vc
	if b.base.top != 0 && b.base.top.Chain() != top.Chain() {
		// the base's own component becomes an ordinary one
		b.raiseDelta(b.base.top.Chain())
	}
	if len(b.delta) > 0 {
		slices.Sort(b.delta)
		out := make([]Epoch, 0, len(vc)+len(b.delta))
		i := 0
		for _, c := range b.delta {
			for i < len(vc) && vc[i].Chain() < c {
				out = append(out, vc[i])
				i++
			}
			if i < len(vc) && vc[i].Chain() == c {
				i++
			}
			if top == 0 || c != top.Chain() {
				out = append(out, MakeEpoch(c, b.k[c]))
			}
		}
		vc = append(out, vc[i:]...)
	}
	if top != 0 {
		top = MakeEpoch(top.Chain(), max(top.Clock(), b.get(top.Chain())))
	}
	return Time{vc: vc, top: top}
}

// raiseDelta notes c as past the base even if its clock equals base's
// (the base's top, which goes into the vector).
func (b *builder) raiseDelta(c Chain) {
	if !slices.Contains(b.delta, c) {
		b.delta = append(b.delta, c)
	}
}
