'use strict';
const { Worker } = require('worker_threads');
let answer = null;
const w = new Worker('require("worker_threads").parentPort.postMessage(6 * 7)', { eval: true });
w.on('message', function onMessage(v) { answer = v; });
w.on('exit', function onExit() { if (answer !== 42) throw new Error('worker said ' + answer); });
