package learn

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/shuffle"
	"github.com/licorice-dev/licorice/shuffle/apps"
	"github.com/licorice-dev/licorice/traces"
	"github.com/licorice-dev/licorice/traces/tracetest"
)

// generated writes n tracetest traces (seeds from seed) to a temporary
// directory and returns their paths.
func generated(t testing.TB, n int, seed int64) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := range n {
		tr := tracetest.Generate(tracetest.Small(seed + int64(i)))
		path := filepath.Join(dir, fmt.Sprintf("gen-%03d.jsonl", i))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Encode(f, traces.JSONL); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// recorded records runs of an app (correct and crashed ones) and returns
// the trace paths; recordings are shared by the tests of one run.
func recorded(t testing.TB, app string, runs, actions int) []string {
	t.Helper()
	return recordedWith(t, app, runs, actions, 1, 0.5)
}

// recordedWith is recorded with the first run's seed and the fraction of
// shuffled runs.
func recordedWith(t testing.TB, app string, runs, actions int, seed int64, shuffled float64) []string {
	t.Helper()
	key := fmt.Sprintf("%s/%d/%d/%d/%v", app, runs, actions, seed, shuffled)
	recMu.Lock()
	defer recMu.Unlock()
	if paths, ok := recordings[key]; ok {
		return paths
	}
	a, ok := apps.Lookup(app)
	if !ok {
		t.Fatalf("no app %s", app)
	}
	dir, err := os.MkdirTemp("", "learn-"+app+"-")
	if err != nil {
		t.Fatal(err)
	}
	recDirs = append(recDirs, dir)
	b := shuffle.Batch{App: app, Main: a.Main, Dir: dir, Runs: runs, Actions: actions, Shuffled: shuffled, Seed: seed, Format: traces.LCT, NoSource: true}
	sums, err := b.Record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range sums {
		paths = append(paths, s.File)
	}
	recordings[key] = paths
	return paths
}

var (
	recMu      sync.Mutex
	recordings = map[string][]string{}
	recDirs    []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range recDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func learnSpec(t testing.TB, paths []string, opts Options) *Spec {
	t.Helper()
	return learnResult(t, paths, opts).Spec
}

func learnResult(t testing.TB, paths []string, opts Options) *Result {
	t.Helper()
	res, err := Learn(context.Background(), paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func encode(t testing.TB, sp *Spec) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := sp.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// reparse sends a spec through its file form.
func reparse(t testing.TB, sp *Spec) *Spec {
	t.Helper()
	out, err := ParseSpec("spec.json", encode(t, sp))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMergeEqualsLearningOnAll: learning on shards and merging (through
// the spec files) gives the spec of learning on all traces, byte for byte,
// on random splits of generated and of app traces.
func TestMergeEqualsLearningOnAll(t *testing.T) {
	cat := testCatalog(t)
	corpora := map[string][]string{
		"generated": generated(t, 8, 100),
		"mytracks":  recorded(t, "mytracks", 10, 150),
	}
	splits := 4
	if testing.Short() {
		splits = 2
	}
	for name, paths := range corpora {
		t.Run(name, func(t *testing.T) {
			opts := Options{Catalog: cat, Mergeable: true}
			want := encode(t, learnSpec(t, paths, opts))
			r := rand.New(rand.NewPCG(uint64(len(paths)), 9))
			for split := range splits {
				k := 2 + split%2
				shards := make([][]string, k)
				for i, j := range r.Perm(len(paths)) {
					shards[i%k] = append(shards[i%k], paths[j])
				}
				var specs []*Spec
				for _, sh := range shards {
					specs = append(specs, reparse(t, learnSpec(t, sh, opts)))
				}
				merged, err := Merge(specs...)
				if err != nil {
					t.Fatal(err)
				}
				if got := encode(t, merged); !bytes.Equal(got, want) {
					t.Fatalf("split %d into %d shards: merged spec differs from learning on all\n%s", split, k, firstDiff(got, want))
				}
			}
		})
	}
}

// appShaped writes n traces of the generator's app shape of the given
// number of events, with shorter worker threads: handlers that read many
// data, most pairs of which meet once.
func appShaped(t testing.TB, n, events int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("app-%03d.lct", i))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := tracetest.App(events, int64(i+1))
		cfg.WorkerActions = 100
		if err := tracetest.Generate(cfg).Encode(f, traces.LCT); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// learnedConditions lists a spec's conditions with their support and
// confidence.
func learnedConditions(sp *Spec) []string {
	var out []string
	for _, c := range sp.Conditions() {
		out = append(out, fmt.Sprintf("%s support=%d confidence=%v", c.Text(), c.Support, c.Confidence))
	}
	return out
}

// TestPartialState: learning only what can reach the support (the
// default) learns the same conditions as keeping every datum and pair,
// from a spec whose state is a fraction of it, which says so; such specs
// merge only by force.
func TestPartialState(t *testing.T) {
	corpora := map[string][]string{
		"app":       appShaped(t, 4, 600),
		"generated": generated(t, 8, 100),
	}
	for name, paths := range corpora {
		t.Run(name, func(t *testing.T) {
			for _, cat := range []*invariants.Catalog{nil, testCatalog(t)} {
				full := learnResult(t, paths, Options{Catalog: cat, Mergeable: true})
				part := learnResult(t, paths, Options{Catalog: cat})
				if a, b := learnedConditions(full.Spec), learnedConditions(part.Spec); !slices.Equal(a, b) {
					t.Fatalf("user templates %v: conditions differ:\nwhole state: %q\npartial:     %q", cat != nil, a, b)
				}
				if name == "app" && !slices.ContainsFunc(full.Spec.Conditions(), func(c *Condition) bool { return len(c.Vars) == 2 }) {
					t.Fatal("no condition of a pair learned")
				}
				if full.Spec.Params.PartialState || !part.Spec.Params.PartialState {
					t.Fatalf("partial_state: %v with the whole state, %v without", full.Spec.Params.PartialState, part.Spec.Params.PartialState)
				}
				pairs := func(sp *Spec) (n int) {
					for _, h := range sp.Handlers {
						n += len(h.LearningState().Pairs)
					}
					return n
				}
				whole, kept := pairs(full.Spec), pairs(part.Spec)
				if int64(kept) != part.PairsKept || part.PairsKept > part.PairsSupported || part.PairsSupported >= part.PairsMet || part.PairsMet != int64(whole) {
					t.Fatalf("pairs: %d in the whole state, %d kept (result: %d kept of %d supported of %d met)", whole, kept, part.PairsKept, part.PairsSupported, part.PairsMet)
				}
				t.Logf("user templates %v: %d pairs in the whole state, %d kept; spec %d bytes, %d", cat != nil, whole, kept, len(encode(t, full.Spec)), len(encode(t, part.Spec)))
				if cat == nil {
					back := reparse(t, part.Spec)
					if !back.Params.PartialState {
						t.Fatal("partial_state lost in the spec file")
					}
					if _, err := Merge(back, reparse(t, full.Spec)); err == nil || !strings.Contains(err.Error(), "--mergeable") {
						t.Fatalf("merging a partial state: %v, want a refusal that names --mergeable", err)
					}
					m, err := MergeWith(MergeOptions{Force: true}, back)
					if err != nil || !m.Params.PartialState {
						t.Fatalf("forced merge: %v, partial_state %v", err, m != nil && m.Params.PartialState)
					}
				}
			}
		})
	}
}

// testCatalog has a user template of each arity, so that merging covers
// user state too.
func testCatalog(t testing.TB) *invariants.Catalog {
	t.Helper()
	var us []*invariants.UserTemplate
	for _, d := range []invariants.TemplateDecl{
		{Name: "even", Types: []string{"int"}, Expr: "x % 2 == 0"},
		{Name: "gap", Types: []string{"number"}, Expr: "y - x", Fitter: "bounds"},
	} {
		u, err := invariants.CompileTemplate(d)
		if err != nil {
			t.Fatal(err)
		}
		us = append(us, u)
	}
	cat, err := invariants.NewCatalog(us...)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(la), len(lb))
}

// TestDeterministic: the spec does not depend on how many traces are read
// at once, nor on their order.
func TestDeterministic(t *testing.T) {
	paths := append(generated(t, 6, 7), recorded(t, "mytracks", 10, 150)...)
	want := encode(t, learnSpec(t, paths, Options{Workers: 1}))
	rev := slices.Clone(paths)
	slices.Reverse(rev)
	for _, j := range []int{2, 4} {
		if got := encode(t, learnSpec(t, rev, Options{Workers: j})); !bytes.Equal(got, want) {
			t.Fatalf("-j %d, reversed order: spec differs\n%s", j, firstDiff(got, want))
		}
	}
}

// TestCutsTracesAtErrors: a trace with an error op is learned from up to
// it. errored.jsonl has one tick that returned (n = 4) before the one that
// failed (n = 99), which returns after the error and gives no sample.
func TestCutsTracesAtErrors(t *testing.T) {
	res, err := Learn(context.Background(), []string{"testdata/traces/box.jsonl", "testdata/traces/errored.jsonl"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Traces != 2 || len(res.Cut) != 1 {
		t.Fatalf("traces %d, cut %v", res.Traces, res.Cut)
	}
	if c := res.Cut[0]; c.Path != "testdata/traces/errored.jsonl" || c.Line != 17 || c.Msg != "AssertionError: n too large" {
		t.Errorf("cut: %+v", c)
	}
	h := res.Spec.Handler("Box.tick")
	if h.Samples != 41 || h.Traces != 2 {
		t.Errorf("Box.tick: %d samples, %d traces, want 41 and 2", h.Samples, h.Traces)
	}
	if max := h.LearningState().Vars["this.n"].Max.Value(); !invariants.Equal(max, invariants.IntValue(5)) || max.Kind() != invariants.Int {
		t.Errorf("Box.tick: this.n up to %v, want 5: the failing tick's 99 was learned", max)
	}
	if len(res.Spec.Inputs) != 2 {
		t.Errorf("inputs %v, want both traces", res.Spec.Inputs)
	}

	// The error shows in a later event, which the bad tick posted: the
	// failing task's causes are left out too, and what ran before them
	// (the good tick) is learned.
	res, err = Learn(context.Background(), []string{"testdata/traces/box.jsonl", "testdata/traces/errored-later.jsonl"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h = res.Spec.Handler("Box.tick")
	if len(res.Cut) != 1 || h.Samples != 41 {
		t.Errorf("cut %v, Box.tick %d samples; want 1 cut and 41 samples", res.Cut, h.Samples)
	}
	if max := h.LearningState().Vars["this.n"].Max.Value(); !invariants.Equal(max, invariants.IntValue(5)) || max.Kind() != invariants.Int {
		t.Errorf("Box.tick: this.n up to %v, want 5: the tick that caused the failure was learned", max)
	}

	// From standard input, which cannot be read again, a trace with an
	// error is left out whole.
	f, err := os.Open("testdata/traces/errored-later.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err = Learn(context.Background(), []string{"testdata/traces/box.jsonl", "-"}, Options{Stdin: f})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cut) != 1 || !res.Cut[0].Whole || res.Traces != 1 || res.Spec.Handler("Box.tick").Samples != 40 {
		t.Errorf("from stdin: cut %+v, %d traces, %d samples; want it whole, 1 trace, 40 samples", res.Cut, res.Traces, res.Spec.Handler("Box.tick").Samples)
	}
}

func conditionTexts(sp *Spec) []string {
	var out []string
	for _, c := range sp.Conditions() {
		out = append(out, c.Text())
	}
	return out
}

func TestInvalidTraceStops(t *testing.T) {
	_, err := Learn(context.Background(), []string{"testdata/traces/box.jsonl", "testdata/traces/invalid.jsonl"}, Options{})
	if err == nil || !strings.Contains(err.Error(), "testdata/traces/invalid.jsonl:4:") {
		t.Fatalf("err = %v, want the invalid trace's file and line", err)
	}
	if _, err := Learn(context.Background(), []string{"testdata/traces/missing.jsonl"}, Options{}); err == nil {
		t.Fatal("a missing trace is no error")
	}
	if _, err := Learn(context.Background(), nil, Options{}); err == nil {
		t.Fatal("no traces is no error")
	}
}

// TestAbstractTypesPrune: Box.tick's n and k are always equal but never
// meet in a comparison, so no condition relates them; n and m do.
func TestAbstractTypesPrune(t *testing.T) {
	got := conditionTexts(learnSpec(t, []string{"testdata/traces/box.jsonl"}, Options{}))
	if !slices.Contains(got, "Box.tick: this.n == this.m - 1") {
		t.Errorf("related data: no linear condition in %q", got)
	}
	for _, c := range got {
		if strings.Contains(c, "this.k") && strings.Contains(c, "this.n") {
			t.Errorf("condition between unrelated data: %s", c)
		}
	}
	h := learnSpec(t, []string{"testdata/traces/box.jsonl"}, Options{}).Handler("Box.tick")
	for _, p := range h.LearningState().Pairs {
		if p.X == "this.k" || p.Y == "this.k" {
			t.Errorf("pair state between unrelated data: (%s, %s)", p.X, p.Y)
		}
	}
}

func TestSpecRoundTrip(t *testing.T) {
	sp := learnSpec(t, recorded(t, "mytracks", 10, 150), Options{Catalog: testCatalog(t)})
	a := encode(t, sp)
	if b := encode(t, reparse(t, sp)); !bytes.Equal(a, b) {
		t.Fatalf("spec does not survive its file form\n%s", firstDiff(b, a))
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := sp.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSpecFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b := encode(t, back); !bytes.Equal(a, b) {
		t.Fatal("spec file differs")
	}
}

// TestMergeKeepsEdits: a user's disabled, deleted and pinned conditions
// survive a merge.
func TestMergeKeepsEdits(t *testing.T) {
	paths := recorded(t, "mytracks", 10, 150)
	a := reparse(t, learnSpec(t, paths[:5], Options{Mergeable: true}))
	b := reparse(t, learnSpec(t, paths[5:], Options{Mergeable: true}))
	var h *Handler
	for _, hh := range a.Handlers {
		if len(hh.Conditions) >= 2 {
			h = hh
			break
		}
	}
	if h == nil {
		t.Fatal("no handler with two conditions to edit")
	}
	disabled, deleted := h.Conditions[0].key(), h.Conditions[1].key()
	h.Conditions[0].Disabled = true
	h.Conditions = slices.Delete(h.Conditions, 1, 2) // the second is deleted
	// A pinned condition the data do not support: added by hand.
	text := encode(t, a)
	at := bytes.Index(text, []byte(`"handler": "`+h.Name+`"`))
	at += bytes.Index(text[at:], []byte(`"conditions": [`)) + len(`"conditions": [`)
	edited := slices.Concat(text[:at],
		[]byte(`{"text": "", "template": "const", "vars": ["this.trackID"], "constants": {"a": 42}, "support": 0, "confidence": 0, "pinned": true},`),
		text[at:])
	pinned, err := ParseSpec("edited.json", edited)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge(pinned, b)
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]string{}
	for _, hh := range m.Handlers {
		for _, c := range hh.Conditions {
			flags[c.Text()] = fmt.Sprintf("disabled=%v pinned=%v", c.Disabled, c.Pinned)
			if hh.Name == h.Name && (c.key() == disabled || c.key() == deleted) {
				if !c.Disabled {
					t.Errorf("%s: edited off, but enabled after the merge", c.Text())
				}
			}
		}
	}
	if f := flags[h.Name+": this.trackID == 42"]; f != "disabled=false pinned=true" {
		t.Errorf("pinned condition after the merge: %q", f)
	}
	if n := strings.Count(fmt.Sprint(flags), "disabled=true"); n != 2 {
		t.Errorf("%d disabled conditions after the merge, want 2: %v", n, flags)
	}
}

func TestMergeRefusesMismatches(t *testing.T) {
	paths := recorded(t, "mytracks", 10, 150)
	a := learnSpec(t, paths[:3], Options{Mergeable: true})
	b := learnSpec(t, paths[3:6], Options{Limit: 0.05, Mergeable: true})
	if _, err := Merge(a, b); err == nil || !strings.Contains(err.Error(), "--confidence") {
		t.Errorf("different limits: %v", err)
	}
	c := learnSpec(t, paths[3:6], Options{Catalog: testCatalog(t), Mergeable: true})
	if _, err := Merge(a, c); err == nil || !strings.Contains(err.Error(), "--templates") {
		t.Errorf("different templates: %v", err)
	}
	stripped := reparse(t, a)
	stripped.Handlers[0].State = nil
	if _, err := MergeWith(MergeOptions{Force: true}, stripped, a); err == nil || !strings.Contains(err.Error(), "no learning state") {
		t.Errorf("no state: %v", err)
	}
	// Provenance: a spec merged with itself, or with a shard that shares
	// a trace, would count samples twice; specs of two apps describe two
	// programs.
	if _, err := Merge(a, reparse(t, a)); err == nil || !strings.Contains(err.Error(), "specs 1 and 2 were both learned from trace") {
		t.Errorf("a spec with itself: %v", err)
	}
	overlap := learnSpec(t, paths[2:5], Options{Mergeable: true})
	if _, err := Merge(a, overlap); err == nil || !strings.Contains(err.Error(), "count its samples twice") {
		t.Errorf("overlapping shards: %v", err)
	}
	other := learnSpec(t, recorded(t, "vlc", 3, 100), Options{Mergeable: true})
	if _, err := Merge(a, other); err == nil || !strings.Contains(err.Error(), "different apps (android/mytracks, android/vlc)") {
		t.Errorf("two apps: %v", err)
	}
	if m, err := MergeWith(MergeOptions{Force: true}, a, other); err != nil || len(m.Apps) != 2 {
		t.Errorf("two apps, forced: %v, %v", m, err)
	}
}

// TestRealize: detection's view. Replaying a training trace, every
// realized condition of every event holds on the values the event began
// with, and onUpdateResults realizes dataHub != null on its activity.
func TestRealize(t *testing.T) {
	paths := recorded(t, "mytracks", 10, 150)
	sp := learnSpec(t, paths, Options{})
	found := 0
	for _, path := range paths {
		r, err := traces.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		syms := r.Symbols()
		s, rz := NewSampler(syms), NewRealizer(sp, syms)
		var op traces.Op
		crashed := false
		var realized []Realized
		for r.Next(&op) == nil {
			if op.Kind == traces.Error {
				crashed = true
				break
			}
			inv := s.Step(&op)
			if inv == nil {
				continue
			}
			realized = rz.Realize(inv, realized[:0])
			for _, rc := range realized {
				if holds, ok := rc.Cond.EvalTrace(rc.Vals, syms); !holds || !ok {
					t.Fatalf("%s: %s is false on %v at line %d", path, rc.Cond.Text(), rc.Vals, r.Line())
				}
				if rc.Cond.Text() == "TrackDetailActivity.onUpdateResults: this.dataHub != null" {
					found++
					if loc := rc.Locs[0]; syms.String(loc.Field) != "dataHub" || loc.Static {
						t.Errorf("dataHub bound to %v", loc)
					}
				}
			}
		}
		r.Close()
		_ = crashed
	}
	if found == 0 {
		t.Error("onUpdateResults' dataHub condition was never realized")
	}
}

// Options.Ops hears of every op read: each op of a trace once, and a
// trace with an error op twice up to it (to find the error's causes, then
// to learn up to it), and perhaps further (reading ahead).
func TestOpsProgress(t *testing.T) {
	// count returns the ops of a trace, and those up to its first error
	// op (all if none).
	count := func(path string) (all, toError int64) {
		r, err := traces.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var op traces.Op
		for {
			if err := r.Next(&op); err == io.EOF {
				if toError == 0 {
					toError = all
				}
				return all, toError
			} else if err != nil {
				t.Fatal(err)
			}
			all++
			if op.Kind == traces.Error && toError == 0 {
				toError = all
			}
		}
	}
	box, errored := "testdata/traces/box.jsonl", "testdata/traces/errored.jsonl"
	b, _ := count(box)
	e, toError := count(errored)
	if e == toError {
		t.Fatalf("%s: no op after its error op", errored)
	}
	// Each trace is read once per pass: twice unless the whole state is
	// kept.
	for _, opts := range []Options{{Mergeable: true}, {}} {
		passes := int64(opts.Passes([]string{box}))
		heard := func(paths ...string) int64 {
			var ops atomic.Int64
			opts.Ops = func(n int) { ops.Add(int64(n)) }
			if _, err := Learn(context.Background(), paths, opts); err != nil {
				t.Fatal(err)
			}
			return ops.Load()
		}
		if got := heard(box, box); got != passes*2*b {
			t.Errorf("%d passes, box twice: %d ops heard of, want %d", passes, got, passes*2*b)
		}
		if got, lo, hi := heard(box, errored), passes*(b+2*toError), passes*(b+2*e); got < lo || got > hi {
			t.Errorf("%d passes, box and errored: %d ops heard of, want %d to %d", passes, got, lo, hi)
		}
	}
	if n := (Options{}).Passes([]string{box}); n != 2 {
		t.Errorf("learning %s reads it %d times, want 2", box, n)
	}
}
