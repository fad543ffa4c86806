package invariants

import (
	"cmp"
	"slices"
)

// Learning in two passes keeps the state of only the data and pairs of
// data that can yield a condition. Every condition needs at least
// MinSupport samples (Options.MinSupport), and a datum or pair cannot be
// checked on more samples than it has a value in. A handler that reads
// many data meets most of its pairs in one or two samples (50 traces of
// the generator's app shape form 18 million pairs, 90% of them met once),
// so their state is nearly all of a learner's memory and of the
// spec, for no condition. The first pass counts, per handler, the samples
// in which each datum has a value and each pair is formed
// ([SupportCounter]); the second learns only those met often enough
// ([Learner.Restrict]). The conditions are exactly those of learning
// everything; the state is not: merged with another, it would lack the
// samples of the pairs each kept too few of.

// SupportCounter counts, for one handler, the samples in which each datum
// has a value and each pair of data is formed (by the rule of
// [Learner.Add]: both have a value, in one abstract type of at most
// MaxPairGroup data with a value). Its memory is a word per datum and
// per datum of a pair-forming type in a sample, not per pair.
//
// A SupportCounter is not safe for concurrent use.
type SupportCounter struct {
	numbering         // the data's names, numbered
	n         []int64 // by datum: the samples in which it has a value
	// groups lists each sample's pair-forming types: the number of data,
	// then their ids.
	groups []int32
	order  []int   // scratch for Add
	vids   []int32 // scratch for Add: the numbers of its sample's data
}

// NewSupportCounter returns an empty counter.
func NewSupportCounter() *SupportCounter {
	return &SupportCounter{}
}

func (c *SupportCounter) id(name string) int32 {
	i, isNew := c.number(name)
	if isNew {
		c.n = append(c.n, 0)
	}
	return i
}

// Add counts one sample.
func (c *SupportCounter) Add(vars []Var) {
	c.vids = c.vids[:0]
	for i := range vars {
		id := int32(-1) // absent: in no pair
		if vars[i].Val.kind != Absent {
			id = c.id(vars[i].Name)
			c.n[id]++
		}
		c.vids = append(c.vids, id)
	}
	c.order, _ = pairGroups(vars, c.order, func(group []int) {
		c.groups = append(c.groups, int32(len(group)))
		for _, i := range group {
			c.groups = append(c.groups, c.vids[i])
		}
	})
}

// Merge adds the counts of o.
func (c *SupportCounter) Merge(o *SupportCounter) {
	ids := make([]int32, len(o.names))
	for i, name := range o.names {
		ids[i] = c.id(name)
		c.n[ids[i]] += o.n[i]
	}
	for i := 0; i < len(o.groups); {
		size := int(o.groups[i])
		c.groups = append(c.groups, int32(size))
		for _, id := range o.groups[i+1 : i+1+size] {
			c.groups = append(c.groups, ids[id])
		}
		i += 1 + size
	}
}

// Supported returns the data with a value in at least least samples and
// the pairs of them formed in at least least samples.
func (c *SupportCounter) Supported(least int64) *Supported {
	s := &Supported{ids: make(map[string]int32), pairs: make(map[pairKey]struct{})}
	for id, n := range c.n {
		if n >= least {
			s.ids[c.names[id]] = int32(id)
		}
	}
	// The groups each datum is in (their offsets in c.groups), in one
	// array indexed by datum.
	start := make([]int, len(c.names)+1)
	for i := 0; i < len(c.groups); i += 1 + int(c.groups[i]) {
		for _, id := range c.groups[i+1 : i+1+int(c.groups[i])] {
			start[id+1]++
		}
	}
	for id := range c.names {
		start[id+1] += start[id]
	}
	in := make([]int, start[len(c.names)])
	next := append([]int(nil), start[:len(c.names)]...)
	for i := 0; i < len(c.groups); i += 1 + int(c.groups[i]) {
		for _, id := range c.groups[i+1 : i+1+int(c.groups[i])] {
			in[next[id]] = i
			next[id]++
		}
	}
	// For each datum x, count the groups it shares with each y > x. (A
	// pair is met no more often than each of its data.)
	count := make([]int64, len(c.names))
	var met []int32
	for x := range c.names {
		for _, g := range in[start[x]:start[x+1]] {
			for _, y := range c.groups[g+1 : g+1+int(c.groups[g])] {
				if int(y) <= x {
					continue
				}
				if count[y] == 0 {
					met = append(met, y)
				}
				count[y]++
			}
		}
		for _, y := range met {
			s.met++
			if count[y] >= least {
				s.pairs[idPair(int32(x), y)] = struct{}{}
			}
			count[y] = 0
		}
		met = met[:0]
	}
	return s
}

// Supported is what [SupportCounter.Supported] found of one handler: the
// data and pairs of data met in enough samples to yield a condition.
// It is not changed once made, so learners on several goroutines may
// share it. The zero Supported holds nothing.
type Supported struct {
	ids   map[string]int32 // the data, by name
	pairs map[pairKey]struct{}
	met   int64 // pairs met, supported or not
}

// Pairs returns the number of supported pairs, and of the pairs met.
func (s *Supported) Pairs() (supported, met int64) { return int64(len(s.pairs)), s.met }

// id returns the datum's number, or -1 if it is not supported.
func (s *Supported) id(name string) int32 {
	if i, ok := s.ids[name]; ok {
		return i
	}
	return -1
}

// pair reports whether the pair of data numbered x and y is supported.
func (s *Supported) pair(x, y int32) bool {
	if x < 0 || y < 0 {
		return false
	}
	_, ok := s.pairs[idPair(x, y)]
	return ok
}

// idPair is the key of the pair of data numbered x and y, in either order.
func idPair(x, y int32) pairKey {
	if x > y {
		x, y = y, x
	}
	return pairKey(uint64(uint32(x))<<32 | uint64(uint32(y)))
}

// pairGroups calls fn with each abstract type of a sample whose data form
// pairs (Learner.Add): those with a value, if there are two to
// MaxPairGroup of them, as indices into vars in their order there. It
// returns the scratch slice order for the next call, and whether a type
// had more than MaxPairGroup data.
func pairGroups(vars []Var, order []int, fn func(group []int)) ([]int, bool) {
	order = order[:0]
	for i := range vars {
		if vars[i].Val.kind != Absent {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(vars[a].Group, vars[b].Group) })
	unpaired := false
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && vars[order[end]].Group == vars[order[start]].Group {
			end++
		}
		switch {
		case end-start > MaxPairGroup:
			unpaired = true
		case end-start > 1:
			fn(order[start:end])
		}
		start = end
	}
	return order, unpaired
}
