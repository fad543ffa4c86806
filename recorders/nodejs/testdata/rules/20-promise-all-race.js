'use strict';
// Promise.all settles after all its inputs, Promise.race after the first.
const p1 = new Promise(function e1(resolve) {
  setTimeout(function x1() {
    resolve(1);
  }, 1);
});
const p2 = new Promise(function e2(resolve) {
  setTimeout(function x2() {
    resolve(2);
  }, 2);
});
Promise.all([p1, p2]).then(function mAll() {});
Promise.race([p1, p2]).then(function mRace() {});
