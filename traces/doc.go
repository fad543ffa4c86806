// Package traces is the trace model of licorice: what one execution of an
// event-driven program looks like, how it is spelled on disk, and which
// traces are valid.
//
// A trace is a header followed by operations in the order they executed
// (DESIGN §3, docs/trace-format.md). The in-memory model is built for speed:
//
//   - every id and name (tasks, queues, objects, fields, handlers, source
//     locations, string values) is interned into a [Symbols] table and
//     carried as a 4-byte [Sym];
//   - an [Op] is a flat struct without pointers, reused by the decoders;
//   - a [Value] is a 16-byte tagged union (null, reference, int64, float64,
//     bool, string).
//
// Traces are streamed: a [Reader] yields one operation at a time and a
// [Writer] appends them, so analyses never need the whole trace in memory.
// Three forms exist, detected by content when read: JSON Lines (.jsonl),
// JSON Lines compressed with zstd (.jsonl.zst), and the compact binary form
// (.lct). All three carry exactly the same information; writing any trace
// as JSONL yields its canonical text, byte for byte, whatever form it was
// read from.
//
// A [Validator] checks every rule of the contract (an event that begins
// twice, an op of an event that is not running, an unbalanced call/ret, ...)
// and reports each error with its file, line, op and task. Readers validate
// by default, so an analysis never sees an invalid operation.
//
// [Copy], [ValidateAll] and [Summarize] are the whole-trace loops behind
// `licorice traces convert`, `validate` and `stat`. The forms are specified
// byte by byte in docs/trace-format.md.
package traces
