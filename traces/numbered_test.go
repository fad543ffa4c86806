package traces

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestNumKey(t *testing.T) {
	for _, c := range []struct {
		s      string
		prefix string
		n      uint32
		ok     bool
	}{
		{"E1", "E", 1, true},
		{"o0", "o", 0, true},
		{"0", "", 0, true},
		{"123", "", 123, true},
		{"field12", "field", 12, true},
		{"abcdefg99999999", "abcdefg", 99999999, true},
		{"é7", "é", 7, true},
		{"x-5", "x-", 5, true},
		{"E", "", 0, false},          // no digits
		{"E1x", "", 0, false},        // not at the end
		{"E01", "", 0, false},        // leading zero
		{"E00", "", 0, false},        // leading zero
		{"E100000000", "", 0, false}, // 9 digits
		{"abcdefgh1", "", 0, false},  // prefix too long
		{"", "", 0, false},
	} {
		key, n, ok := numKey(c.s)
		if ok != c.ok || n != c.n {
			t.Errorf("numKey(%q) = %#x, %d, %v; want %d, %v", c.s, key, n, ok, c.n, c.ok)
			continue
		}
		if ok {
			want, _, _ := numKey(c.prefix + "0")
			if key != want || key == 0 {
				t.Errorf("numKey(%q): key %#x, key of prefix %q %#x", c.s, key, c.prefix, want)
			}
		}
	}
	// Prefixes that differ only in length have different keys.
	a, _, _ := numKey("1")
	b, _, _ := numKey("\x001")
	if a == b {
		t.Errorf(`numKey("1") and numKey("\x001") share the key %#x`, a)
	}
}

// numKeySlow is numKey the obvious way: the prefix, the number and ok.
func numKeySlow(s string) (key uint64, n uint32, ok bool) {
	i := len(s)
	for i > 0 && '0' <= s[i-1] && s[i-1] <= '9' {
		i--
	}
	digits := s[i:]
	if len(digits) == 0 || len(digits) > numMaxDigits || i > numMaxPrefix || (len(digits) > 1 && digits[0] == '0') {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 32)
	if err != nil {
		panic(err)
	}
	key = uint64(i+1) << 56
	for j := range i {
		key |= uint64(s[j]) << (8 * j)
	}
	return key, uint32(v), true
}

// checkNumKey compares numKey with numKeySlow.
func checkNumKey(t *testing.T, s string) {
	t.Helper()
	key, n, ok := numKeySlow(s)
	if k, m, o := numKey(s); k != key || m != n || o != ok {
		t.Fatalf("numKey(%q) = %#x, %d, %v; want %#x, %d, %v", s, k, m, o, key, n, ok)
	}
}

// TestNumKeyAgainstSlow: numKey, which parses the number as it finds its
// digits, agrees with the obvious way on strings heavy in digits.
func TestNumKeyAgainstSlow(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := []string{"0", "1", "5", "9", "0", "3", "7", "a", "Z", "-", "/", ":", "é", "\x00", "\x7f", "\xff"}
	some := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	n := 300_000
	if testing.Short() {
		n = 30_000
	}
	for range n {
		s := some(rng.IntN(20))
		if rng.IntN(2) == 0 { // mostly numbered
			s = some(rng.IntN(9)) + strconv.Itoa(rng.IntN(1<<rng.IntN(31)))
		}
		checkNumKey(t, s)
	}
}

func FuzzNumKey(f *testing.F) {
	for _, s := range []string{"E1", "o0", "0", "E01", "abcdefg99999999", "ab123456789", "x-5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNumKey(t, s)
	})
}

// numberedStrings makes strings for the interning tests: mostly numbered
// ids of a few prefixes, dense, sparse, out of order, with a leading zero,
// too long; some of many prefixes, more than the table of prefixes takes;
// some not numbered.
type numberedStrings struct {
	rng  *rand.Rand
	next map[string]int
}

