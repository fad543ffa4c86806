'use strict';
// Two chains of timers, each link set by the one before: each chain is
// ordered, the two chains interleave in any order.
setTimeout(function a1() {
  setTimeout(function a2() {
    setTimeout(function a3() {}, 1);
  }, 1);
}, 1);
setTimeout(function b1() {
  setTimeout(function b2() {
    setTimeout(function b3() {}, 3);
  }, 3);
}, 3);
