// Package nodejs records executions of Node.js programs as licorice
// traces: it runs `node PROGRAM ARGS…` with the JavaScript recorder of
// recorders/node preloaded (async_hooks and V8 promise hooks for events
// and sends, a load-time Babel transform for heap accesses), then turns
// the recorder's raw JSON Lines into a valid trace of any format, written
// whole or not at all. It is what `licorice record -- node …` runs.
//
// The model the recorder states (docs/causality.md, "Node.js"): one
// looper thread "main"; process.nextTick callbacks, microtasks and
// setImmediate callbacks on queue "jobs" (their send's delay is their
// category), timers on one queue per duration "timer:D", and every other
// callback delivered to "io" by a short-lived worker thread that waits on
// its origin's signal.
// Queues first used inside an event are attached here, when the trace is
// written, since a looper attaches queues only outside its events.
package nodejs
