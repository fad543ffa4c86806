'use strict';
// fs.promises with await: each continuation runs after its operation,
// the two functions' continuations in any order.
const fsp = require('fs').promises;
async function r1() {
  await fsp.stat(__filename);
  await fsp.access(__filename);
}
async function r2() {
  await fsp.readFile(__filename);
}
r1();
r2();
setTimeout(function x1() {}, 1);
