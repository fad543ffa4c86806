package detect

import (
	"context"
	"os"
	"testing"

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
