package learn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/licorice-dev/licorice/internal/parallel"
	"github.com/licorice-dev/licorice/invariants"
	"github.com/licorice-dev/licorice/traces"
)

// Options configure a learning run.
type Options struct {
	// Catalog is the templates to try (nil: the built-ins).
	Catalog *invariants.Catalog
	// Limit is the largest chance a reported condition may have
	// (invariants.DefaultLimit if 0).
	Limit float64
	// MinSupport is the fewest samples a reported condition needs
	// (invariants.DefaultMinSupport if 0).
	MinSupport int64
	// Workers is how many traces are read at once (GOMAXPROCS if 0).
	Workers int
	// Progress, if set, is called after each trace of each pass (Passes)
	// with the number of traces that pass has done; it may be called from
	// several goroutines.
	Progress func(done int)
	// Ops, if set, is called with the number of ops read since its last
	// call, every 65536 ops of any read of a trace (a trace with an error
	// op is read twice): progress within a long trace. It may be called
	// from several goroutines.
	Ops func(n int)
	// KeepSamples keeps every sample in the result, for the Daikon export.
	// Memory then grows with the number of samples; the state is whole
	// (Mergeable).
	KeepSamples bool
	// Mergeable keeps the learning state of every datum and pair of data
	// met, so that the spec merges exactly with specs learned on other
	// traces (Merge). Otherwise, and unless a trace is read from standard
	// input, the traces are read twice: once to count the samples of each
	// datum and pair, once to learn only those met in at least MinSupport
	// samples (invariants.SupportCounter), which is all the conditions
	// need. A handler that reads many data forms millions of pairs, most
	// of them met once: their state would be nearly all of learning's
	// memory and of the spec.
	Mergeable bool
	// Stdin is what the path "-" reads (nil: the process's standard
	// input).
	Stdin io.Reader
}

// params returns the spec's parameters of learning from paths with o.
func (o Options) params(paths []string) Params {
	p := Params{Limit: o.Limit, MinSupport: o.MinSupport}
	if p.Limit == 0 {
		p.Limit = invariants.DefaultLimit
	}
	if p.MinSupport == 0 {
		p.MinSupport = invariants.DefaultMinSupport
	}
	// With a support of 1 every datum and pair met is supported.
	p.PartialState = !o.Mergeable && !o.KeepSamples && p.MinSupport > 1 && !slices.Contains(paths, "-")
	return p
}

// Passes returns how many times Learn reads each of paths: 2 when it
// counts the samples first, which it does unless Mergeable or
// KeepSamples is set, MinSupport is 1 or a path is "-"; else 1.
func (o Options) Passes(paths []string) int {
	if o.params(paths).PartialState {
		return 2
	}
	return 1
}

// Result is what a learning run produced.
type Result struct {
	Spec    *Spec
	Traces  int   // traces learned from, whole or up to an error
	Cut     []Cut // the traces with an error op: learned from up to it, or (Whole) not at all
	Samples int64 // handler invocations learned from
	// Kept holds, per trace learned from (in input order), its samples,
	// when Options.KeepSamples is set.
	Kept []TraceSamples
	// Unpaired lists, by name, the handlers some of whose samples had
	// more data of one abstract type than pairs are learned from
	// (invariants.MaxPairGroup).
	Unpaired []Unpaired
	// PairsMet, PairsSupported and PairsKept are, when the spec keeps only
	// what conditions can come of (Params.PartialState), the pairs of
	// data met, those met in at least MinSupport samples, and those of
	// them whose state the spec keeps (the others can yield no condition
	// whatever samples follow: every relation is broken). Guards' pairs
	// are not counted.
	PairsMet, PairsSupported, PairsKept int64
}

// Unpaired is a handler some of whose samples formed no pairs of a type.
type Unpaired struct {
	Handler          string
	Samples, Handled int64 // those samples, and all of the handler's
}

// TraceSamples are the samples of one trace, in trace order.
type TraceSamples struct {
	Path    string
	Samples []Sample
}

// Sample is one handler invocation as the learner saw it.
type Sample struct {
	Handler string
	Vars    []invariants.Var
}

