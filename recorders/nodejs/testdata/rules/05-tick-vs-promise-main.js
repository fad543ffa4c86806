'use strict';
// In the main module: every tick runs before every microtask, whatever
// the order they were queued in.
Promise.resolve().then(function m1() {});
process.nextTick(function t1() {});
Promise.resolve().then(function m2() {});
process.nextTick(function t2() {});
