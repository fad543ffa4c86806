// Package sympages is a table keyed by small integers handed out one
// after the other (a trace's Syms), that keeps its values by value in
// pages made when first written: a lookup is two indexings, not a hash,
// and keys far apart cost a page each, not a table up to the largest. A
// table that grows never copies what it holds.
package sympages
