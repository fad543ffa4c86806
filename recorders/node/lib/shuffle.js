'use strict';
// Schedule shuffling for training runs: a seeded injector of delays where
// Node promises no order, so that a corpus sees the orders that real
// deployments see. It never breaks a guarantee of docs/causality.md:
//
//   - every timer duration D used in the run gets, with probability p, one
//     extra delay X(D) for the whole run: all timers of duration D become
//     timers of duration D + X(D), so those set in order still fire in
//     order (they share one list), while their order against timers of
//     other durations, immediates and I/O moves;
//   - the callback of an asynchronous fs call is, with probability p, run
//     X ms after the operation completed (by a timer of the recorder's,
//     recorded as the completion's own delivery); fs.promises likewise.
//
// X is exponentially distributed with mean delayMean ms, cut to 10 times
// that. The same seed makes the same decisions in the same order.

const fs = require('fs');

/** rng is a small seeded generator (sfc32), the same on every platform. */
function rng(seed) {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = Number(BigInt.asUintN(32, BigInt(seed))) >>> 0;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return (r >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/**
 * install patches timers and fs for a shuffled run. rec is the recorder
 * (its internal counters mark the injector's own timers).
 */
function install(rec, { seed, delayMean = 10, probability = 0.5 }) {
  const random = rng(seed);
  const draw = () => Math.min(-Math.log(1 - random()) * delayMean, 10 * delayMean);
  const extra = new Map(); // duration -> extra ms (0: none)
  const extraFor = (d) => {
    let x = extra.get(d);
    if (x === undefined) {
      x = random() < probability ? Math.round(draw()) : 0;
      extra.set(d, x);
    }
    return x;
  };
  const duration = (d) => {
    const n = Number(d);
    return n >= 1 && n <= 2147483647 ? n : 1; // as Node clamps it
  };

  const { setTimeout: st, setInterval: si } = globalThis;
  globalThis.setTimeout = function setTimeout(cb, d, ...args) {
    if (typeof cb !== 'function') return st(cb, d, ...args);
    const n = duration(d);
    return st(cb, n + extraFor(n), ...args);
  };
  globalThis.setInterval = function setInterval(cb, d, ...args) {
    if (typeof cb !== 'function') return si(cb, d, ...args);
    const n = duration(d);
    return si(cb, n + extraFor(n), ...args);
  };

  // later runs f after ms on a timer of the recorder's own: its firing is
  // delivered as an I/O completion whose origin is the running task.
  const later = (f, ms) => {
    rec.off++;
    rec.internalOrigin++;
    try {
      st(f, ms);
    } finally {
      rec.internalOrigin--;
      rec.off--;
    }
  };

  for (const name of Object.keys(fs)) {
    const orig = fs[name];
    if (typeof orig !== 'function' || name.endsWith('Sync') || /^[A-Z]/.test(name) || name.startsWith('watch') || name.startsWith('create') || name === 'unwatchFile') continue;
    fs[name] = function (...args) {
      const cb = args[args.length - 1];
      if (typeof cb === 'function' && random() < probability) {
        const ms = draw();
        args[args.length - 1] = function (...res) {
          later(() => cb.apply(this, res), ms);
        };
      }
      return orig.apply(this, args);
    };
    Object.defineProperty(fs[name], 'name', { value: name });
  }
  const fsp = fs.promises;
  for (const name of Object.keys(fsp)) {
    const orig = fsp[name];
    if (typeof orig !== 'function' || name === 'constants' || name.startsWith('watch')) continue;
    fsp[name] = function (...args) {
      const p = orig.apply(this, args);
      if (random() >= probability) return p;
      const ms = draw();
      return new Promise((resolve, reject) => {
        p.then(
          (v) => later(() => resolve(v), ms),
          (e) => later(() => reject(e), ms),
        );
      });
    };
  }
}

module.exports = { install, rng };
