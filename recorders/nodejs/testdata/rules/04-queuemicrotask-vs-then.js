'use strict';
// queueMicrotask and promise reactions share one FIFO microtask queue.
queueMicrotask(function q1() {});
Promise.resolve().then(function m1() {
  queueMicrotask(function q3() {});
});
queueMicrotask(function q2() {
  Promise.resolve().then(function m3() {});
});
Promise.resolve().then(function m2() {});
