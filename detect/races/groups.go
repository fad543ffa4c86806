package races

import "github.com/licorice-dev/licorice/traces"

// groupSet numbers the groups of a trace: every group ever
// found is a uint64 in one map, however many there are (a racy trace of a
// million events has millions), and only the groups the report lists
// ([Config.Groups]) get a groupAcc with their races.
type groupSet struct {
	locs  map[groupLoc]uint32  // a group's location, numbered
	pairs map[[2]ctxKey]uint32 // a group's pair of contexts, numbered
	slots map[uint64]int32     // a packed key: its slot (see below)
}

// A group's slot: its index in Detector.order if it is listed,
// slotCounted if it is counted only, or slotHarmless-rule if a rule of
// the harmless filter drops its races.
const (
	slotCounted  = -1
	slotHarmless = -2
)

// groupLoc is the location part of a group's key.
type groupLoc struct {
	base  traces.Sym
	field traces.Sym
	how   uint8
}

func newGroupSet() *groupSet {
	return &groupSet{locs: make(map[groupLoc]uint32), pairs: make(map[[2]ctxKey]uint32), slots: make(map[uint64]int32)}
}

// pack turns k into one word: its kind, and the numbers of its location
// and of its pair of contexts.
func (s *groupSet) pack(k *groupKey) uint64 {
	loc := number(s.locs, groupLoc{base: k.base, field: k.field, how: k.how})
	pair := number(s.pairs, k.ctx)
	return uint64(k.kind&1)<<63 | uint64(loc&(1<<31-1))<<32 | uint64(pair)
}

// number returns k's number in m, giving it the next one if it is new.
func number[K comparable](m map[K]uint32, k K) uint32 {
	n, ok := m[k]
	if !ok {
		n = uint32(len(m))
		m[k] = n
	}
	return n
}
