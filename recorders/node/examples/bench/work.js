'use strict';
// A workload for measuring the recorder's cost (docs/node.md): N rounds
// of timers, immediates, promise chains, awaits and fs callbacks, each
// touching a few fields of shared objects. `node work.js [N] [--no-keep]`.

const fs = require('fs');

const rounds = Number(process.argv[2] || 2000);
const keep = !process.argv.includes('--no-keep'); // keep every item: memory grows with N
const stats = { done: 0, sum: 0, last: null };
const items = [];

class Item {
  constructor(i) {
    this.id = i;
    this.state = 'new';
    this.value = 0;
  }
  advance(v) {
    if (this.state === 'new') this.state = 'busy';
    this.value += v;
    stats.sum += v;
  }
}

async function job(item) {
  item.advance(1);
  await null;
  item.advance(2);
  const v = await Promise.resolve(3);
  item.advance(v);
  stats.done++;
  stats.last = item;
}

let round = 0;
function next() {
  if (round === rounds) return;
  const item = new Item(round++);
  if (keep) items.push(item);
  job(item);
  if (round % 4 === 0) fs.stat(__filename, function statted() { item.advance(5); next(); });
  else if (round % 2 === 0) setImmediate(function soon() { item.advance(7); next(); });
  else setTimeout(function later() { item.advance(11); next(); }, 0);
}
next();
process.on('exit', function check() {
  if (stats.done !== rounds) throw new Error('done ' + stats.done + ' of ' + rounds);
});
