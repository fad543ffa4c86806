'use strict';
// setTimeout(f, 0) against setImmediate(g) in the main module: either may
// run first. The main module spins a little so that the timer is often
// due when the loop starts.
setTimeout(function x0() {}, 0);
setImmediate(function i1() {});
const until = Date.now() + 2;
while (Date.now() < until) {
  // spin
}
