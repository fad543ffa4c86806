// Package heapprof keeps a process's heap profile at its largest live
// heap, for whoever measures it: a heap profile taken as a command ends
// shows what is still held then, which for a command that frees its
// state as it finishes is next to nothing.
//
// Watch looks, after every garbage collection, at the live heap it left
// (runtime/metrics' /gc/heap/live:bytes) and, when that is a tenth more
// than at the last profile it took, takes another; Stop returns the last
// one. A profile's in-use figures are those of the collection that found
// the peak (or of a later one, if the next cycle ended before the profile
// was taken); its allocation figures count what was allocated until then.
package heapprof
