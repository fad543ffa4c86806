// Package detect finds pairs of concurrent events that are likely not to
// commute (thesis §5.2.2, §5.4): one event relies on a learned
// precondition that another makes true or false, and no happens-before
// order fixes which runs first.
package detect
