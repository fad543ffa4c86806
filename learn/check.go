package learn

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/licorice-dev/licorice/internal/parallel"
	"github.com/licorice-dev/licorice/traces"
)

// Verdict is what a set of traces says about one condition.
type Verdict struct {
	Cond    *Condition
	Checked int64 // invocations that realized it
	Failed  int64 // of those, the ones it was false on
	// FirstFile and FirstLine say where it first failed: the trace and the
	// line of the invocation's ret (empty if it never failed).
	FirstFile string
	FirstLine int
}

// CheckResult is the outcome of checking a spec against traces.
type CheckResult struct {
	Verdicts []Verdict // one per enabled condition, in spec order
	Traces   int       // traces checked, whole or up to an error
	Cut      []Cut     // the traces with an error op: checked up to it, or (Whole) not at all
}

// Falsified returns the verdicts of the conditions some trace falsified.
func (r *CheckResult) Falsified() []Verdict {
	var out []Verdict
	for _, v := range r.Verdicts {
		if v.Failed > 0 {
			out = append(out, v)
		}
	}
	return out
}

// CheckOptions configure [Check].
type CheckOptions struct {
	// Workers is how many traces are read at once (GOMAXPROCS if 0).
	Workers int
	// Stdin is what the path "-" reads (nil: the process's standard
	// input).
	Stdin io.Reader
}

// Check replays correct executions against a spec: every realized
// condition is evaluated on the values its data had when the event began,
// as detection will, and counted as checked, and as failed if false. A
// condition that held-back correct runs falsify is a false precondition
// (thesis §5.6.2). A trace with an error op is checked up to it, as in
// learning.
func Check(ctx context.Context, sp *Spec, paths []string, opts CheckOptions) (*CheckResult, error) {
	if len(paths) == 0 {
		return nil, errors.New("check: no traces")
	}
	conds := sp.Conditions()
	index := make(map[*Condition]int, len(conds))
	for i, c := range conds {
		index[c] = i
	}
	type outcome struct {
		cut     *Cut
		checked []int64
		failed  []int64
		first   []int // line of the first failure, per condition
	}
	outs := make([]outcome, len(paths))
	err := parallel.ForEach(ctx, len(paths), opts.Workers, nil, func(ctx context.Context, _, i int) error {
		o := &outs[i]
		o.checked, o.failed, o.first = make([]int64, len(conds)), make([]int64, len(conds)), make([]int, len(conds))
		var err error
		o.cut, err = checkTrace(ctx, sp, index, paths[i], opts.Stdin, o.checked, o.failed, o.first)
		return err
	})
	if err != nil {
		return nil, err
	}
	res := &CheckResult{Verdicts: make([]Verdict, len(conds))}
	for i, c := range conds {
		res.Verdicts[i].Cond = c
	}
	for t, o := range outs {
		if o.cut != nil {
			res.Cut = append(res.Cut, *o.cut)
			if o.cut.Whole {
				continue
			}
		}
		res.Traces++
		for i := range conds {
			v := &res.Verdicts[i]
			v.Checked += o.checked[i]
			if o.failed[i] > 0 && v.Failed == 0 {
				v.FirstFile, v.FirstLine = traces.DisplayName(paths[t]), o.first[i]
			}
			v.Failed += o.failed[i]
		}
	}
	return res, nil
}

func checkTrace(ctx context.Context, sp *Spec, index map[*Condition]int, path string, stdin io.Reader, checked, failed []int64, first []int) (*Cut, error) {
	r, err := traces.Open(path, traces.WithStdin(stdin))
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	defer r.Close()
	syms := r.Symbols()
	rz := NewRealizer(sp, syms)
	var realized []Realized
	var reopen func() (*traces.Reader, error)
	if path != "-" {
		reopen = func() (*traces.Reader, error) { return traces.Open(path, traces.WithSymbols(syms)) }
	}
	reset := func() {
		clear(checked)
		clear(failed)
		clear(first)
	}
	cut, err := correctInvocations(ctx, r, reopen, func() *Sampler { return NewSampler(syms) }, func(inv *Invocation, line int) {
		realized = rz.Realize(inv, realized[:0])
		for _, rc := range realized {
			i := index[rc.Cond]
			holds, ok := rc.Cond.EvalTrace(rc.Vals, syms)
			if !ok {
				continue
			}
			checked[i]++
			if !holds {
				if failed[i] == 0 {
					first[i] = line
				}
				failed[i]++
			}
		}
	}, reset)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return cut, nil
}
