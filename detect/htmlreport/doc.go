// Package htmlreport writes a report of detect or races as one
// self-contained HTML page: a list of the report groups that can be
// filtered, sorted and walked with the keyboard, and for each group its
// facts, its two events and a timeline of the example (package
// timeline): the threads as lanes, the events around the pair as boxes,
// the sends, forks and signals that order them as arrows, and the order
// that is missing stated on the picture. Styles and script are inline
// and small; the page needs no network, reads in light and dark mode
// and prints every group; the same report gives the same bytes.
package htmlreport
