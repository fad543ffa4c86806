'use strict';
// The runtime that instrumented code calls (lib/API.md): heap reads and
// writes with their values, allocations, handler calls, relations. Objects
// are named o1, o2, … in the order the recorder first meets them; one
// made by instrumented code is allocated at its source location, one
// made elsewhere (Node, an uninstrumented package) or met first inside
// its constructor is allocated when it is first read or written, at a
// site named by its constructor ("Cache", "Socket", "Object").

const { encodeScalar, str, raw } = require('./trace');

/** maxInitFields bounds the initial fields an object literal's alloc records. */
const maxInitFields = 32;

function createRuntime(rec) {
  const ids = new WeakMap(); // object -> "oN"
  let objects = 0;
  let scopes = 0;
  let frames = 0;
  let last = null; // the location of the last tracked read, as JSON
  let lastLoc = null; // the same, as fields of an op
  const frameInfo = new Map(); // frame token -> {name, task, handler}

  const on = () => rec.off === 0;

  const typeName = (o) => {
    if (typeof o === 'function') return 'Function';
    try {
      const c = Object.getPrototypeOf(o);
      if (c === null) return 'Object';
      const ctor = c.constructor;
      return typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name !== '' ? ctor.name : 'Object';
    } catch {
      return 'Object';
    }
  };

  /** ref names object o, allocating it (as made elsewhere) on first sight. */
  const ref = (o) => {
    let id = ids.get(o);
    if (id === undefined) {
      id = 'o' + ++objects;
      ids.set(o, id);
      const t = typeName(o);
      rec.emit('alloc', { obj: id, site: t, type: t });
    }
    return id;
  };

  /** value spells v as trace JSON (undefined: not recordable). */
  const value = (v) => {
    if (v !== null && (typeof v === 'object' || typeof v === 'function')) return '{"ref":' + str(ref(v)) + '}';
    return encodeScalar(v);
  };

  const fieldName = (o, k) => {
    if (typeof k === 'symbol') return '@@' + (k.description || 'symbol');
    if (Array.isArray(o)) {
      const n = typeof k === 'number' ? k : Number(k);
      if (Number.isInteger(n) && n >= 0 && String(n) === String(k)) return '[' + n + ']';
    }
    return String(k);
  };

  const isObj = (o) => o !== null && (typeof o === 'object' || typeof o === 'function');

  const read = (o, k, v, src, deref) => {
    const id = ref(o);
    const field = fieldName(o, k);
    rec.emit('read', { obj: id, field, val: raw(value(v)), deref: deref ? true : undefined }, src);
    last = '{"obj":' + str(id) + ',"field":' + str(field) + '}';
    lastLoc = { obj: id, field };
  };
  const untracked = () => {
    last = null;
    lastLoc = null;
  };

  const write = (o, k, v, src) => {
    const id = ref(o);
    rec.emit('write', { obj: id, field: fieldName(o, k), val: raw(value(v)) }, src);
  };

  const scopeLoc = (s, name) => (s.cls !== undefined ? { class: s.cls, field: name } : { obj: s.obj, field: name });

  const arith = (op, a, b) => {
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case '/': return a / b;
      case '%': return a % b;
      case '**': return a ** b;
      case '<<': return a << b;
      case '>>': return a >> b;
      case '>>>': return a >>> b;
      case '&': return a & b;
      case '|': return a | b;
      case '^': return a ^ b;
      case '<': return a < b;
      case '<=': return a <= b;
      case '>': return a > b;
      case '>=': return a >= b;
      case '==': return a == b; // eslint-disable-line eqeqeq
      case '!=': return a != b; // eslint-disable-line eqeqeq
      case '===': return a === b;
      case '!==': return a !== b;
    }
    throw new Error('licorice: unknown operator ' + op);
  };
  const comparisons = new Set(['<', '<=', '>', '>=', '==', '!=', '===', '!==']);

  // A method looked up on a prototype, or a function read off an object
  // that instrumented code did not make (a module's exports, a built-in),
  // is code, not shared data: such reads are not recorded.
  const made = new WeakSet(); // objects allocated by instrumented code
  const tracked = (o, k, v) => isObj(o) && (typeof v !== 'function' || (made.has(o) && Object.prototype.hasOwnProperty.call(o, k)));

  // The native mutators of arrays, maps and sets change the object
  // without an instrumented write: after one, the array's length and the
  // elements it changed (at most maxInitFields of them), or the map's or
  // set's size, are recorded as written.
  const arrayMutators = new Set(['push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin']);
  const collectionMutators = new Set(['set', 'add', 'delete', 'clear']);
  const mutator = (o, k, f) =>
    (Array.isArray(o) && arrayMutators.has(k) && f === Array.prototype[k]) ||
    ((o instanceof Map || o instanceof Set) && collectionMutators.has(k) && f === Object.getPrototypeOf(o)[k]);
  const mutated = (o, k, before, src) => {
    if (!Array.isArray(o)) {
      write(o, 'size', o.size, src);
      return;
    }
    const from = k === 'push' ? before : k === 'pop' ? o.length : 0;
    const to = Math.min(Math.max(o.length, before), from + maxInitFields);
    for (let i = from; i < to; i++) write(o, i, o[i], src);
    write(o, 'length', o.length, src);
  };

  const lc = {
    get(o, k, src) {
      const v = o[k];
      if (tracked(o, k, v) && on()) read(o, k, v, src, false);
      else untracked();
      return v;
    },
    invoke(o, k, src, ...args) {
      const f = o[k];
      if (tracked(o, k, f) && on()) read(o, k, f, src, true);
      if (typeof f !== 'function') throw new TypeError(String(k) + ' is not a function');
      const mutates = on() && mutator(o, k, f);
      const before = mutates && Array.isArray(o) ? o.length : 0;
      const out = Reflect.apply(f, o, args);
      if (mutates) mutated(o, k, before, src);
      return out;
    },
    put(o, k, v, src) {
      o[k] = v;
      if (isObj(o) && on()) write(o, k, v, src);
      return v;
    },
    update(o, k, op, v, src) {
      const old = o[k];
      if (isObj(o) && on()) read(o, k, old, src, false);
      const nv = arith(op, old, v);
      o[k] = nv;
      if (isObj(o) && on()) write(o, k, nv, src);
      return nv;
    },
    incr(o, k, delta, prefix, src) {
      const old = o[k];
      if (isObj(o) && on()) read(o, k, old, src, false);
      const num = typeof old === 'bigint' ? old : Number(old);
      const nv = typeof num === 'bigint' ? num + BigInt(delta) : num + delta;
      o[k] = nv;
      if (isObj(o) && on()) write(o, k, nv, src);
      return prefix ? nv : num;
    },
    del(o, k, src) {
      const ok = delete o[k];
      if (isObj(o) && on()) write(o, k, undefined, src);
      return ok;
    },
    moduleScope(relPath) {
      return { cls: relPath };
    },
    scope(site) {
      const s = { obj: 's' + ++scopes };
      if (on()) rec.emit('alloc', { obj: s.obj, site, type: 'Scope' }, site);
      return s;
    },
    rv(s, name, v, src) {
      if (on()) {
        const loc = scopeLoc(s, name);
        rec.emit('read', { ...loc, val: raw(value(v)) }, src);
        last = loc.class !== undefined ? '{"class":' + str(loc.class) + ',"field":' + str(name) + '}' : '{"obj":' + str(loc.obj) + ',"field":' + str(name) + '}';
        lastLoc = loc;
      } else {
        untracked();
      }
      return v;
    },
    wv(s, name, v, src) {
      if (on()) rec.emit('write', { ...scopeLoc(s, name), val: raw(value(v)) }, src);
      return v;
    },
    alloc(v, site, type) {
      if (!isObj(v) || !on()) return v;
      if (ids.has(v)) {
        made.add(v); // a constructor's this, met before new returned it
        return v;
      }
      const id = 'o' + ++objects;
      ids.set(v, id);
      made.add(v);
      rec.emit('alloc', { obj: id, site, type: type || typeName(v) }, site);
      if (type === 'Array') {
        rec.emit('write', { obj: id, field: 'length', val: v.length }, site);
      } else if (type === 'Object') {
        // An object literal's fields have their initial values.
        let n = 0;
        for (const k of Object.keys(v)) {
          if (n++ === maxInitFields) break;
          const d = Object.getOwnPropertyDescriptor(v, k);
          if (d === undefined || !('value' in d)) continue;
          rec.emit('write', { obj: id, field: k, val: raw(value(d.value)) }, site);
        }
      }
      return v;
    },
    enter(name, src) {
      const f = ++frames;
      if (!on()) return f;
      const t = rec.task();
      const handler = t.depth === 0;
      t.depth++;
      frameInfo.set(f, { name, task: t, handler });
      if (handler) {
        t.calls.push({ name, f });
        rec.emit('call', { h: name }, src);
        rec.runDeferred();
      }
      return f;
    },
    exit(f) {
      const fi = frameInfo.get(f);
      if (fi === undefined) return;
      frameInfo.delete(f);
      leave(fi, f);
    },
    suspend(f, v) {
      const fi = frameInfo.get(f);
      if (fi !== undefined) {
        leave(fi, f);
        fi.task = null;
      }
      return v;
    },
    resume(f, v) {
      const fi = frameInfo.get(f);
      if (fi !== undefined && on()) {
        const t = rec.task();
        fi.task = t;
        fi.handler = t.depth === 0;
        t.depth++;
        if (fi.handler) {
          t.calls.push({ name: fi.name, f });
          rec.emit('call', { h: fi.name });
        }
      }
      return v;
    },
    took() {
      const l = last;
      untracked();
      return l;
    },
    /**
     * guard stands for v, a tracked read the code tests (for truthiness,
     * or against null or undefined): a branch op on its location says the
     * code copes with both outcomes (learning proposes no null or non-null
     * condition of a datum its handler always tests).
     */
    guard(v, src) {
      if (lastLoc !== null && on()) rec.emit('branch', { ...lastLoc, cond: 'nonnull', taken: v != null ? true : undefined }, src);
      untracked();
      return v;
    },
    /** idOf names an object for the recorder's own modules (highlevel.js). */
    idOf(o) {
      return ref(o);
    },
    bin(op, a, la, b, lb, src) {
      const r = arith(op, a, b);
      if (la !== null && lb !== null && on()) {
        rec.emit('relate', { a: raw(la), b: raw(lb), via: comparisons.has(op) ? 'cmp' : 'arith' }, src);
      }
      return r;
    },
  };

  /** leave closes frame f of fi's task, if that task still runs it. */
  function leave(fi, f) {
    const t = fi.task;
    if (t === null || t !== rec.cur && t !== rec.main) return; // its event has ended
    if (t.depth > 0) t.depth--;
    if (!fi.handler) return;
    const i = t.calls.findIndex((c) => c.f === f);
    if (i < 0) return;
    while (t.calls.length > i) {
      const c = t.calls.pop();
      if (on()) rec.w.op('ret', t.id, { h: c.name });
    }
  }

  // EventEmitter listeners are handlers: emit runs them at depth 0.
  const { EventEmitter } = require('events');
  const emit = EventEmitter.prototype.emit;
  EventEmitter.prototype.emit = function () {
    const t = rec.cur !== null ? rec.cur : !rec.mainDone ? rec.main : null;
    if (t === null) return emit.apply(this, arguments);
    const saved = t.depth;
    t.depth = 0;
    try {
      return emit.apply(this, arguments);
    } finally {
      t.depth = saved;
    }
  };

  return lc;
}

module.exports = { createRuntime };
