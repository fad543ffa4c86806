'use strict';
// fs callbacks against timers and immediates set from other callbacks.
const fs = require('fs');
const os = require('os');
fs.stat(os.tmpdir(), function f1() {
  setImmediate(function i1() {});
});
setTimeout(function x1() {
  fs.readFile(__filename, function f2() {});
}, 1);
setTimeout(function x5() {
  setImmediate(function i2() {});
}, 5);
