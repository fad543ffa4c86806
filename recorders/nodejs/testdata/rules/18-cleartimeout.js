'use strict';
// clearTimeout of a pending timer: it never fires; timers set after it
// with the same duration still fire in order.
const never = setTimeout(function xNever() {}, 4);
process.nextTick(function t1() {
  clearTimeout(never);
});
setTimeout(function x1() {}, 4);
const late = setTimeout(function xLate() {}, 4);
setTimeout(function x2() {
  clearTimeout(late); // too late in the runs where the 4 ms timers fire first
}, 1);
