package detect

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/licorice-dev/licorice/learn"
)

// FuzzSpec runs detect and spec check with a fuzzed spec over the demo
// trace: a spec that parses is used without a panic, whatever its
// conditions say (a spec is untrusted input, like a trace).
func FuzzSpec(f *testing.F) {
	const trace = "testdata/demo.jsonl"
	for _, seed := range []string{"testdata/demo.spec.json", "../cmd/licorice/testdata/learn/box.spec.json"} {
		if b, err := os.ReadFile(seed); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sp, err := learn.ParseSpec("f.json", data)
		if err != nil {
			return
		}
		ctx := context.Background()
		if _, err := Detect(ctx, sp, []string{trace}, Options{Workers: 1, Explain: DefaultExplain, AllowMismatch: true}); err != nil {
			t.Fatalf("detect: %v", err)
		}
		if _, err := learn.Check(ctx, sp, []string{trace}, learn.CheckOptions{Workers: 1}); err != nil {
			t.Fatalf("spec check: %v", err)
		}
	})
}

// FuzzStreams widens TestStreamsAgainstAll: on a random timed trace of
// the seed, with the window, advance and pruning intervals fuzzed, the
// streams find what checking every touch at the end finds.
func FuzzStreams(f *testing.F) {
	f.Add(uint64(1), uint16(40), uint8(1), uint8(1))
	f.Add(uint64(266), uint16(600), uint8(3), uint8(4))
	sp := randomSpec(f)
	f.Fuzz(func(t *testing.T, seed uint64, windowMS uint16, every, pruneAt uint8) {
		rng := rand.New(rand.NewPCG(seed, 11))
		path := randomScriptOn(startScript(&script{timed: true}), rng).file(t, t.TempDir(), "f.jsonl")
		window := time.Duration(windowMS) * time.Millisecond
		passesAllWith(t, sp, path, window, passOptions{projectAt: maxProjected, advanceEvery: 1 + int(every%8), pruneAt: 1 + int(pruneAt%8)})
	})
}
