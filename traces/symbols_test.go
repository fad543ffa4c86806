package traces

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestSymbolsAgainstMap checks the interning table against a plain map,
// through growth and resets.
func TestSymbolsAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	syms := NewSymbols()
	ref := map[string]Sym{}
	var names []string
	// Strings handed out stay as they were, whatever the table does next.
	type handedOut struct{ got, want string }
	var kept []handedOut
	for round := range 3 {
		for i := range 20000 {
			var s string
			switch rng.IntN(4) {
			case 0:
				s = strconv.Itoa(rng.IntN(30000))
			case 1:
				s = "o" + strconv.Itoa(i)
			case 2: // around arenaMaxString, to fill chunks and pass them
				s = strings.Repeat("x", arenaMaxString-4+rng.IntN(8)) + strconv.Itoa(rng.IntN(100))
			default:
				if len(names) > 0 {
					s = names[rng.IntN(len(names))]
				}
			}
			var y Sym
			if rng.IntN(2) == 0 {
				y = syms.Intern(s)
			} else {
				y = syms.InternBytes([]byte(s))
			}
			if s == "" {
				if y != NoSym {
					t.Fatalf("Intern(\"\") = %d", y)
				}
				continue
			}
			if want, ok := ref[s]; ok {
				if y != want {
					t.Fatalf("round %d: Intern(%q) = %d, first %d", round, s, y, want)
				}
			} else {
				if int(y) != len(ref)+1 {
					t.Fatalf("round %d: new string %q got Sym %d, want %d", round, s, y, len(ref)+1)
				}
				ref[s] = y
				names = append(names, s)
			}
			if syms.String(y) != s {
				t.Fatalf("String(%d) = %q, want %q", y, syms.String(y), s)
			}
		}
		if syms.Len() != len(ref)+1 {
			t.Fatalf("Len() = %d, want %d", syms.Len(), len(ref)+1)
		}
		for s, y := range ref {
			if got, ok := syms.Lookup(s); !ok || got != y {
				t.Fatalf("Lookup(%q) = %d, %v; want %d", s, got, ok, y)
			}
		}
		if _, ok := syms.Lookup("not there"); ok {
			t.Fatal("Lookup of a string never interned succeeded")
		}
		for range 50 {
			s := names[rng.IntN(len(names))]
			kept = append(kept, handedOut{syms.String(ref[s]), strings.Clone(s)})
		}
		for _, k := range kept {
			if k.got != k.want {
				t.Fatalf("round %d: a string handed out earlier changed from %q to %q", round, k.want, k.got)
			}
		}
		gen := syms.Generation()
		syms.Reset()
		if syms.Generation() != gen+1 || syms.Len() != 1 {
			t.Fatalf("after Reset: generation %d, Len %d", syms.Generation(), syms.Len())
		}
		for s := range ref {
			if _, ok := syms.Lookup(s); ok {
				t.Fatalf("Lookup(%q) succeeded after Reset", s)
			}
		}
		clear(ref)
		names = names[:0]
	}
}

func BenchmarkIntern(b *testing.B) {
	keys := make([][]byte, 1<<17)
	for i := range keys {
		keys[i] = []byte("com.example.Object#" + strconv.Itoa(i))
	}
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			syms := NewSymbols()
			for _, k := range keys {
				syms.InternBytes(k)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/string")
	})
	b.Run("known", func(b *testing.B) {
		syms := NewSymbols()
		for _, k := range keys {
			syms.InternBytes(k)
		}
		for b.Loop() {
			for _, k := range keys {
				syms.InternBytes(k)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/string")
	})
}

// TestInternSpans checks that interning a block's strings in groups
// issues the Syms that interning them one by one does, in the same
// order: through repeats within and across groups, long strings, and the
// growth of the table in the middle of a group.
func TestInternSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	groups, one := NewSymbols(), NewSymbols()
	for block := range 200 {
		var raw []byte
		var spans []strSpan
		for range 1 + rng.IntN(300) {
			var s string
			switch rng.IntN(4) {
			case 0: // a string of an earlier block, or of this one
				s = "r" + strconv.Itoa(rng.IntN(500))
			case 1:
				s = strings.Repeat("l", arenaMaxString+rng.IntN(3))
			default:
				s = "b" + strconv.Itoa(block) + "." + strconv.Itoa(rng.IntN(1000))
			}
			spans = append(spans, strSpan{uint32(len(raw)), uint32(len(raw) + len(s))})
			raw = append(raw, s...)
		}
		got := groups.internSpans(raw, spans, []Sym{NoSym})
		if got[0] != NoSym || len(got) != len(spans)+1 {
			t.Fatalf("block %d: internSpans returned %d Syms for %d strings, first %d", block, len(got), len(spans), got[0])
		}
		for i, sp := range spans {
			want := one.InternBytes(raw[sp.start:sp.end])
			if got[i+1] != want {
				t.Fatalf("block %d, string %d (%q): Sym %d, one by one %d", block, i, raw[sp.start:sp.end], got[i+1], want)
			}
			if s := groups.String(got[i+1]); s != string(raw[sp.start:sp.end]) {
				t.Fatalf("block %d, string %d: Sym %d is %q", block, i, got[i+1], s)
			}
		}
	}
}
