'use strict';
// An interval's firings are ordered (each sends the next); clearInterval
// stops it. The firings are labelled v, v#2, v#3.
let n = 0;
const h = setInterval(function v() {
  n++;
  if (n === 3) clearInterval(h);
}, 2);
setTimeout(function x3() {}, 3);
