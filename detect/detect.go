package detect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/licorice-dev/licorice/detect/asyncclock"
	"github.com/licorice-dev/licorice/detect/races"
	"github.com/licorice-dev/licorice/internal/parallel"
	"github.com/licorice-dev/licorice/learn"
	"github.com/licorice-dev/licorice/traces"
)

// Options configure a detection run.
type Options struct {
	// Allow suppresses the findings it matches (nil: none).
	Allow *AllowList
	// Window is AsyncClock's time window (asyncclock.Config.Window, wide:
	// asyncclock.Config.WideWindow): 0 computes the exact happens-before
	// relation.
	Window time.Duration
	// Workers is how many traces are analysed at once (GOMAXPROCS if 0).
	Workers int
	// Progress, if set, is called after each trace with the number done;
	// it may be called from several goroutines.
	Progress func(done int)
	// Ops, if set, is called with the number of ops read since its last
	// call, every 65536 ops of any read of a trace (each is read twice,
	// once more if it has reports, for their examples' origins, and once
	// more with explanations): progress within a long trace. It may be
	// called from several goroutines.
	Ops func(n int)
	// Explain is how many reports, in rank order, get in their example
	// the happens-before explanation of why its two events are concurrent
	// (races.Explain: which rule would order them and why it does not);
	// 0: none. The explanations of one trace are found in one more read
	// of it (races.ExplainAll), traces several at once (Workers); a
	// result with more reports warns that the others have none.
	Explain int
	// AllowMismatch checks traces in which none of the spec's handlers
	// ran; otherwise Detect fails with a *MismatchError (a spec learned
	// from another program is a mistake, not a clean run).
	AllowMismatch bool
	// Stdin is what the path "-" reads (nil: the process's standard
	// input). Detect reads each trace twice, so it first copies standard
	// input to a temporary file, removed when it returns.
	Stdin io.Reader
}

// MismatchError says that none of a spec's handlers (those it has
// conditions for) ran in any of the traces.
type MismatchError struct {
	Handlers, Traces int
	App              string   // the traces' app, if their headers name one
	SpecApps         []string // the apps the spec was learned on (Spec.Apps), if it says
}

func (e *MismatchError) Error() string {
	app := ""
	if e.App != "" {
		app = fmt.Sprintf(" (app %q)", e.App)
	}
	learned := "is the spec learned from this program?"
	if len(e.SpecApps) > 0 {
		learned = fmt.Sprintf("the spec was learned on %s", strings.Join(e.SpecApps, ", "))
	}
	return fmt.Sprintf("detect: none of the spec's %d handlers ran in the %d traces%s: %s (--allow-mismatch checks them anyway)", e.Handlers, e.Traces, app, learned)
}

// Result is what a detection run found.
type Result struct {
	Traces  []TraceStats // in input order
	Reports []*Report    // ranked
	// Disabled is the number of spec conditions disabled by the user:
	// never realized, never checked.
	Disabled int
	// Allowed says what the allow-list suppressed, rule by rule (in file
	// order; nil without an allow-list).
	Allowed []RuleUse
	// AllowedFindings and AllowedReports are the findings, and the
	// reports they would have formed, that the allow-list suppressed.
	AllowedFindings, AllowedReports int
	// Warnings are things worth knowing about the input: a trace on which
	// no condition of the spec was realized, a spec without conditions.
	Warnings []string
}

// RuleUse is what one allow-list rule suppressed.
type RuleUse struct {
	Line     int    `json:"line"`
	Rule     string `json:"rule"`
	Findings int    `json:"findings"`
	Reports  int    `json:"reports"`
}

