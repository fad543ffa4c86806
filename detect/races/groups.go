package races

import (
	"math/bits"

	"github.com/licorice-dev/licorice/traces"
)

// groupSet numbers the groups of a trace. A racy trace of a million events
// has millions of groups and finds a race every few operations, so every
// group is one word in an open-addressing table, found with one probe or
// two, and only the groups the report lists ([Config.Groups]) or that the
// harmless filter drops are also in a map, with their slot.
//
// A group's word packs its kind, the number of its location (groupLoc)
// and its two contexts' numbers (contexts are numbered as tasks enter
// them, see Detector.ctxOf, and locations as races find them, see
// Detector.glocOf), smaller first. Numbers too large to pack are rare
// enough for the pair to get a number of its own from a map.
type groupSet struct {
	ctxs  map[ctxKey]uint32    // a context, numbered
	locs  map[groupLoc]uint32  // a group's location, numbered
	pairs map[[2]uint32]uint32 // pairs of contexts whose numbers are too large
	wide  map[[3]uint32]uint32 // groups whose location number is too large
	words wordSet
	slots map[uint64]int32 // the words of listed and harmless groups: their slot
}

// A group's slot: its index in Detector.order if it is listed,
// slotCounted if it is counted only, or slotHarmless-rule if a rule of
// the harmless filter drops its races.
const (
	slotCounted  = -1
	slotHarmless = -2
)

// The bits of a group's word: present in every word (so that none is 0,
// the empty slot of wordSet), kind (set for data races), paired (the
// contexts are a number of pairs, not two numbers), slotted (the group is
// in groupSet.slots; not part of its identity), then the location's
// number, then the contexts.
const (
	wordPresent = 1 << 63
	wordData    = 1 << 62
	wordPaired  = 1 << 61
	wordSlotted = 1 << 60
	wordLocBits = 28
	wordLocMax  = 1<<wordLocBits - 1
	wordCtxMax  = 1<<16 - 1
)

// groupLoc is the location part of a group's key.
type groupLoc struct {
	base  traces.Sym // the allocation site, the class, or the object
	field traces.Sym
	how   uint8 // baseClass, baseSite or baseObject
}

const (
	baseClass uint8 = iota
	baseSite
	baseObject
)

func newGroupSet() *groupSet {
	return &groupSet{
		ctxs: make(map[ctxKey]uint32), locs: make(map[groupLoc]uint32),
		pairs: make(map[[2]uint32]uint32), wide: make(map[[3]uint32]uint32), slots: make(map[uint64]int32),
		words: newWordSet(1 << 10),
	}
}

// word returns the word of the group of kind k on location number loc
// between contexts number c1 and c2.
func (s *groupSet) word(k Kind, loc, c1, c2 uint32) uint64 {
	if c2 < c1 {
		c1, c2 = c2, c1
	}
	w := uint64(wordPresent)
	if k == DataRace {
		w |= wordData
	}
	if loc >= wordLocMax {
		// A quarter of a billion locations: the largest location number
		// says that the rest numbers the whole group.
		return w | wordPaired | wordLocMax<<32 | uint64(number(s.wide, [3]uint32{loc, c1, c2}))
	}
	if c2 > wordCtxMax {
		return w | wordPaired | uint64(loc)<<32 | uint64(number(s.pairs, [2]uint32{c1, c2}))
	}
	return w | uint64(loc)<<32 | uint64(c1)<<16 | uint64(c2)
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

// wordSet is a set of nonzero words, each with a flag (wordSlotted) that
// is not part of its identity: open addressing, linear probing, at most
// three quarters full.
type wordSet struct {
	table []uint64
	n     int
	shift uint // 64 - log2(len(table))
}

func newWordSet(size int) wordSet {
	return wordSet{table: make([]uint64, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
}

// find returns the index of w in the table (with its flag or without),
// and whether it is there; if not, the index is where add puts it.
func (s *wordSet) find(w uint64) (int, bool) {
	mask := len(s.table) - 1
	for i := int((w * 0x9e3779b97f4a7c15) >> s.shift); ; i = (i + 1) & mask {
		switch s.table[i] &^ wordSlotted {
		case w:
			return i, true
		case 0:
			return i, false
		}
	}
}

// add stores w (with its flag, if any) at index i, which find returned
// for it.
func (s *wordSet) add(i int, w uint64) {
	s.table[i] = w
	if s.n++; s.n > len(s.table)/4*3 {
		old := s.table
		*s = newWordSet(2 * len(old))
		for _, w := range old {
			if w != 0 {
				i, _ := s.find(w &^ wordSlotted)
				s.add(i, w)
			}
		}
	}
}
