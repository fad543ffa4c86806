// Package jsonout writes licorice's JSON documents (reports, explanations,
// comparisons) the one way they are all written: indented by two spaces,
// without HTML escapes, and whole or not at all.
package jsonout