// TraceStats are counts about one analysed trace.
type TraceStats struct {
	File string `json:"trace"` // the trace's file name, as every JSON output names it
	App  string `json:"app,omitempty"`
	Run  string `json:"run,omitempty"`
	Ops  int64  `json:"ops"`
	// Events is the number of events sent.
	Events int `json:"events"`
	// Invocations are handler invocations in events (samples, in the
	// learner's terms).
	Invocations int64 `json:"invocations"`
	// SpecInvocations are those of handlers the spec has conditions for.
	SpecInvocations int64 `json:"spec_invocations"`
	// Conditions is the number of distinct realized conditions: logical
	// variables (template, constants, locations).
	Conditions int `json:"conditions"`
	// Reqs, Gens and Kills count the REQ, GEN and KILL events of all
	// conditions; MinorGens and MinorKills the minor ones among them.
	Reqs       int `json:"req"`
	Gens       int `json:"gen"`
	Kills      int `json:"kill"`
	MinorGens  int `json:"minor_gen"`
	MinorKills int `json:"minor_kill"`
	// MidKills counts the mid-event KILLs: events whose own writes made a
	// condition false and then true again (no KILL at their end).
	MidKills int `json:"mid_kill"`
	// Undecided counts realized conditions the values read could not
	// decide (a datum of another type than the template's): not REQs.
	Undecided int `json:"undecided"`
	// Findings are the pairs reported; Allowed those the allow-list
	// suppressed.
	Findings int `json:"findings"`
	Allowed  int `json:"allowed"`
	// Relative counts the GENs and KILLs that updated the condition's data
	// in place (count++): they are judged by their change (see the
	// package doc).
	Relative int `json:"relative"`
	// Falsified counts the precondition violations of a correct run (one
	// without an error op), left out: the run went on correctly with the
	// condition false, so the spec is too strong there. In a run that
	// crashed they are reported.
	Falsified int `json:"falsified"`
	// ReadReq counts the REQ-KILL pairs left out because the KILL's event
	// read what the REQ's event wrote (see the package doc).
	ReadReq int `json:"read_req"`
	// ReadGen counts the GEN-REQ pairs left out because the REQ's event
	// read, elsewhere than the condition's data, what the GEN's wrote.
	ReadGen int `json:"read_gen"`
	// Crash is the message of the trace's error op, if it has one: the run
	// is not a correct execution (it may show the bug).
	Crash     string `json:"crash,omitempty"`
	CrashLine int    `json:"crash_line,omitempty"`
}

// DefaultExplain is how many reports licorice detect explains
// (Options.Explain) unless told otherwise.
const DefaultExplain = 20

