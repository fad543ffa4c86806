package learn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/licorice-dev/licorice/invariants"
)

// Merge combines specs learned on disjoint sets of traces (shards) into
// the spec of all of them: the same, byte for byte, as learning on all the
// traces at once. The specs must have been learned with the same
// parameters and templates, and keep their whole learning state
// (Options.Mergeable).
//
// A user's edits survive: a condition disabled in any input stays
// disabled, a condition deleted from an input (its state still implies
// it) comes back disabled, and a pinned condition is kept even if the
// merged samples no longer support it.
func Merge(specs ...*Spec) (*Spec, error) {
	return MergeWith(MergeOptions{}, specs...)
}

// MergeOptions change what Merge accepts.
type MergeOptions struct {
	// Force merges specs of different apps, specs learned from some of
	// the same traces (whose samples then count twice), and specs that
	// keep only part of their learning state (Params.PartialState), whose
	// merge lacks the samples of the data and pairs a spec kept too few
	// of: it may miss conditions, and keep some those samples falsified.
	Force bool
}

// MergeWith is Merge with options. Without Force it refuses specs that
// were learned from a trace in common (the same file bytes: a spec merged
// with itself, or shards that overlap) and specs of different apps, as
// their provenance (Spec.Apps, Spec.Inputs) says; specs without it merge
// as before.
func MergeWith(opts MergeOptions, specs ...*Spec) (*Spec, error) {
	if len(specs) == 0 {
		return nil, errors.New("merge: no specs")
	}
	first := specs[0]
	if !opts.Force {
		for i, sp := range specs {
			if sp.Params.PartialState {
				return nil, fmt.Errorf("merge: spec %d keeps the learning state of only the data and pairs of data met in %d samples or more: merged, it would lack the samples of the others and could keep conditions they falsified; learn the shards with --mergeable (or merge with --force)", i+1, sp.Params.MinSupport)
			}
		}
		if err := checkProvenance(specs); err != nil {
			return nil, err
		}
	}
	tmpl, err := json.Marshal(first.Templates)
	if err != nil {
		return nil, err
	}
	for i, sp := range specs[1:] {
		if sp.Params.Limit != first.Params.Limit || sp.Params.MinSupport != first.Params.MinSupport {
			return nil, fmt.Errorf("merge: spec %d was learned with limit %v and min_samples %d, spec 1 with limit %v and min_samples %d: learn the shards with the same --confidence and --min-samples",
				i+2, sp.Params.Limit, sp.Params.MinSupport, first.Params.Limit, first.Params.MinSupport)
		}
		other, _ := json.Marshal(sp.Templates)
		if !bytes.Equal(tmpl, other) {
			return nil, fmt.Errorf("merge: spec %d was learned with other user templates than spec 1: learn the shards with the same --templates", i+2)
		}
	}
	cat := first.catalog
	type acc struct {
		learner  *invariants.Learner
		traces   int
		disabled map[string]bool
		pinned   map[string]*Condition
	}
	all := map[string]*acc{}
	out := &Spec{Params: first.Params, Templates: first.Templates, catalog: cat}
	for i, sp := range specs {
		out.Params.PartialState = out.Params.PartialState || sp.Params.PartialState
		out.Traces += sp.Traces
		out.Apps = append(out.Apps, sp.Apps...)
		out.Inputs = append(out.Inputs, sp.Inputs...)
		for _, h := range sp.Handlers {
			st := h.LearningState()
			if st == nil {
				return nil, fmt.Errorf("merge: spec %d: handler %s has no learning state (was it removed?): cannot merge", i+1, h.Name)
			}
			l, err := invariants.NewLearnerFromState(cat, st)
			if err != nil {
				return nil, fmt.Errorf("merge: spec %d: handler %s: %w", i+1, h.Name, err)
			}
			a := all[h.Name]
			if a == nil {
				a = &acc{learner: invariants.NewLearner(cat), disabled: map[string]bool{}, pinned: map[string]*Condition{}}
				all[h.Name] = a
			}
			// What the user changed: derived conditions no longer listed
			// were deleted.
			listed := map[string]bool{}
			for _, c := range h.Conditions {
				listed[c.key()] = true
				if c.Disabled {
					a.disabled[c.key()] = true
				}
				if c.Pinned {
					a.pinned[c.key()] = c
				}
			}
			for _, ic := range l.Infer(sp.Params.options()) {
				if c := conditionFrom(h.Name, ic); !listed[c.key()] {
					a.disabled[c.key()] = true
				}
			}
			a.learner.Merge(l)
			a.traces += h.Traces
		}
	}
	for name, a := range all {
		h := handlerFrom(name, a.learner, a.traces, out.Params)
		have := map[string]bool{}
		for _, c := range h.Conditions {
			have[c.key()] = true
			c.Disabled = a.disabled[c.key()]
			_, c.Pinned = a.pinned[c.key()]
		}
		for key, c := range a.pinned {
			if !have[key] {
				cp := *c
				cp.Disabled = a.disabled[key]
				h.Conditions = append(h.Conditions, &cp)
			}
		}
		sortConditions(cat, h.Conditions)
		out.Handlers = append(out.Handlers, h)
	}
	out.Apps, out.Inputs = sortedSet(out.Apps), sortedSet(out.Inputs)
	out.index()
	return out, nil
}

// sortConditions orders conditions as the learner does: by data, then by
// template (catalog order), then by text.
func sortConditions(cat *invariants.Catalog, cs []*Condition) {
	index := map[string]int{}
	for i, t := range cat.Templates() {
		index[t.Name] = i
	}
	slices.SortFunc(cs, func(a, b *Condition) int {
		if a.Guard != b.Guard { // the handler's own first, then each guard's
			return strings.Compare(a.Guard, b.Guard)
		}
		if c := slices.Compare(a.Vars, b.Vars); c != 0 {
			return c
		}
		if a.Template != b.Template {
			return index[a.Template] - index[b.Template]
		}
		return strings.Compare(a.Body(), b.Body())
	})
}

// checkProvenance refuses specs with a trace in common, or of different
// apps.
func checkProvenance(specs []*Spec) error {
	from := map[string]int{} // input -> the first spec learned from it
	apps := map[string]int{}
	for i, sp := range specs {
		for _, in := range sp.Inputs {
			if j, ok := from[in]; ok {
				return fmt.Errorf("merge: specs %d and %d were both learned from trace %s: merging would count its samples twice (merge shards of distinct traces; --force merges anyway)", j+1, i+1, in)
			}
			from[in] = i
		}
		for _, a := range sp.Apps {
			if _, ok := apps[a]; !ok {
				apps[a] = i
			}
		}
	}
	if len(apps) > 1 {
		names := make([]string, 0, len(apps))
		for a := range apps {
			names = append(names, a)
		}
		slices.Sort(names)
		return fmt.Errorf("merge: the specs are of different apps (%s): a spec describes one program (--force merges anyway)", strings.Join(names, ", "))
	}
	return nil
}