func (g *numberedStrings) string() string {
	prefixes := []string{"", "E", "o", "m", "field", "abcdefg", "abcdefgh", "x-", "é"}
	var p string
	if g.rng.IntN(10) == 0 {
		p = "p" + strconv.Itoa(g.rng.IntN(100)) + "_" // 100 prefixes
	} else {
		p = prefixes[g.rng.IntN(len(prefixes))]
	}
	n := g.next[p]
	switch r := g.rng.IntN(100); {
	case r < 60: // the next number
		g.next[p]++
	case r < 80: // a recent one
		n -= g.rng.IntN(min(n, 600) + 1)
	case r < 88: // far ahead
		n += g.rng.IntN(5000)
		if g.rng.IntN(4) == 0 {
			g.next[p] = n + 1
		}
	case r < 92:
		return p + "0" + strconv.Itoa(n)
	case r < 94:
		return p + strconv.Itoa(100_000_000+n)
	case r < 96:
		return p + strconv.Itoa(n) + "z"
	default:
		n = g.rng.IntN(100_000_000)
	}
	return p + strconv.Itoa(n)
}

// TestSymbolsNumbered checks the table against a plain map on strings
// that are mostly numbered ids, interned through Intern, InternBytes and
// internSpans and looked up, through resets: one Sym per distinct string,
// issued in order.
func TestSymbolsNumbered(t *testing.T) {
	rounds, per := 4, 40000
	if testing.Short() {
		per = 10000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	g := &numberedStrings{rng: rng, next: map[string]int{}}
	syms := NewSymbols()
	ref := map[string]Sym{}
	check := func(s string, y Sym) {
		t.Helper()
		if want, ok := ref[s]; ok {
			if y != want {
				t.Fatalf("Sym of %q is %d, first %d", s, y, want)
			}
		} else {
			if int(y) != len(ref)+1 {
				t.Fatalf("new string %q got Sym %d, want %d", s, y, len(ref)+1)
			}
			ref[s] = y
		}
		if got := syms.String(y); got != s {
			t.Fatalf("String(%d) = %q, want %q", y, got, s)
		}
	}
	for round := range rounds {
		for len(ref) < per {
			switch rng.IntN(4) {
			case 0:
				s := g.string()
				check(s, syms.Intern(s))
			case 1:
				s := g.string()
				check(s, syms.InternBytes([]byte(s)))
			case 2:
				var raw []byte
				var spans []strSpan
				var strs []string
				for range 1 + rng.IntN(80) {
					s := g.string()
					spans = append(spans, strSpan{uint32(len(raw)), uint32(len(raw) + len(s))})
					raw = append(raw, s...)
					strs = append(strs, s)
				}
				got := syms.internSpans(raw, spans, nil)
				for i, s := range strs {
					check(s, got[i])
				}
			default:
				s := g.string()
				y, ok := syms.Lookup(s)
				if want, in := ref[s]; ok != in || y != want {
					t.Fatalf("round %d: Lookup(%q) = %d, %v; want %d, %v", round, s, y, ok, want, in)
				}
			}
		}
		if syms.Len() != len(ref)+1 {
			t.Fatalf("Len() = %d, want %d", syms.Len(), len(ref)+1)
		}
		for s, y := range ref {
			if got, ok := syms.Lookup(s); !ok || got != y {
				t.Fatalf("round %d: Lookup(%q) = %d, %v; want %d", round, s, got, ok, y)
			}
		}
		syms.Reset()
		for s := range ref {
			if _, ok := syms.Lookup(s); ok {
				t.Fatalf("Lookup(%q) succeeded after Reset", s)
			}
		}
		clear(ref)
		clear(g.next)
	}
}

// TestNumberedRangeGrowsOverHashed: a number too far ahead for its
// prefix's array goes to the hash table; once the array has grown over
// it, the string still has its first Sym.
func TestNumberedRangeGrowsOverHashed(t *testing.T) {
	syms := NewSymbols()
	first := syms.Intern("g100")
	far := syms.Intern("g2000")
	key, _, _ := numKey("g0")
	a := syms.numFor(key, false)
	if uint64(2000-a.base) < uint64(len(a.syms)) || a.hashLo != 2000 || a.hashHi != 2000 {
		t.Fatalf("g2000 should be in the hash table: array [%d, %d), hashed %d..%d", a.base, int(a.base)+len(a.syms), a.hashLo, a.hashHi)
	}
	for n := 101; n < 2100; n++ {
		syms.Intern("g" + strconv.Itoa(n))
	}
	if uint64(2000-a.base) >= uint64(len(a.syms)) {
		t.Fatalf("the array [%d, %d) did not grow over 2000", a.base, int(a.base)+len(a.syms))
	}
	if y := syms.Intern("g2000"); y != far {
		t.Errorf("g2000 is now %d, first %d", y, far)
	}
	if y := syms.InternBytes([]byte("g2000")); y != far {
		t.Errorf("InternBytes(g2000) is now %d, first %d", y, far)
	}
	if y, ok := syms.Lookup("g2000"); !ok || y != far {
		t.Errorf("Lookup(g2000) = %d, %v; want %d", y, ok, far)
	}
	if got := syms.internSpans([]byte("g100g2000"), []strSpan{{0, 4}, {4, 9}}, nil); got[0] != first || got[1] != far {
		t.Errorf("internSpans = %v, want [%d %d]", got, first, far)
	}
	if syms.Len() != 2001 {
		t.Errorf("Len() = %d, want 2001", syms.Len())
	}
}

// TestNumberedMemory: the arrays of numbered ids stay proportional to the
// strings they hold, however sparse the numbers.
func TestNumberedMemory(t *testing.T) {
	for _, step := range []int{1, 3, 7, 100, 100_000} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			syms := NewSymbols()
			const n = 20000
			for i := range n {
				syms.Intern("id" + strconv.Itoa(i*step))
				syms.Intern(strings.Repeat("w", 1+i%7) + strconv.Itoa(n-i))
			}
			slots := 0
			for _, e := range syms.numSlots {
				slots += cap(e.syms)
			}
			if max := numMaxSpan(2 * n); slots > max {
				t.Errorf("arrays of %d slots for %d strings (at most %d)", slots, 2*n, max)
			}
			t.Logf("%d array slots, %d hash slots for %d strings", slots, syms.hashed, 2*n)
		})
	}
}

