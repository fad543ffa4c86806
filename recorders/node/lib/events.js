'use strict';
// Events and sends from Node's hooks: async_hooks for every resource that
// calls back (timers, immediates, ticks, queueMicrotask, I/O), V8's
// promise hooks for promise reactions and await continuations. See
// recorder.js for the queues and docs/causality.md for why each choice
// states what Node guarantees and no more.

const asyncHooks = require('async_hooks');
const v8 = require('v8');
const { immediateDelay } = require('./recorder');

// The info of a promise's async_hooks callbacks: V8's promise hooks
// record those.
const promiseInfo = { kind: 'internal', type: 'PROMISE' };

// Resources whose later callbacks are not ordered by their earlier ones:
// a listening server's connections come from independent clients.
const unorderedCallbacks = new Set(['TCPSERVERWRAP', 'PIPESERVERWRAP']);

/**
 * install starts recording events into rec. It returns {stop}, which
 * stops the hooks.
 */
function install(rec) {
  // resource -> {kind: 'sent'|'io'|'internal', e (pending event), q, resource, type}
  const resources = new WeakMap();
  const stack = []; // the infos of the async_hooks callbacks running, outermost first
  let depth = 0; // nested before/after of async_hooks (a callback run inside another)

  const settled = new WeakMap(); // promise -> the task that settled it
  const reactions = new WeakMap(); // promise -> [{child, task}] registered before it settled
  const parentOf = new WeakMap(); // child promise -> the unsettled promise it was registered on
  const jobs = new WeakMap(); // derived promise -> its job's pending event
  let promiseDepth = 0;

  // The context a tick is sent from decides its place in the jobs queue.
  const tickOpts = () => {
    const t = rec.task();
    if (t.kind === 'micro') return { async: false, delay: 2 };
    if (t.kind === 'anon') return null; // unknown: no order claimed
    return { async: true, delay: 0 };
  };

  const hook = asyncHooks.createHook({
    init(asyncId, type, _triggerAsyncId, resource) {
      if (type === 'PROMISE') return;
      if (rec.off > 0) {
        // The recorder's own resource (a shuffle delay): an I/O-like
        // delivery whose origin is the running task.
        if (rec.internalOrigin > 0) {
          const m = 'r' + asyncId;
          rec.signal(m);
          resources.set(resource, { kind: 'io', m, type, ordered: false });
        } else {
          resources.set(resource, { kind: 'internal', type });
        }
        return;
      }
      rec.off++;
      try {
        switch (type) {
          case 'TickObject': {
            const opts = tickOpts();
            if (opts === null) break;
            resources.set(resource, { kind: 'sent', e: rec.send('jobs', opts), q: 'jobs', type, ev: 'tick' });
            return;
          }
          case 'Microtask':
            resources.set(resource, { kind: 'sent', e: rec.send('jobs', { delay: 1 }), q: 'jobs', type, ev: 'micro' });
            return;
          case 'Immediate':
            resources.set(resource, { kind: 'sent', e: rec.send('jobs', { delay: immediateDelay }), q: 'jobs', type, ev: 'macro' });
            return;
          case 'Timeout': {
            const q = 'timer:' + timerDuration(resource);
            resources.set(resource, { kind: 'sent', e: rec.send(q), q, type, ev: 'macro', resource });
            return;
          }
        }
        if (type === 'PROCESSWRAP') rec.note('child process');
        if (type === 'WORKER') rec.note('worker thread');
        const m = 'r' + asyncId;
        rec.signal(m);
        resources.set(resource, { kind: 'io', m, type, ordered: !unorderedCallbacks.has(type) });
      } finally {
        rec.off--;
      }
    },

    before() {
      const res = asyncHooks.executionAsyncResource();
      const r = res instanceof Promise ? promiseInfo : resources.get(res);
      stack.push(r);
      if (depth++ > 0 || promiseDepth > 0) return; // inside another callback: part of it
      if (r !== undefined && r.kind === 'internal') return;
      rec.off++;
      try {
        if (rec.cur !== null) rec.end(); // an anonymous event
        if (r === undefined) {
          rec.begin(rec.deliver(undefined), 'macro');
        } else if (r.kind === 'sent' && r.e !== null) {
          const e = r.e;
          r.e = null;
          rec.begin(e, r.ev);
        } else if (r.kind === 'io') {
          rec.begin(rec.deliver(r.m, rec.loopback?.readOf(r.type, res)), 'macro');
        } else {
          rec.begin(rec.deliver(undefined), 'macro');
        }
      } finally {
        rec.off--;
      }
    },

    after() {
      const r = stack.pop();
      if (--depth > 0 || promiseDepth > 0) return;
      if (r !== undefined && r.kind === 'internal') return;
      rec.off++;
      try {
        if (r !== undefined && r.kind === 'sent' && r.resource !== undefined) {
          // An interval fires again: its next firing is sent by this one.
          const t = r.resource;
          if (t._repeat && !t._destroyed && r.e === null) r.e = rec.send(r.q = 'timer:' + timerDuration(t));
        }
        if (r !== undefined && r.kind === 'io' && r.ordered) rec.signal(r.m); // the handle's next callback comes after
        rec.end();
      } finally {
        rec.off--;
      }
    },
  });

  const promiseHook = v8.promiseHooks.createHook({
    init(promise, parent) {
      if (parent === undefined || rec.off > 0) return;
      rec.off++;
      try {
        const t = rec.task();
        const by = settled.get(parent);
        if (by !== undefined) {
          // The reaction is queued now; it also comes after the settling,
          // which another event may have done (it signals at its end).
          if (by !== t && by.kind !== 'main') rec.emit('wait', { m: 's:' + by.id });
          jobs.set(promise, rec.send('jobs', { delay: 1 }));
          return;
        }
        let list = reactions.get(parent);
        if (list === undefined) reactions.set(parent, (list = []));
        list.push({ child: promise, task: t });
        parentOf.set(promise, parent);
        if (t.kind !== 'main') t.signal = true;
      } finally {
        rec.off--;
      }
    },

    settled(promise) {
      // Who settled it (no event: the main module, or code outside every
      // callback, which orders nothing).
      const by = rec.off === 0 && rec.cur !== null ? rec.cur : rec.main;
      settled.set(promise, by);
      if (by !== rec.main) by.signal = true;
      // A promise that settles before the one it was registered on is no
      // reaction of it: V8 reports the promise that wraps an awaited value
      // with the async function's own promise as its parent.
      const parent = parentOf.get(promise);
      if (parent !== undefined) {
        parentOf.delete(promise);
        const siblings = reactions.get(parent);
        if (siblings !== undefined) {
          const i = siblings.findIndex((r) => r.child === promise);
          if (i >= 0) siblings.splice(i, 1);
        }
      }
      const list = reactions.get(promise);
      if (list === undefined) return;
      reactions.delete(promise);
      rec.off++;
      try {
        const me = rec.task();
        const waited = new Set();
        for (const { child, task } of list) {
          parentOf.delete(child);
          if (task !== me && task.kind !== 'main' && !waited.has(task)) {
            waited.add(task);
            rec.emit('wait', { m: 's:' + task.id });
          }
          jobs.set(child, rec.send('jobs', { delay: 1 }));
        }
      } finally {
        rec.off--;
      }
    },

    before(promise) {
      if (promiseDepth++ > 0 || depth > 0) return;
      rec.off++;
      try {
        if (rec.cur !== null) rec.end();
        const e = jobs.get(promise);
        if (e !== undefined) {
          jobs.delete(promise);
          rec.begin(e, 'micro');
        } else {
          // A job whose send was not seen (resolving with a thenable):
          // delivered without an origin, ordered with nothing.
          rec.begin(rec.deliver(undefined), 'micro');
        }
      } finally {
        rec.off--;
      }
    },

    after() {
      if (--promiseDepth > 0 || depth > 0) return;
      rec.off++;
      try {
        rec.end();
      } finally {
        rec.off--;
      }
    },
  });

  hook.enable();

  // clearTimeout, clearInterval, clearImmediate remove a pending event;
  // refresh() sends a timer's next firing anew.
  const patchClear = (name) => {
    const orig = globalThis[name];
    globalThis[name] = function (handle) {
      const r = handle !== null && typeof handle === 'object' ? resources.get(handle) : undefined;
      if (r !== undefined && r.kind === 'sent' && r.e !== null && rec.off === 0) {
        rec.off++;
        try {
          rec.remove(r.e);
        } finally {
          rec.off--;
        }
        r.e = null;
      }
      return orig.apply(this, arguments);
    };
  };
  patchClear('clearTimeout');
  patchClear('clearInterval');
  patchClear('clearImmediate');
  rec.off++;
  const probe = setTimeout(() => {}, 1);
  clearTimeout(probe);
  rec.off--;
  const Timeout = probe.constructor;
  const refresh = Timeout.prototype.refresh;
  Timeout.prototype.refresh = function () {
    const out = refresh.apply(this, arguments);
    const r = resources.get(this);
    if (r !== undefined && r.kind === 'sent' && rec.off === 0) {
      rec.off++;
      try {
        if (r.e !== null) rec.remove(r.e);
        r.e = rec.send((r.q = 'timer:' + timerDuration(this)));
      } finally {
        rec.off--;
      }
    }
    return out;
  };

  return {
    stop() {
      hook.disable();
      promiseHook();
    },
  };
}

/** timerDuration is a Timeout's duration in ms, as Node stores it. */
function timerDuration(t) {
  const d = t && typeof t._idleTimeout === 'number' ? t._idleTimeout : 1;
  return d;
}

module.exports = { install };
