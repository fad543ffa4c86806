'use strict';
// Inside a microtask: microtasks queued there run before the ticks queued
// there, even those queued earlier; the ticks run once the microtask
// queue is empty.
Promise.resolve().then(function m0() {
  process.nextTick(function t1() {
    Promise.resolve().then(function m3() {});
  });
  Promise.resolve().then(function m1() {
    process.nextTick(function t2() {});
  });
  queueMicrotask(function q1() {});
});
Promise.resolve().then(function m2() {});
