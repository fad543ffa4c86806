'use strict';
// Inside timers: each timer's ticks and microtasks run before the next
// timer of the same list fires.
setTimeout(function x1() {
  Promise.resolve().then(function m1() {});
  process.nextTick(function t1() {});
}, 1);
setTimeout(function x2() {
  process.nextTick(function t2() {});
  Promise.resolve().then(function m2() {});
}, 1);
