package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// stateLike is JSON like a spec's learning state: many small objects of
// numbers and short strings.
func stateLike(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"pairs": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"v%d|w%d": {"n": %d, "min": -1.5e3, "max": 42, "vals": ["a", "b\"c"], "eq": true}`, i, i, i)
	}
	b.WriteString("}}")
	return []byte(b.String())
}

func BenchmarkValid(b *testing.B) {
	data := stateLike(10000)
	for _, f := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jsonscan", Valid}, {"encoding-json", json.Valid}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if !f.valid(data) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
