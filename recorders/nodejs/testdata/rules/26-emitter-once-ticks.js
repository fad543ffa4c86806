'use strict';
// A listener added with once runs on the first emit only; listeners run
// in registration order inside the emitting callback.
const EventEmitter = require('events');
const em = new EventEmitter();
em.once('go', function onceGo() {
  process.nextTick(function t1() {});
});
em.on('go', function onGo(from) {
  if (from === 'immediate') Promise.resolve().then(function mI() {});
  else Promise.resolve().then(function mX() {});
});
setImmediate(function i1() {
  em.emit('go', 'immediate');
});
setTimeout(function x1() {
  em.emit('go', 'timer');
}, 1);