// benchLCT is n ops of the benchmark generator with the given seed, as
// .lct.
func benchLCT(t *testing.T, seed uint64, n int) []byte {
	syms := NewSymbols()
	g := newBenchGen(seed, syms)
	g.resetAt = 1 << 62
	ops := make([]Op, n)
	for i := range ops {
		g.next(&ops[i])
	}
	return encode(t, LCT, &Header{}, ops, syms)
}

// TestSharedSymbols reads two traces whose numbered ids overlap (both
// number their events and objects from 1) with two readers that take
// turns on one shared table, and once more after a Reset in the middle:
// every op reads as it does with a table of its own, and every string has
// one Sym.
func TestSharedSymbols(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 30_000
	}
	files := [][]byte{benchLCT(t, 1, n), benchLCT(t, 2, n)}
	var want [2][]string // each op's canonical text, read alone
	for i, data := range files {
		d := mustDecode(t, data, WithoutValidation())
		for j := range d.ops {
			want[i] = append(want[i], string(AppendCanonical(nil, &d.ops[j], d.syms)))
		}
	}
	for _, resetAt := range []int{-1, n / 3} {
		shared := NewSymbols()
		var rs [2]*Reader
		for i, data := range files {
			r, err := NewReader(bytes.NewReader(data), WithoutValidation(), WithSymbols(shared))
			if err != nil {
				t.Fatal(err)
			}
			rs[i] = r
		}
		var op Op
		for j := range n {
			if j == resetAt {
				shared.Reset()
			}
			for i, r := range rs {
				if err := r.Next(&op); err != nil {
					t.Fatalf("reader %d, op %d: %v", i, j, err)
				}
				if got := string(AppendCanonical(nil, &op, shared)); got != want[i][j] {
					t.Fatalf("reset at %d: reader %d, op %d reads %s, alone %s", resetAt, i, j, got, want[i][j])
				}
				for _, y := range []Sym{op.Task, op.Thread, op.Event, op.Queue, op.Name, op.Loc.Obj, op.Loc.Field, op.Loc2.Obj, op.Loc2.Field, op.Site, op.Type, op.Src} {
					if z, ok := shared.Lookup(shared.String(y)); !ok || z != y {
						t.Fatalf("reset at %d: reader %d, op %d: %q is Sym %d, Lookup gives %d, %v", resetAt, i, j, shared.String(y), y, z, ok)
					}
				}
			}
		}
		for i, r := range rs {
			if err := r.Next(&op); err != io.EOF {
				t.Fatalf("reader %d after %d ops: %v, want EOF", i, n, err)
			}
		}
	}
}
