// Package asyncclock computes the happens-before relation of an
// event-driven trace, exactly as docs/causality.md defines it.
//
// Two engines live here. [Engine] is AsyncClock (thesis ch. 4): one pass
// over the operations as they stream from a [traces.Reader], giving every
// operation a logical time — a vector clock over chains — in memory that
// stays flat with the time-window approximation. [Graph] is the reference
// engine: an explicit graph of the rules saturated to a fixpoint, slow and
// obviously right, used to test the first and to explain orders.
package asyncclock
