// Package invariants is licorice's catalog of condition templates and the
// incremental learner that instantiates them: from samples of named values
// it finds the atomic conditions no sample falsified and that are unlikely
// to hold only by chance (thesis §5.3.1; Daikon's ideas, built in).
//
// It knows nothing about traces: a sample is a list of [Var] (a name, a
// [Value], an abstract-type group, whether it was dereferenced). The learn
// package turns handler invocations into samples.
//
// # Templates
//
// A [Template] has an arity (1: over x; 2: over x and y), the operand types
// it applies to, its constants and a fitter that fits them, and a formula
// for the probability that it holds only by chance. The built-ins
// ([Builtins]) are:
//
//	null      x == null        pointer, string
//	nonnull   x != null        pointer, string
//	const     x == a           number, bool, string
//	oneof     x in {a, b, c}   number, string (two or three values)
//	range     a <= x <= b      number
//	lower     x >= a           number
//	upper     x <= b           number
//	nonzero   x != 0           number
//	eq        x == y           any (pointers: the same object)
//	ne        x != y           any
//	lt        x < y            number
//	le        x <= y           number
//	linear    y == a*x + b     number
//	divides   x % y == 0       int
//	square    y == x*x         number
//	disjoint  x & y == 0       int
//	subset    x & y == x       int
//	pairs     (x, y) in {(a1, b1), ...}   int, string (up to 8 pairs)
//
// Binary templates are tried in both orders where order matters (x < y
// and y < x; x % y and y % x), so x >= y is y <= x and x > y is y < x.
// User templates ([TemplateDecl], read from a JSON file by
// [ParseTemplateFile]) are expr-lang expressions over x and y, compiled
// once per operand type and evaluated on pooled machines. With no fitter
// the expression is the condition; with a fitter (const, oneof, bounds,
// nonzero) the expression computes a value and the fitter fits constants
// to it exactly as the built-in unary templates do to a datum. A
// [Catalog] holds built-ins and user templates together.
//
// # Learning
//
// A [Learner] learns from the samples of one run (one execution) and
// keeps, per datum, a [Summary] (counts by kind, the numeric extremes and
// how often and in how many runs each was hit, the smallest four distinct
// values)
// and, per pair of data in one abstract type, a [PairState] (how often
// x < y, x == y, x > y; which exact relations a sample broke; the line
// through the extreme points; the smallest five distinct pairs; every
// distinct pair with its count while there are at most [MaxPairs] and all
// are integers or strings, else a flag that they are not). Every
// condition is decided from these at the end, so memory is bounded by the
// data and pairs, never by the number of samples, and every field is a
// count, an extreme, a flag that only turns on, or the smallest k of a
// total order. Learners of runs are merged ([Learner.Merge]), and hence
// the merge property: learning on two sets of runs and merging gives
// exactly the state of learning on all of them, in any order.
//
// A handler that reads many data forms millions of pairs, nearly all met
// in a sample or two, that no condition can come of (every condition
// needs MinSupport samples). A [SupportCounter] counts, in a first pass
// over the samples, those of each datum and pair in a word per datum per
// sample; [Learner.Restrict] then learns only what was met often enough
// ([Supported]), drops a pair's state once every relation between its
// data is broken, and a datum's distinct values once there are more than
// MaxOneOf (Summary.Many). The conditions are the same; the state lacks
// the rest, so it no longer merges exactly.
//
// A value of another type than a template's falsifies it; a datum with
// no value in a sample (absent) is not checked on that sample, so each
// condition has its own support: the samples it was checked on.
//
// # Justification
//
// A condition that no sample falsified is reported if its chance — the
// probability that it held on its n samples by accident — is at most a
// limit (default 0.01) and n is at least a minimum (default 5). The
// formulas follow Daikon's, each the probability of the observations
// under a plausible alternative in which the condition is false:
//
//   - x == null: (1/3)^n. A pointer is null by chance a third of the time
//     (Daikon's r = 3 for pointers), so n nulls by accident is (1/3)^n.
//   - x != null: (2/3)^n, by the same prior; but 0 if the handler
//     dereferenced x in every sample (the trace's deref flag): the program
//     itself says it needs x non-null, or it would have crashed.
//   - x == null and x != null are not reported for a pointer the code
//     tested for null (the trace's branch ops) in every sample: a handler
//     that checks `if (p != null)` copes with both, so neither is its
//     precondition (thesis §5.6.4's control-flow false alarms).
//   - x == a: (1/2)^n, and x in {a, b, c} with k values: (k/(k+1))^n. If
//     x could take one more value, as likely as each seen, n samples would
//     all have missed it with that probability. Booleans make this exact.
//   - a <= x <= b: each bound must be reached by several runs. A lower
//     bound a reached in r_a runs is a real bound unless the values
//     continued below it; had the value below been as likely as a, each of
//     those runs would have gone below with probability 1/2, so all r_a
//     stopping at a has probability (1/2)^r_a. x >= a has chance
//     (1/2)^r_a, x <= b (1/2)^r_b, the range the larger of the two. Runs,
//     not samples, because the samples of one run are not independent: a
//     value that sits at its high point for many frames is one
//     observation (a random walk's peak is reached by one run; a clamp,
//     like a zoom's minimum, by most). Daikon asks for the bound to be hit
//     often; this is that rule as a probability over executions. A spec
//     learned from one trace has no bounds.
//   - x != 0: (1 - 1/r)^n with r the number of values x plausibly ranges
//     over: the span from the smallest to the largest of its values and 0,
//     at most 50 (Daikon's cap); 50 for floats. Zero would be one of r
//     values, missed n times.
//   - x == y, x != y, x < y, x <= y: (1/2)^n, the chance of n coin flips
//     agreeing (Daikon's for orderings; stricter than Daikon for equality,
//     which Daikon accepts from one sample: two counters both 0 are equal
//     without meaning it).
//   - y == a*x + b: 1 - min(d, 4)/4 with d distinct (x, y) pairs: any two
//     points are on a line, so the confidence grows linearly with distinct
//     points until four (Daikon).
//   - x % y == 0, y == x*x, x & y == 0, x & y == x: 1 - min(d, 5)/5 with d
//     distinct pairs (Daikon's five distinct tuples).
//   - (x, y) in S, S the distinct pairs seen (at most 8, integers or
//     strings): (sum over (a, b) in S of p(a)·q(b))^n, with p and q the
//     frequencies of x's and y's values in the n samples. Were x and y
//     independent with those frequencies, a sample would fall in S with
//     probability sum p(a)·q(b), and all n would with its n-th power.
//     Proposed only when S is strictly smaller than the product of x's
//     and y's distinct values: otherwise the pairs say nothing the values
//     alone do not. Four locales of four languages and four countries,
//     equally frequent: (4/16)^n, justified from n = 4.
//   - user templates without a fitter: 1 - min(d, k)/k with d distinct
//     operand tuples and k the template's min_distinct (default 5); with a
//     fitter: the formula of the fitter's built-in family.
//
// # Suppression
//
// Conditions implied by other justified conditions are not reported:
// x == a hides x != 0, x != null, the bounds and x in {...}; a one-of set
// hides the bounds; a range hides its one-sided halves; bounds that leave
// 0 out hide x != 0; two data with one value each hide every condition
// between them; bounds hide the orderings they imply (x <= 3 and y >= 5
// hide x < y, x <= y and x != y); y == x + b hides x < y (b > 0) and
// x != y; x == null and y != null hide x != y;
// x == y hides the other relations between x and y; a relation that makes
// one datum a function of the other (x == y, y == a*x + b, y == x*x)
// hides (x, y) in S, which then only lists the values of one; one-of sets
// of x and y hide it when every pair of their product that the reported
// relations between x and y allow is in S; in a class of equal
// data only the equalities with the smallest name (the leader) are kept,
// and a condition on a member is dropped when the same condition holds on
// the leader; constants that make a relation trivial hide it (0 % y,
// x % 1, 0 & y, x & -1). A premise is always a reported condition or
// implied by reported ones, so nothing is lost.
//
// # Evaluation
//
// [Condition.Eval] evaluates a condition on values bound to its data, for
// detection: built-ins are Go code, user templates run their compiled
// expression on a pooled machine. [FromTrace] converts a trace value.
package invariants
