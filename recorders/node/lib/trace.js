'use strict';
// The trace writer: licorice's JSON Lines trace format
// (docs/trace-format.md), written to one file with synchronous writes so
// that nothing the program does (an exception, process.exit) loses what
// was recorded before it. Lines are buffered and flushed in large chunks;
// once the process is exiting every line is written at once.
//
// Values are spelled as the contract says: null for null and undefined
// (JavaScript's `== null`), numbers as integers when they are safe
// integers and as floats (with a fraction or an exponent) otherwise,
// booleans, strings (cut to maxString characters), and objects and
// functions as references to objects named by the caller (see heap.js).

const fs = require('fs');

const flushAt = 1 << 18; // bytes buffered before a write
const maxString = 200; // longer strings are cut and marked
const flushEvery = 200; // ms between flushes at most, while ops come

class TraceWriter {
  /**
   * @param {string} path the file to write (created or truncated)
   * @param {object} header the header's fields after licorice_trace
   */
  constructor(path, header) {
    this.fd = fs.openSync(path, 'w');
    this.buf = [];
    this.size = 0;
    this.sync = false; // every line written at once (the process is exiting)
    this.start = process.hrtime.bigint();
    this.lastFlush = 0;
    this.ops = 0;
    this.line(JSON.stringify({ licorice_trace: 1, ...header }));
    this.flush(); // a run killed early still has its header
  }

  /** now is the time since the recording began, in ms with µs precision. */
  now() {
    return Number((process.hrtime.bigint() - this.start) / 1000n) / 1000;
  }

  /**
   * op writes one operation. fields are its fields after "op" and "t", in
   * any order; undefined fields are left out, strings are quoted, numbers
   * and booleans written as they are, and {json} objects as their JSON.
   */
  op(kind, task, fields, src) {
    let s = '{"op":"' + kind + '"';
    if (task !== undefined) s += ',"t":' + str(task);
    if (fields !== undefined) {
      for (const k in fields) {
        const v = fields[k];
        if (v !== undefined) s += ',"' + k + '":' + (typeof v === 'string' ? str(v) : typeof v === 'object' ? v.json : v);
      }
    }
    const ts = this.now();
    s += ',"ts":' + ts;
    if (src) s += ',"src":' + str(src);
    this.ops++;
    this.line(s + '}');
    // A run that is killed (a timeout) loses at most flushEvery ms.
    if (ts - this.lastFlush > flushEvery) {
      this.lastFlush = ts;
      this.flush();
    }
  }

  line(s) {
    this.buf.push(s);
    this.size += s.length + 1;
    if (this.sync || this.size >= flushAt) this.flush();
  }

  flush() {
    if (this.buf.length === 0 || this.fd < 0) return;
    const data = this.buf.join('\n') + '\n';
    this.buf = [];
    this.size = 0;
    fs.writeSync(this.fd, data);
  }

  close() {
    this.flush();
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }
}

/** raw marks JSON text to write as it is (undefined stays undefined). */
function raw(json) {
  return json === undefined ? undefined : { json };
}

/** str spells a string as JSON, lone surrogates replaced (the format is UTF-8). */
function str(s) {
  return JSON.stringify(s.toWellFormed());
}

/**
 * encodeScalar spells a primitive value as trace JSON, or returns undefined
 * for one the contract cannot hold (NaN, ±Infinity, a symbol): the value is
 * then not recorded.
 */
function encodeScalar(v) {
  switch (typeof v) {
    case 'undefined':
      return 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) return undefined;
      if (Number.isSafeInteger(v)) return Object.is(v, -0) ? '0' : String(v);
      if (Number.isInteger(v)) return v.toExponential(); // an exponent keeps it a float
      return String(v); // has a fraction or an exponent
    case 'bigint':
      if (v >= -(2n ** 63n) && v < 2n ** 63n) return v.toString();
      return JSON.stringify(v.toString());
    case 'string':
      if (v.length > maxString) v = v.slice(0, maxString) + '…(' + v.length + ')';
      return str(v);
    default:
      return v === null ? 'null' : undefined;
  }
}

module.exports = { TraceWriter, encodeScalar, str, raw };
