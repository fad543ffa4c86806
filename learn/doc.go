// Package learn learns the preconditions of event handlers from correct
// training traces (thesis §5.2.1, §5.3) and keeps them in a spec file.
//
// A sample is one handler invocation (call ... ret) with the shared data it
// read live-in — read before its event wrote them, so their values came
// from other events — named symbolically, plus the other fields of the
// objects it read that share an abstract type with what it read. [Learn]
// streams the traces (several at once; each worker reuses one Symbols
// table, emptied between traces, so memory does not accumulate), skips
// those with an error op, feeds each handler's samples to an
// [invariants.Learner] and writes what they learned as a [Spec].
//
// # Naming and live-in data: the Sampler
//
// [Sampler] is the naming machinery, exported so that detection binds
// exactly the names learning used. Feed it a trace's ops in order; at the
// ret of every handler call it returns an [Invocation]: the handler, the
// task (event) that ran it, and its [Binding]s — for each datum, its
// symbolic [Name], the concrete location (object id and field, or class
// and field), its value when the event began, its abstract-type group,
// and whether it was dereferenced or null-tested. The rules (scope of
// live-in, "this", allocation site and creation order, statics, objects
// never allocated, array elements, abstract types, extra fields) are in
// Sampler's documentation. [Names] turns a Name into the string a spec
// uses ("this.dataHub", "TrackDetailActivity.onResume:104#1.points").
//
// # What detection uses
//
// Detection (thesis §5.2.2, §5.4) needs, for every event, its realized
// preconditions P[e], and for every event that writes their data, their
// truth before and after it:
//
//	sp, err := learn.ReadSpecFile("app.spec.json")
//	s := learn.NewSampler(syms)   // syms: the trace reader's table
//	rz := learn.NewRealizer(sp, syms)
//	for each op of the trace {
//		if inv := s.Step(&op); inv != nil && inv.Event {
//			for _, r := range rz.Realize(inv, nil) {
//				// r.Cond requires r.Locs (one per datum of the condition),
//				// whose values when the event began were r.Vals:
//				holds, ok := r.Cond.EvalTrace(r.Vals, syms)
//				...
//			}
//		}
//	}
//
// A realized condition is a condition of the invocation's handler all of
// whose data the invocation binds: only conditions over its live-in data
// (and the extra fields of the objects it read, which it did not write
// either) are realized, as P[e] requires. To classify an event as GEN or
// KILL of a realized condition, evaluate [Condition.EvalTrace] on the
// values of its locations before and after the event (the trace's read and
// write values give them; [Sampler.Value] is the last value seen at a
// location). Evaluation works on [invariants.Value] too ([Condition.Eval];
// [invariants.FromTrace] converts). Disabled conditions are never realized.
//
// # The spec file
//
// A spec is JSON, written canonically (same spec, same bytes) and indented:
//
//	{
//	  "licorice_spec": 1,
//	  "params": {"limit": 0.01, "min_samples": 5, "partial_state": true},
//	  "traces": 48,
//	  "templates": [ user templates, as declared (see invariants.TemplateDecl) ],
//	  "handlers": [
//	    {
//	      "handler": "TrackDetailActivity.onUpdateResults",
//	      "samples": 2127,
//	      "traces": 48,
//	      "conditions": [
//	        {
//	          "text": "TrackDetailActivity.onUpdateResults: this.dataHub != null",
//	          "template": "nonnull",
//	          "vars": ["this.dataHub"],
//	          "support": 2127,
//	          "confidence": 1
//	        }
//	      ],
//	      "state": { the learner's state: per datum and pair, counts and extremes }
//	    }
//	  ]
//	}
//
// Handlers are sorted by name, conditions by their data and then template.
// A condition has its template, its data's names in the template's operand
// order, its fitted "constants" ({"a": 0, "b": 9}, {"s": [1, 2, 3]}, a
// pair one-of set {"p": [{"x": "en", "y": "US"}, ...]}) when it has any,
// its support (samples it was checked on), its confidence
// (1 - the chance it held by accident), for an implication its "guard"
// (the tested datum it is conditional on: "guard ==> condition", learned
// from the samples in which the guard was true; the state keeps those
// samples' state under "guards"), and the user's flags "disabled"
// (kept but never used) and "pinned" (kept through merges). "text" is
// derived; when reading, it is ignored. Users may edit the file: delete a
// condition, disable or pin one, even add one (template, vars, constants).
// [ParseSpec] checks such edits and says which handler and condition is
// wrong.
//
// The state is what merging needs: [Merge] rebuilds each handler's learner
// from it, so specs learned on disjoint shards of the traces merge into
// exactly the spec of learning on all of them, and re-derives the
// conditions, keeping the user's edits (disabled and deleted conditions
// stay off, pinned ones stay). That takes the state of every datum and
// pair met ([Options].Mergeable). By default [Learn] reads the traces
// twice and keeps the state of only the data and pairs met in at least
// min_samples samples, which all the conditions need ("partial_state":
// true); Merge refuses such specs unless forced.
//
// # Daikon
//
// [WriteDaikon] writes the samples of a run as Daikon .decls and .dtrace
// files (one program point per handler, one comparability class per
// abstract type), so Daikon can be run on exactly the data licorice
// learned from.
package learn
