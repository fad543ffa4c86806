'use strict';
// process.nextTick callbacks run in the order they were queued, nested
// ticks after the ticks queued before them.
process.nextTick(function t1() {
  process.nextTick(function t3() {
    process.nextTick(function t5() {});
  });
});
process.nextTick(function t2() {
  process.nextTick(function t4() {});
});
