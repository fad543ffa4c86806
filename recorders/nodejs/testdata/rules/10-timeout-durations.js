'use strict';
// Timers of different durations: no order is kept (a shorter one set
// later usually fires first; the shuffler's per-duration delays move
// them around).
setTimeout(function x10() {}, 10);
setTimeout(function x5() {}, 5);
setTimeout(function x0() {}, 0);
setTimeout(function x2() {
  setTimeout(function x3late() {}, 3);
}, 2);
