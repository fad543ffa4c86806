// Package heapprof keeps a process's heap profile at its largest live
// heap, for whoever measures it: a heap profile taken as a command ends
// shows what is still held then, which for a command that frees its
// state as it finishes is next to nothing.
//
// Watch looks, after every garbage collection, at the bytes in use that
// the heap profile counts and, when they are a tenth more than in the
// last profile it took, takes another; Stop returns the last one. (The
// runtime publishes a collection's figures once its sweep is done, so
// right after a collection the profile may still show the one before:
// Watch judges by what the profile shows, not by the live heap the
// collection measured.) A profile's allocation figures count what was
// allocated until then.
package heapprof