// Learn learns a spec from training traces, reading several at once. A
// trace with an error op is not a correct execution: it is learned from
// up to the error, without the failing task and its causes
// (correctInvocations), and the result lists it as cut. An invalid trace
// (or one that cannot be read) stops the run with its error.
//
// Each trace is learned on its own, then merged into the one state of
// all the traces read so far: the workers share it, so the learning state
// is in memory once, not once per worker. Merges are exact in any order,
// so the spec does not depend on which worker finished first.
func Learn(ctx context.Context, paths []string, opts Options) (*Result, error) {
	if len(paths) == 0 {
		return nil, errors.New("learn: no training traces")
	}
	if opts.Catalog == nil {
		opts.Catalog = invariants.Builtins()
	}
	workers := parallel.Workers(opts.Workers, len(paths))
	params := opts.params(paths)
	ws := make([]*worker, workers)
	for i := range ws {
		ws[i] = newWorker(opts.KeepSamples, opts.Ops)
	}
	var supported map[string]*invariants.Supported
	if params.PartialState {
		counts := &counted{handlers: make(map[string]*invariants.SupportCounter)}
		err := parallel.ForEach(ctx, len(paths), workers, opts.Progress, func(ctx context.Context, w, i int) error {
			return ws[w].trace(ctx, paths[i], opts.Stdin, &countPass{all: counts, local: make(map[traces.Sym]*invariants.SupportCounter)}).err
		})
		if err != nil {
			return nil, err
		}
		supported = counts.supported(params.MinSupport)
	}
	outcomes := make([]traceOutcome, len(paths))
	all := &learned{handlers: make(map[string]*handlerState)}
	err := parallel.ForEach(ctx, len(paths), workers, opts.Progress, func(ctx context.Context, w, i int) error {
		outcomes[i] = ws[w].trace(ctx, paths[i], opts.Stdin, &learnPass{cat: opts.Catalog, all: all, supported: supported, syms: ws[w].syms, local: make(map[traces.Sym]*invariants.Learner)})
		return outcomes[i].err
	})
	if err != nil {
		return nil, err
	}

	res := &Result{}
	for name, h := range all.handlers {
		if n := h.learner.Unpaired(); n > 0 {
			res.Unpaired = append(res.Unpaired, Unpaired{Handler: name, Samples: n, Handled: h.learner.Samples()})
		}
	}
	slices.SortFunc(res.Unpaired, func(a, b Unpaired) int { return strings.Compare(a.Handler, b.Handler) })
	var apps, inputs []string
	for _, o := range outcomes {
		if o.cut != nil {
			res.Cut = append(res.Cut, *o.cut)
			if o.cut.Whole {
				continue // nothing of it was learned
			}
		}
		res.Traces++
		res.Samples += o.samples
		if opts.KeepSamples {
			res.Kept = append(res.Kept, TraceSamples{Path: o.name, Samples: o.kept})
		}
		apps, inputs = append(apps, o.app), append(inputs, o.id)
	}
	res.Spec = newSpec(opts.Catalog, params, res.Traces, sortedSet(apps), sortedSet(inputs), all.handlers)
	for _, s := range supported {
		n, met := s.Pairs()
		res.PairsSupported += n
		res.PairsMet += met
	}
	if supported != nil {
		for _, h := range all.handlers {
			res.PairsKept += int64(h.learner.Pairs())
		}
	}
	return res, nil
}

// learned is the learning state of the traces read so far, by handler,
// which the workers share.
type learned struct {
	mu       sync.Mutex
	handlers map[string]*handlerState
}

// merge adds the learners of one trace, by handler symbol. It takes them
// over: a handler's first learner becomes its state rather than being
// copied into a new one, which would hold a large trace's state twice.
func (a *learned) merge(syms *traces.Symbols, local map[traces.Sym]*invariants.Learner) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for sym, l := range local {
		handler := syms.String(sym)
		h := a.handlers[handler]
		if h == nil {
			a.handlers[handler] = &handlerState{learner: l, traces: 1}
			continue
		}
		h.learner.Merge(l)
		h.traces++
	}
}

type handlerState struct {
	learner *invariants.Learner
	traces  int // traces with at least one sample
}

type traceOutcome struct {
	err     error
	cut     *Cut // learned from up to an error op
	samples int64
	kept    []Sample
	app, id string // the trace's "platform/app" and identity (Spec.Inputs)
	name    string // the trace's path, or traces.StdinName
}

// sortedSet sorts s and drops its repeats and empty strings.
func sortedSet(s []string) []string {
	s = slices.DeleteFunc(s, func(x string) bool { return x == "" })
	slices.Sort(s)
	return slices.Compact(s)
}

// counted is the first pass's count of the samples of every datum and
// pair of data, by handler, which the workers share.
type counted struct {
	mu       sync.Mutex
	handlers map[string]*invariants.SupportCounter
}

// supported returns, by handler, what was met in at least least samples.
func (c *counted) supported(least int64) map[string]*invariants.Supported {
	out := make(map[string]*invariants.Supported, len(c.handlers))
	for h, sc := range c.handlers {
		out[h] = sc.Supported(least)
		delete(c.handlers, h) // its memory goes as the next is counted
	}
	return out
}

// A pass is what a worker does with the samples of a trace.
type pass interface {
	// add takes one sample of the handler.
	add(handler traces.Sym, vars []invariants.Var)
	// reset drops the trace's samples so far: it has an error op, and
	// what is learned of it is read again.
	reset()
	// done hands over what was gathered of the trace, whose symbols are
	// syms.
	done(syms *traces.Symbols)
}

// countPass counts each trace's samples (the first of two passes).
type countPass struct {
	all   *counted
	local map[traces.Sym]*invariants.SupportCounter
}

func (p *countPass) add(handler traces.Sym, vars []invariants.Var) {
	c := p.local[handler]
	if c == nil {
		c = invariants.NewSupportCounter()
		p.local[handler] = c
	}
	c.Add(vars)
}

