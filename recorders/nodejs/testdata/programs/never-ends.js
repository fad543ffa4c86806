'use strict';
let n = 0;
setInterval(function forever() { n++; }, 5);