// Detect analyses traces against a spec and reports the pairs of
// concurrent events likely not to commute, grouped and ranked. Traces are
// read twice (see the package doc), and once more for the origins of
// their reports' examples, several at once; an invalid trace, or
// one that contradicts the causality model, stops the run with its file
// and line.
func Detect(ctx context.Context, sp *learn.Spec, paths []string, opts Options) (*Result, error) {
	if len(paths) == 0 {
		return nil, errors.New("detect: no traces")
	}
	srcs := make([]source, len(paths))
	for i, p := range paths {
		srcs[i] = source{name: p, file: p, ops: opts.Ops}
		if p != "-" {
			continue
		}
		file, err := spool(opts.Stdin)
		if err != nil {
			return nil, fmt.Errorf("detect: %w", err)
		}
		defer os.Remove(file)
		srcs[i] = source{name: traces.StdinName, file: file, ops: opts.Ops}
	}
	results := make([]*traceResult, len(paths))
	err := parallel.ForEach(ctx, len(paths), opts.Workers, opts.Progress, func(ctx context.Context, _, i int) error {
		var err error
		results[i], err = analyze(ctx, sp, srcs[i], &opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := mismatch(sp, results, opts.AllowMismatch); err != nil {
		return nil, err
	}
	res := &Result{}
	for _, h := range sp.Handlers {
		for _, c := range h.Conditions {
			if c.Disabled {
				res.Disabled++
			}
		}
	}
	enabled := len(sp.Conditions())
	if enabled == 0 {
		res.Warnings = append(res.Warnings, "the spec has no enabled conditions: nothing can be found")
	}
	var recs []record
	var allowed []map[groupKey]bool // per rule, the reports it suppressed
	if opts.Allow != nil {
		for _, r := range opts.Allow.Rules {
			res.Allowed = append(res.Allowed, RuleUse{Line: r.Line, Rule: r.Text})
			allowed = append(allowed, map[groupKey]bool{})
		}
	}
	all := map[groupKey]bool{}
	for _, tr := range results {
		res.Traces = append(res.Traces, tr.stats)
		recs = append(recs, tr.records...)
		for _, a := range tr.allowed {
			res.Allowed[a.rule].Findings++
			allowed[a.rule][a.key] = true
			all[a.key] = true
			res.AllowedFindings++
		}
		if tr.stats.Conditions == 0 && enabled > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: no condition of the spec was realized (%d handler invocations): is the spec learned from this app?", tr.stats.File, tr.stats.Invocations))
		}
	}
	for i := range res.Allowed {
		res.Allowed[i].Reports = len(allowed[i])
	}
	res.AllowedReports = len(all)
	res.Reports = group(recs)
	if n := min(opts.Explain, len(res.Reports)); n > 0 {
		files := make(map[string]source, len(srcs))
		for _, s := range srcs {
			files[s.name] = s
		}
		// The examples to explain, by trace: one read of a trace explains
		// all of its examples.
		byTrace := map[string][]*Instance{}
		var names []string
		for i := range n {
			ex := &res.Reports[i].Example
			if !explainable(ex) {
				continue
			}
			if byTrace[ex.Trace] == nil {
				names = append(names, ex.Trace)
			}
			byTrace[ex.Trace] = append(byTrace[ex.Trace], ex)
		}
		err := parallel.ForEach(ctx, len(names), opts.Workers, nil, func(ctx context.Context, _, i int) error {
			return explain(ctx, byTrace[names[i]], files[names[i]], opts.Window)
		})
		if err != nil {
			return nil, err
		}
		if n < len(res.Reports) {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the first %d of the %d reports say which order is missing (as licorice hb does); the others do not (--explain N for more: explaining reads each trace once more)", n, len(res.Reports)))
		}
	}
	return res, nil
}

// source is a trace to analyse: its name in messages and results, and
// the file that holds it (a spooled copy of standard input is named
// traces.StdinName); ops, if set, is told of the ops read
// (Options.Ops).
type source struct {
	name, file string
	ops        func(n int)
}

// open opens the trace src, with syms if not nil.
func (src source) open(syms *traces.Symbols) (*traces.Reader, error) {
	opts := []traces.Option{traces.WithName(src.name)}
	if syms != nil {
		opts = append(opts, traces.WithSymbols(syms))
	}
	if src.ops != nil {
		opts = append(opts, traces.WithProgress(src.ops))
	}
	return traces.Open(src.file, opts...)
}

// spool copies stdin (nil: os.Stdin) to a temporary file, which the
// caller removes, and returns its path.
func spool(stdin io.Reader) (string, error) {
	if stdin == nil {
		stdin = os.Stdin
	}
	f, err := os.CreateTemp("", "licorice-stdin-*")
	if err != nil {
		return "", fmt.Errorf("copy standard input: %w", err)
	}
	_, err = io.Copy(f, stdin)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("copy standard input to %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// explainable reports whether the why of an instance is between two
// events, which a happens-before explanation can complete.
func explainable(in *Instance) bool {
	w := in.Concurrent
	return w != nil && len(in.Events) == 2 && isEvent(w.Chains[0]) && isEvent(w.Chains[1])
}

// explain completes the why of instances, explainable and of one trace,
// with the happens-before explanations of their concurrency, found in
// one read of the trace src.
func explain(ctx context.Context, ins []*Instance, src source, window time.Duration) error {
	r, err := src.open(nil)
	if err != nil {
		return fmt.Errorf("detect: explain: %w", err)
	}
	defer r.Close()
	pairs := make([][2]string, len(ins))
	for i, in := range ins {
		pairs[i] = [2]string{in.Events[0].ID, in.Events[1].ID}
	}
	exs, err := races.ExplainAll(ctx, r, pairs, window)
	if err != nil {
		return fmt.Errorf("detect: explain: %w", err)
	}
	for i, in := range ins {
		c := exs[i].Concurrent
		if c == nil {
			continue // ordered after all: cannot happen, as both use the same engine
		}
		w := in.Concurrent
		w.Missing = c.Reasons
		for _, e := range c.Successors {
			w.After = append(w.After, eventRef(e))
		}
		for _, e := range c.Predecessors {
			w.Before = append(w.Before, eventRef(e))
		}
	}
	return nil
}

// isEvent reports whether an origin chain starts with an event (not a
// thread's write).
func isEvent(chain []Link) bool { return len(chain) > 0 && chain[0].Thread != "" }

func eventRef(e races.EventRef) string {
	if e.Handler == "" {
		return fmt.Sprintf("%s (on %s)", e.ID, e.Thread)
	}
	return fmt.Sprintf("%s (%s on %s)", e.ID, e.Handler, e.Thread)
}

// traceResult is what one trace gave.
type traceResult struct {
	stats   TraceStats
	records []record
	allowed []allowedFinding
}

type allowedFinding struct {
	rule int
	key  groupKey
}

// mismatch returns a *MismatchError if the spec has handlers with
// enabled conditions and none of them ran in any trace, unless allowed.
func mismatch(sp *learn.Spec, results []*traceResult, allowed bool) error {
	if allowed {
		return nil
	}
	handlers := 0
	for _, h := range sp.Handlers {
		if slices.ContainsFunc(h.Conditions, func(c *learn.Condition) bool { return !c.Disabled }) {
			handlers++
		}
	}
	if handlers == 0 {
		return nil // the spec's own warning says nothing can be found
	}
	app := ""
	for _, tr := range results {
		if tr.stats.SpecInvocations > 0 {
			return nil
		}
		app = cmp.Or(app, tr.stats.App)
	}
	return &MismatchError{Handlers: handlers, Traces: len(results), App: app, SpecApps: sp.Apps}
}

// analyze detects on one trace and turns its findings into records for
// grouping, less those the allow-list suppresses.
func analyze(ctx context.Context, sp *learn.Spec, src source, opts *Options) (*traceResult, error) {
	a, err := passes(ctx, sp, src, opts.Window)
	if err != nil {
		return nil, err
	}
	tr := &traceResult{stats: a.stats}
	st := &tr.stats
	type specInfo struct {
		cond    Condition
		pattern string
	}
	type example struct {
		key  groupKey
		kind Kind
	}
	specs := map[*learn.Condition]*specInfo{}
	examples := map[example]bool{}
	var exs []exampleAt
	roles := map[int32]*roleCounts{}
	var hs []string
	for _, f := range a.findings {
		if f.kind == Violation && st.Crash == "" {
			// The run went on correctly with the condition false: it is
			// no precondition there (the spec is too strong), not a bug.
			st.Falsified++
			continue
		}
		spec := specOf(f, a.tk.chk.streams[f.cond])
		si := specs[spec]
		if si == nil {
			si = &specInfo{cond: conditionOf(spec)}
			si.pattern = Pattern(si.cond.Text)
			specs[spec] = si
		}
		hs = hs[:0]
		for _, t := range []*touch{f.a, f.b} {
			if t != nil {
				hs = append(hs, a.tk.syms.String(t.handler))
			}
		}
		distinct := slices.Compact(slices.Sorted(slices.Values(hs)))
		key := groupKey{handlers: strings.Join(distinct, " "), cond: si.pattern}
		if rule := opts.Allow.match(hs, &si.cond); rule >= 0 {
			tr.allowed = append(tr.allowed, allowedFinding{rule: rule, key: key})
			st.Allowed++
			continue
		}
		rc := record{key: key, handlers: distinct, kind: f.kind, trace: src.name, spec: spec}
		if ek := (example{key, f.kind}); !examples[ek] {
			examples[ek] = true
			exs = append(exs, exampleAt{f, len(tr.records)})
		}
		tr.records = append(tr.records, rc)
		st.Findings++
	}
	// The examples' explanations name events and their origins, which the
	// passes did not keep: one more read finds them.
	want := map[traces.Sym]*originRec{}
	for _, ex := range exs {
		if ex.f.a != nil && ex.f.b != nil {
			a.tk.wantOrigins(ex.f.a.u.task, want)
			a.tk.wantOrigins(ex.f.b.u.task, want)
		}
	}
	if len(want) > 0 {
		if err := a.tk.readOrigins(ctx, src, want); err != nil {
			return nil, err
		}
		a.tk.origin = want
	}
	for _, ex := range exs {
		in := a.tk.instance(ex.f, sp.Catalog(), src.name, roles)
		tr.records[ex.record].example = &in
	}
	return tr, nil
}

// exampleAt is a finding that is its report's example, and its record.
type exampleAt struct {
	f      finding
	record int
}

// analysis is one trace's realized conditions, their touches, and what
// the checks found.
type analysis struct {
	stats    TraceStats
	conds    *conds
	tk       *tracker // nil if no condition was realized
	findings []finding
}

// passes runs the two passes over the trace src and the checks: the
// first realizes the conditions and finds the REQs, the second follows
// their data and the clocks (window is AsyncClock's) and checks each
// condition's touches as they are found.
func passes(ctx context.Context, sp *learn.Spec, src source, window time.Duration) (*analysis, error) {
	return passesWith(ctx, sp, src, window, passOptions{projectAt: maxProjected})
}

// passOptions are what tests change in passes.
type passOptions struct {
	// projectAt: a REQ's time is projected on the writers of its
	// condition if they are at most projectAt (-1: never).
	projectAt int
	// keepAll keeps every touch in its condition's touches.
	keepAll bool
	// advanceEvery, if not 0, is how often the checker advances (in ops);
	// pruneAt, if not 0, the checker's pruneAt.
	advanceEvery, pruneAt int
}

// passesWith is passes with options.
func passesWith(ctx context.Context, sp *learn.Spec, src source, window time.Duration, po passOptions) (*analysis, error) {
	syms := traces.NewSymbols()
	a := &analysis{stats: TraceStats{File: src.name}, conds: newConds()}
	st := &a.stats
	rl := newRealizer(sp, syms, a.conds, st)
	err := readTrace(ctx, src, syms, func(r *traces.Reader) {
		st.App, st.Run = r.Header().App, r.Header().Run
	}, func(op *traces.Op, pos int64, line int) error {
		rl.step(op, pos, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rl.finish()
	st.Conditions = len(a.conds.list)
	if len(a.conds.list) == 0 {
		return a, nil // nothing to follow
	}

	eng := asyncclock.New(syms, asyncclock.Config{Window: window, WideWindow: true})
	eng.SetFile(src.name)
	a.tk = newTracker(syms, eng, window, a.conds, rl, st)
	a.tk.projectAt = po.projectAt
	if po.advanceEvery > 0 {
		a.tk.advanceEvery = po.advanceEvery
	}
	chk := a.tk.chk
	chk.keepAll = po.keepAll
	chk.projectAt = po.projectAt
	if po.keepAll {
		a.tk.untrimmed = make(map[traces.Sym][]carried)
	}
	if po.pruneAt > 0 {
		chk.pruneAt = po.pruneAt
	}
	err = readTrace(ctx, src, syms, nil, func(op *traces.Op, pos int64, line int) error {
		if err := eng.Step(op, line); err != nil {
			return err
		}
		a.tk.step(op, pos, line)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := eng.Finish(); err != nil {
		return nil, fmt.Errorf("detect: %w", err)
	}
	a.tk.finish()
	a.findings = chk.findings()
	return a, nil
}

// readTrace streams the trace src: header (if not nil) sees the reader
// once opened, visit every op with its number (from 1) and line. Its
// errors, the reader's and visit's, say "detect".
func readTrace(ctx context.Context, src source, syms *traces.Symbols, header func(*traces.Reader), visit func(op *traces.Op, pos int64, line int) error) error {
	r, err := src.open(syms)
	if err != nil {
		return fmt.Errorf("detect: %w", err)
	}
	defer r.Close()
	if header != nil {
		header(r)
	}
	pos := int64(0)
	err = traces.EachChunkAhead(ctx, r, func(ops []traces.Op, lines []int) error {
		lines = lines[:len(ops)]
		for i := range ops {
			pos++
			if err := visit(&ops[i], pos, lines[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("detect: %w", err)
	}
	return nil
}
