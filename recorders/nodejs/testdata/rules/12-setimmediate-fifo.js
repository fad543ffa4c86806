'use strict';
// setImmediate callbacks run in creation order; one set inside an
// immediate runs after all that were queued before it.
setImmediate(function i1() {
  setImmediate(function i3() {});
});
setImmediate(function i2() {
  setImmediate(function i4() {
    setImmediate(function i5() {});
  });
});
