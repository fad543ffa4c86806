'use strict';
// A small cache service with an ordering bug, in the manner of MyTracks'
// dataHub (the thesis' running example): the configuration is read from
// disk asynchronously, and nothing orders that read before the first
// lookup. Usually the file is read in a millisecond and the first request
// comes later; when the disk is slow, lookup finds no configuration and
// throws.

const fs = require('fs');
const { EventEmitter } = require('events');

class Cache extends EventEmitter {
  constructor(file) {
    super();
    this.file = file;
    this.config = null; // set by onConfig
    this.entries = {}; // key -> value
    this.log = [];
  }

  load() {
    fs.readFile(this.file, 'utf8', this.onConfig.bind(this));
  }

  onConfig(err, text) {
    if (err) throw err;
    this.config = JSON.parse(text);
    this.emit('ready');
  }

  // lookup relies on the configuration: this.config != null.
  lookup(key) {
    const limit = this.config.maxEntries;
    const hit = this.entries[key];
    if (hit !== undefined) return hit;
    const value = key.toUpperCase();
    if (Object.keys(this.entries).length < limit) this.entries[key] = value;
    return value;
  }

  // record appends to the log: requests may log in any order.
  record(line) {
    this.log.push(line);
  }
}

module.exports = { Cache };
