package tracetest

import (
	"context"
	"os"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

func TestFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Small(3)
	path, err := File(ctx, dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := traces.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := traces.Each(ctx, r, func(*traces.Op) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if want := len(Generate(cfg).Ops); n != want {
		t.Errorf("the file has %d ops, the trace %d", n, want)
	}

	// A second call finds the file and does not write it again.
	stamp := []byte("not rewritten")
	if err := os.WriteFile(path, stamp, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := File(ctx, dir, cfg)
	if err != nil || again != path {
		t.Fatalf("second call: %q, %v; want %q", again, err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != string(stamp) {
		t.Error("the file was written again")
	}

	// Another config, another file; nothing else left in dir.
	other := cfg
	other.Seed++
	if p, err := File(ctx, dir, other); err != nil || p == path {
		t.Fatalf("another config: %q, %v", p, err)
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("%d entries in dir, want 2", len(es))
	}
}
