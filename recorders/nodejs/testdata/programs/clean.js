'use strict';
const state = { count: 0, last: null };
function step(i) {
  state.count++;
  state.last = i;
}
for (let i = 0; i < 3; i++) setTimeout(step, 1, i);
setImmediate(function check() { state.checked = true; });
Promise.resolve(1).then(function then1(v) { state.p = v; });
