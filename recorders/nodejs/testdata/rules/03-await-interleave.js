'use strict';
// Two async functions' await continuations interleave in the order their
// awaits queued them.
async function a1() {
  await Promise.resolve(1);
  await Promise.resolve(2);
  await Promise.resolve(3);
}
async function b1() {
  await Promise.resolve(1);
  await Promise.resolve(2);
}
a1();
b1();
