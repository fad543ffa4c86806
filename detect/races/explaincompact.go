package races

import "github.com/licorice-dev/licorice/traces"

// The search keeps a node per operation it reaches, and an ordered pair
// whose chain may cross a whole trace reaches most of it. Most nodes are
// soon of no use: a later operation can only be reached from nodes that
// something still refers to (a task's best op, an event's send or end
// that a rule may still offer, a signal, fork or thread end), and the
// answer only needs their chains of predecessors. compact drops the
// other nodes, and with them the events only they held, so the search's
// memory follows what it can still use rather than the trace's length.

// minCompact is the fewest nodes at which the search compacts them.
const minCompact = 1 << 16

// maybeCompact compacts the nodes once they have doubled since the last
// compaction: amortized, a constant cost per node.
func (x *explainer) maybeCompact() {
	if x.nodes.len() < x.nextCompact {
		return
	}
	x.peak = max(x.peak, x.nodes.len())
	x.compact()
	x.nextCompact = max(2*x.nodes.len(), x.minCompact)
}

// compact drops the nodes that no live reference leads to, keeping the
// order of the others (so a node's predecessor still comes before it,
// and the first nodes are still the earliest).
func (x *explainer) compact() {
	n := x.nodes.len()
	live := make([]bool, n)
	x.gen++
	x.eachRef(func(r *int32) {
		for i := *r; i >= 0 && !live[i]; i = x.nodes.at(i).pred {
			live[i] = true
		}
	}, false)
	remap := make([]int32, n)
	var kept nodeStore
	for i := range n {
		if !live[i] {
			remap[i] = -1
			continue
		}
		nd := *x.nodes.at(i)
		if nd.pred >= 0 {
			nd.pred = remap[nd.pred]
		}
		remap[i] = kept.add(nd)
	}
	x.nodes = kept
	x.gen++
	x.eachRef(func(r *int32) {
		if *r >= 0 {
			*r = remap[*r]
		}
	}, true)
}

// eachRef calls f with every reference to a node the search holds, each
// once. With nodeEvents, also the references of the events that only
// the (kept) nodes hold, which nothing reads again but are kept
// consistent: a dropped node's reference becomes -1, unreached.
func (x *explainer) eachRef(f func(*int32), nodeEvents bool) {
	event := func(e *xEvent) {
		if e == nil || e.gen == x.gen {
			return
		}
		e.gen = x.gen
		f(&e.sendNode)
		f(&e.endNode)
	}
	events := func(evs []*xEvent) {
		for _, e := range evs {
			event(e)
		}
	}
	task := func(t *xTask) {
		if t == nil || t.gen == x.gen {
			return
		}
		t.gen = x.gen
		f(&t.best)
		event(t.ev)
	}
	ageing := func(a *aging) {
		for i := range a.young {
			f(&a.young[i].node)
		}
		f(&a.old)
	}
	for _, e := range x.events {
		event(e)
	}
	for _, t := range x.tasks {
		task(t)
	}
	for _, th := range x.threads {
		task(th.own)
		for _, evs := range th.byDist {
			events(evs)
		}
		ageing(&th.window)
		f(&th.ends)
	}
	for _, q := range x.queues {
		for _, evs := range q.byDist {
			events(evs)
		}
		events(q.atFront)
		events(q.unresolved)
	}
	events(x.unresolved)
	events(x.recent)
	event(x.src)
	event(x.dst)
	for _, m := range []map[traces.Sym]int32{x.handles, x.forks, x.ends} {
		for k, v := range m {
			f(&v)
			m[k] = v
		}
	}
	ageing(&x.signals)
	ageing(&x.threadEnd)
	f(&x.external)
	f(&x.target)
	for i := range x.firstBegins {
		f(&x.firstBegins[i])
	}
	if nodeEvents {
		for i := range x.nodes.len() {
			event(x.nodes.at(i).ev)
		}
	}
}
