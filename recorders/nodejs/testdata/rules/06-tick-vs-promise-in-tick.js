'use strict';
// Inside a tick: ticks queued there run before the microtasks queued
// there and before those queued earlier.
Promise.resolve().then(function m0() {});
process.nextTick(function t0() {
  Promise.resolve().then(function m1() {});
  process.nextTick(function t1() {});
  queueMicrotask(function q1() {});
  process.nextTick(function t2() {});
});
