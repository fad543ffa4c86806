'use strict';
// Immediates set inside different fs callbacks: each after its callback,
// the two in any order.
const fs = require('fs');
fs.stat(__filename, function f1() {
  setImmediate(function i1() {});
});
fs.lstat(__filename, function f2() {
  setImmediate(function i2() {});
});
setImmediate(function i0() {});