func (p *countPass) reset() { clear(p.local) }

func (p *countPass) done(syms *traces.Symbols) {
	p.all.mu.Lock()
	defer p.all.mu.Unlock()
	for sym, c := range p.local {
		name := syms.String(sym)
		if all := p.all.handlers[name]; all != nil {
			all.Merge(c)
		} else {
			p.all.handlers[name] = c
		}
	}
}

// learnPass learns from each trace's samples, only what supported holds
// of a handler if it is set.
type learnPass struct {
	cat       *invariants.Catalog
	all       *learned
	supported map[string]*invariants.Supported
	syms      *traces.Symbols
	local     map[traces.Sym]*invariants.Learner
}

func (p *learnPass) add(handler traces.Sym, vars []invariants.Var) {
	l := p.local[handler]
	if l == nil {
		l = invariants.NewLearner(p.cat)
		if p.supported != nil {
			s := p.supported[p.syms.String(handler)]
			if s == nil {
				s = new(invariants.Supported) // not met in the first pass: cannot be
			}
			l.Restrict(s)
		}
		p.local[handler] = l
	}
	l.Add(vars)
}

func (p *learnPass) reset() { clear(p.local) }

func (p *learnPass) done(syms *traces.Symbols) { p.all.merge(syms, p.local) }

// worker reads one trace at a time, with one Symbols table that it
// empties before each trace.
type worker struct {
	syms  *traces.Symbols
	names *Names
	keep  bool
	vars  []invariants.Var
	ops   func(n int) // Options.Ops
}

func newWorker(keep bool, ops func(int)) *worker {
	syms := traces.NewSymbols()
	return &worker{syms: syms, names: NewNames(syms), keep: keep, ops: ops}
}

// trace reads the trace at path ("-": stdin, or os.Stdin if nil) and
// gives its samples to p.
func (w *worker) trace(ctx context.Context, path string, stdin io.Reader, p pass) (out traceOutcome) {
	// Ids need not compare across traces (handler states merge by name),
	// so the table is emptied for each trace: otherwise every id of every
	// trace the worker read (each event's, each object's) would stay.
	w.syms.Reset()
	clear(w.names.cache)
	var f io.Reader
	out.name = path
	stdinTrace := path == "-"
	if stdinTrace {
		out.name, f = traces.StdinName, stdin
		if f == nil {
			f = os.Stdin
		}
	} else {
		file, err := os.Open(path)
		if err != nil {
			return traceOutcome{err: fmt.Errorf("learn: %w", err)}
		}
		defer file.Close()
		f = file
	}
	path = out.name
	// The trace's identity in Spec.Inputs is the first 16 hex digits of
	// the SHA-256 of its bytes, hashed as they are read, not read again.
	hash := sha256.New()
	ropts := []traces.Option{traces.WithSymbols(w.syms)}
	if w.ops != nil {
		ropts = append(ropts, traces.WithProgress(w.ops))
	}
	r, err := traces.NewReader(io.TeeReader(f, hash), append(ropts, traces.WithName(path))...)
	if err != nil {
		return traceOutcome{err: fmt.Errorf("learn: %w", err)}
	}
	defer r.Close()
	var reopen func() (*traces.Reader, error)
	if !stdinTrace {
		reopen = func() (*traces.Reader, error) {
			return traces.Open(path, ropts...)
		}
	}
	reset := func() {
		p.reset()
		out.samples, out.kept = 0, nil
	}
	cut, err := correctInvocations(ctx, r, reopen, func() *Sampler { return NewSampler(w.syms) }, func(inv *Invocation, _ int) {
		w.vars = w.vars[:0]
		for _, b := range inv.Bindings {
			w.vars = append(w.vars, invariants.Var{
				Name: w.names.String(b.Name), Val: invariants.FromTrace(b.Val, w.syms), Group: b.Group,
				Deref: b.Deref, Guarded: b.Guarded, Tested: b.Tested, Flag: b.Flag,
			})
		}
		p.add(inv.Handler, w.vars)
		out.samples++
		if w.keep {
			out.kept = append(out.kept, Sample{Handler: w.syms.String(inv.Handler), Vars: append([]invariants.Var(nil), w.vars...)})
		}
	}, reset)
	if err != nil {
		return traceOutcome{err: fmt.Errorf("learn: %w", err)}
	}
	// A correct execution, up to its error if it has one: its samples
	// count.
	out.cut = cut
	r.Close() // a decoder that reads ahead stops before the rest is hashed
	hd := r.Header()
	out.app = hd.App
	if hd.Platform != "" {
		out.app = hd.Platform + "/" + hd.App
	}
	if _, err := io.Copy(hash, f); err != nil { // what the reader left unread
		return traceOutcome{err: fmt.Errorf("learn: read %s: %w", path, err)}
	}
	out.id = hex.EncodeToString(hash.Sum(nil)[:8])
	p.done(w.syms)
	return out
}
