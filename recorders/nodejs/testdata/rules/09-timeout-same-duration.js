'use strict';
// Timers of one duration fire in the order they were set, whether set in
// one callback or in different ones.
setTimeout(function x1() {}, 5);
setTimeout(function x2() {}, 5);
setTimeout(function y1() {
  setTimeout(function x3() {}, 5);
}, 3);
setTimeout(function y2() {
  setTimeout(function x4() {}, 5);
}, 4);
