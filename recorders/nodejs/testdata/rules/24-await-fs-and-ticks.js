'use strict';
// An async function awaiting fs.promises and a timer-backed promise,
// against ticks, a timer and an immediate queued around it.
const fsp = require('fs').promises;
function sleep(ms) {
  return new Promise(function sleeper(resolve) {
    setTimeout(function xs() {
      resolve();
    }, ms);
  });
}
async function w1() {
  process.nextTick(function t1() {});
  await fsp.stat(__filename);
  process.nextTick(function t2() {});
  await sleep(2);
  setImmediate(function i2() {});
}
w1();
setTimeout(function x1() {}, 1);
