'use strict';
// clearTimeout of a pending timer: it never fires; timers set after it
// with the same duration still fire in order.
const never = setTimeout(function xNever() {}, 4);
process.nextTick(function t1() {
  clearTimeout(never);
});
setTimeout(function x1() {}, 4);
const late = setTimeout(function xLate() {}, 6);
setTimeout(function x2() {
  clearTimeout(late); // may come after xLate fired (shuffled durations)
}, 1);
