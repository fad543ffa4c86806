'use strict';
// The reactions of one promise, registered before and after it settles,
// run in registration order; a then on a settled promise queues its
// reaction at once.
let resolveP;
const p = new Promise(function executor(resolve) {
  resolveP = resolve;
});
p.then(function m1() {});
p.then(function m2() {});
setTimeout(function x1() {
  resolveP(1);
  p.then(function m3() {});
}, 1);
setTimeout(function x2() {
  p.then(function m4() {});
}, 2);
