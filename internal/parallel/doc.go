// Package parallel runs a loop over items (traces, typically) on a few
// goroutines, with progress and cancellation: the first failure cancels
// the rest, and the error returned does not depend on scheduling.
package parallel
