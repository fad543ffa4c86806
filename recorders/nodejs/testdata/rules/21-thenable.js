'use strict';
// A promise resolved with a thenable takes an extra job that calls its
// then; the promise's reactions follow that job.
const th1 = {
  then: function thenA(resolve) {
    resolve(1);
  },
};
const th2 = {
  then: function thenB(resolve) {
    resolve(2);
  },
};
Promise.resolve(th1).then(function m1() {});
Promise.resolve()
  .then(function m0() {
    return th2;
  })
  .then(function m2() {});
queueMicrotask(function q1() {});
