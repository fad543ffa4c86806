'use strict';
// Inside an I/O callback an immediate set there runs before a timer set
// there (Node's documented behaviour; the model leaves it out).
const fs = require('fs');
fs.readFile(__filename, function f1() {
  setTimeout(function x0() {}, 0);
  setImmediate(function i1() {});
});
