'use strict';
// The driver: a cache and a few requests that arrive on timers and from
// an immediate, as a server's would. `node main.js` has the bug: the
// first request is not ordered after the configuration is loaded.
// `node main.js --fixed` starts taking requests only once the cache is
// ready.

const path = require('path');
const { Cache } = require('./cache');

const fixed = process.argv.includes('--fixed');
const cache = new Cache(path.join(__dirname, 'config.json'));
cache.load();

function serve() {
  setTimeout(function request(key) {
    cache.record('request ' + key);
    cache.lookup(key);
  }, 30, 'alpha');
  setTimeout(function request(key) {
    cache.record('request ' + key);
    cache.lookup(key);
  }, 60, 'beta');
  setImmediate(function flushLog() {
    cache.record('flush');
  });
}

if (fixed) {
  cache.on('ready', serve);
} else {
  serve();
}
