'use strict';
// fs callbacks complete in any order, against each other and against
// timers.
const fs = require('fs');
fs.readFile(__filename, function f1() {});
fs.stat(__filename, function f2() {});
fs.access(__filename, function f3() {});
setTimeout(function x1() {}, 1);
