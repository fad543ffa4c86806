package learn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceFormatExample learns from the minimal example trace of
// docs/trace-format.md and finds the condition the document says it does.
func TestTraceFormatExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "trace-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = `<!-- example: learns "Act.onClick: this.adapter != null" (TestTraceFormatExample) -->`
	_, rest, ok := strings.Cut(string(doc), marker+"\n```jsonl\n")
	if !ok {
		t.Fatal("docs/trace-format.md has no example after its marker")
	}
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("the example's block does not end")
	}
	path := filepath.Join(t.TempDir(), "example.jsonl")
	if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Learn(context.Background(), []string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Spec.Conditions() {
		got = append(got, c.Text())
	}
	if len(got) != 1 || got[0] != "Act.onClick: this.adapter != null" {
		t.Errorf("learned %q, want the one condition the document names", got)
	}
}
