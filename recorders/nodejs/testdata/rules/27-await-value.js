'use strict';
// Awaiting a value that is not a promise, in an async function whose
// promise has a reaction.
async function a1() {
  await null;
}
a1().then(function m1() {});
