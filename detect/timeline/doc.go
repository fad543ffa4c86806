// Package timeline extracts from a trace what a picture of two of its
// events needs: the threads as lanes, the events around the two as boxes
// in trace order, and the sends, forks and signal handoffs between what
// is drawn as arrows. A long trace is drawn only around the two: [Around]
// events on each side of each, the events between them counted.
//
// Reports draw it (package detect/htmlreport); the arrows are the orders the
// trace shows, and a pair with no chain of them is what the report is
// about.
package timeline
