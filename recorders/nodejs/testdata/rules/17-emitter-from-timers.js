'use strict';
// EventEmitter listeners run synchronously inside the emitting callback;
// what they queue follows that callback.
const EventEmitter = require('events');
const em = new EventEmitter();
em.on('ping', function onPing(tag) {
  if (tag === 1) process.nextTick(function t1() {});
  else Promise.resolve().then(function m2() {});
});
setTimeout(function x1() {
  em.emit('ping', 1);
}, 1);
setTimeout(function x2() {
  em.emit('ping', 2);
}, 2);
