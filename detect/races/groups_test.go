package races

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The word set against a map: every word added is found, with its flag,
// across the table's growths; words never added are not.
func TestWordSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := newWordSet(4)
	want := map[uint64]bool{} // word → slotted
	for range 100000 {
		w := wordPresent | rng.Uint64()&^(wordPresent|wordSlotted)
		if rng.IntN(4) == 0 {
			w &= wordPresent | 0xff // some words repeat
		}
		i, ok := s.find(w)
		if _, had := want[w]; ok != had {
			t.Fatalf("find(%#x) = %v, want %v", w, ok, had)
		}
		if !ok {
			slotted := rng.IntN(10) == 0
			want[w] = slotted
			if slotted {
				s.add(i, w|wordSlotted)
			} else {
				s.add(i, w)
			}
		}
	}
	if s.n != len(want) || s.n > len(s.table)/4*3 {
		t.Fatalf("%d words in a table of %d; want %d, at most three quarters full", s.n, len(s.table), len(want))
	}
	for w, slotted := range want {
		i, ok := s.find(w)
		if !ok || (s.table[i]&wordSlotted != 0) != slotted {
			t.Fatalf("%#x: found %v, flag %v; want the flag %v", w, ok, s.table[i]&wordSlotted != 0, slotted)
		}
	}
}

// Group words tell groups apart by kind, location and the unordered pair
// of contexts, also where the numbers are too large to pack.
func TestGroupWords(t *testing.T) {
	s := newGroupSet()
	words := map[uint64]string{}
	for _, g := range []struct {
		kind        Kind
		loc, c1, c2 uint32
	}{
		{DataRace, 0, 0, 0}, {UseFree, 0, 0, 0}, {DataRace, 1, 0, 0}, {DataRace, 0, 0, 1},
		{DataRace, 0, 1, 1}, {DataRace, 0, 1 << 20, 0}, {DataRace, 0, 1 << 20, 1}, {DataRace, 1, 0, 1 << 20},
		{DataRace, wordLocMax + 1, 0, 0}, {DataRace, wordLocMax + 2, 0, 0}, {DataRace, wordLocMax, 0, 0},
		{DataRace, wordLocMax - 1, 0, 0}, {DataRace, wordLocMax - 1, 0, 1 << 20}, {UseFree, wordLocMax, 0, 0},
	} {
		name := fmt.Sprint(g)
		w := s.word(g.kind, g.loc, g.c1, g.c2)
		if w&wordPresent == 0 || w&wordSlotted != 0 {
			t.Errorf("%v: word %#x lacks its present bit or has the slotted flag", g, w)
		}
		if other, ok := words[w]; ok {
			t.Errorf("%v: the same word %#x as %s", g, w, other)
		}
		words[w] = name
		if s.word(g.kind, g.loc, g.c2, g.c1) != w {
			t.Errorf("%v: the word depends on the order of the contexts", g)
		}
	}
}
