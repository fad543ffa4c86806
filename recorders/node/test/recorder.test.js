'use strict';
// The recorder end to end: small programs run under `node --require
// lib/register.js`, and the ops they write. These tests check what the
// trace says of Node's orders (lib/recorder.js, docs/causality.md) and of
// the heap; the Go side validates and converts the same output.

const test = require('node:test');
const assert = require('node:assert');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const register = path.join(__dirname, '..', 'lib', 'register.js');

/** record runs source as a program and returns its header and ops. */
function record(source, env = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'licorice-rec-'));
  try {
    const prog = path.join(dir, 'prog.js');
    fs.writeFileSync(prog, source);
    const out = path.join(dir, 'trace.jsonl');
    try {
      execFileSync(process.execPath, ['--require', register, prog], {
        cwd: dir,
        timeout: 20000,
        env: { ...process.env, LICORICE_OUT: out, LICORICE_ROOT: dir, LICORICE_CACHE: '', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (err) {
      if (!env.expectFailure) throw err;
    }
    const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    return { header: lines[0], ops: lines.slice(1) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** sendOf returns the send op of the event whose first call is handler h. */
function eventOf(ops, h) {
  const call = ops.find((o) => o.op === 'call' && o.h === h && o.t !== 'main');
  assert.ok(call, 'no event calls ' + h);
  const send = ops.find((o) => o.op === 'send' && o.e === call.t);
  assert.ok(send, 'no send of ' + call.t);
  return { id: call.t, send };
}

test('the header and the main thread', () => {
  const { header, ops } = record('1;', { LICORICE_HEADER: JSON.stringify({ app: 'x', run: 'run-000' }) });
  assert.deepStrictEqual([header.licorice_trace, header.platform, header.app, header.run], [1, 'node', 'x', 'run-000']);
  assert.deepStrictEqual(ops.slice(0, 3).map((o) => [o.op, o.t, o.q || o.kind]), [
    ['thread_begin', 'main', 'looper'],
    ['attach', 'main', 'jobs'],
    ['attach', 'main', 'io'],
  ]);
});

test('ticks, microtasks and immediates: their places in the jobs queue', () => {
  const { ops } = record(`
    process.nextTick(function tickMain() {});
    Promise.resolve().then(function microMain() {
      process.nextTick(function tickFromMicro() {});
    });
    queueMicrotask(function queued() {});
    setImmediate(function imm() {});
  `);
  const cases = [
    ['tickMain', { q: 'jobs', async: true, delay: undefined }],
    ['microMain', { q: 'jobs', async: undefined, delay: 1 }],
    ['tickFromMicro', { q: 'jobs', async: undefined, delay: 2 }],
    ['queued', { q: 'jobs', async: undefined, delay: 1 }],
    ['imm', { q: 'jobs', async: undefined, delay: 5 }],
  ];
  for (const [h, want] of cases) {
    const { send } = eventOf(ops, h);
    assert.deepStrictEqual({ q: send.q, async: send.async, delay: send.delay }, want, h);
  }
});

test('a reaction registered in one event and settled in another waits for the registration', () => {
  const { ops } = record(`
    let resolve;
    const p = new Promise((r) => { resolve = r; });
    setTimeout(function register() { p.then(function reaction() {}); }, 1);
    setTimeout(function settle() { resolve(1); }, 5);
  `);
  const reg = eventOf(ops, 'register').id;
  const settle = eventOf(ops, 'settle').id;
  const { send } = eventOf(ops, 'reaction');
  assert.strictEqual(send.t, settle, 'the settling event sends the reaction');
  const sig = ops.findIndex((o) => o.op === 'signal' && o.t === reg && o.m === 's:' + reg);
  const wait = ops.findIndex((o) => o.op === 'wait' && o.t === settle && o.m === 's:' + reg);
  assert.ok(sig >= 0 && wait > sig, 'the registering event signals s:E at its end and the settler waits on it');
  assert.ok(ops.indexOf(send) > wait);
});

test('the drain: a timer or immediate waits for the jobs of the task that set it, and only those', () => {
  const { ops } = record(`
    const fs = require('fs');
    setTimeout(function outer() {
      process.nextTick(function tick() {
        Promise.resolve().then(function micro() {
          setTimeout(function fromMicro() {}, 7);
        });
      });
      setTimeout(function later() {}, 5);
      setImmediate(function imm() {});
    }, 1);
    process.nextTick(function tickMain() {});
    setTimeout(function mainTimer() {}, 3);
    fs.stat(__filename, function statCb() {
      setTimeout(function fromIO() {}, 9);
    });
  `);
  const signals = (id) => ops.filter((o) => o.t === id && o.op === 'signal' && o.m.startsWith('d:')).map((o) => o.m);
  const waits = (id) => ops.filter((o) => o.t === id && o.op === 'wait' && o.m.startsWith('d:')).map((o) => o.m);
  const outer = eventOf(ops, 'outer').id;
  const statCb = eventOf(ops, 'statCb').id;
  const cases = [
    // [handler, the drains its jobs signal, the drains it waits for]
    ['tickMain', ['d:main'], []],
    ['mainTimer', [], ['d:main']],
    ['outer', [], ['d:main']],
    ['tick', ['d:' + outer], []],
    ['micro', ['d:' + outer], []],
    ['fromMicro', [], ['d:' + outer]],
    ['later', [], ['d:' + outer]],
    ['imm', [], ['d:' + outer]],
    ['statCb', [], []], // an I/O callback: no drain is stated before it
    ['fromIO', [], ['d:' + statCb]],
  ];
  for (const [h, wantSignals, wantWaits] of cases) {
    const { id } = eventOf(ops, h);
    assert.deepStrictEqual(signals(id), wantSignals, h + ' signals');
    assert.deepStrictEqual(waits(id), wantWaits, h + ' waits');
    if (wantWaits.length > 0) {
      const begin = ops.findIndex((o) => o.op === 'begin' && o.t === id);
      assert.deepStrictEqual([ops[begin + 1].op, ops[begin + 1].m], ['wait', wantWaits[0]], h + ': the wait comes first');
    }
  }
});

test('timers: a queue per duration, intervals, clearTimeout', () => {
  const { ops } = record(`
    setTimeout(function zero() {}, 0);
    setTimeout(function ten() {}, 10);
    const t = setTimeout(function cancelled() {}, 10);
    clearTimeout(t);
    let n = 0;
    const iv = setInterval(function every() { if (++n === 3) clearInterval(iv); }, 2);
  `);
  assert.strictEqual(eventOf(ops, 'zero').send.q, 'timer:1', 'setTimeout(f, 0) is stored as 1 ms');
  assert.strictEqual(eventOf(ops, 'ten').send.q, 'timer:10');
  const removes = ops.filter((o) => o.op === 'remove');
  assert.strictEqual(removes.length, 1, 'clearTimeout removes the pending event');
  const firings = ops.filter((o) => o.op === 'call' && o.h === 'every').map((o) => o.t);
  assert.strictEqual(firings.length, 3);
  for (let i = 1; i < firings.length; i++) {
    const send = ops.find((o) => o.op === 'send' && o.e === firings[i]);
    assert.strictEqual(send.t, firings[i - 1], 'each firing sends the next');
  }
});

test('an fs callback is delivered by a worker that waits on its request', () => {
  const { ops } = record(`
    const fs = require('fs');
    setTimeout(function ask() { fs.stat(__filename, function answered() {}); }, 1);
  `);
  const ask = eventOf(ops, 'ask').id;
  const { send } = eventOf(ops, 'answered');
  assert.strictEqual(send.q, 'io');
  assert.match(send.t, /^w\d+$/);
  const wait = ops.find((o) => o.op === 'wait' && o.t === send.t);
  const signal = ops.find((o) => o.op === 'signal' && o.m === wait.m);
  assert.strictEqual(signal.t, ask, 'the request signals what the delivery waits on');
  assert.ok(ops.some((o) => o.op === 'fork' && o.t === 'main' && o.child === send.t));
});

test('the heap: writes with values, references, undefined as null, handler names', () => {
  const { ops } = record(`
    class Box { constructor() { this.item = undefined; this.n = 1.5; } }
    const box = new Box();
    setTimeout(function fill() { box.item = { label: 'x' }; box.n = 2; }, 1);
  `);
  const fill = eventOf(ops, 'fill').id;
  const writes = ops.filter((o) => o.op === 'write' && o.t === fill && o.field !== undefined);
  const item = writes.find((o) => o.field === 'item');
  assert.ok(item.val && typeof item.val.ref === 'string', 'a reference to the new object');
  const alloc = ops.find((o) => o.op === 'alloc' && o.obj === item.val.ref);
  assert.strictEqual(alloc.type, 'Object');
  assert.match(alloc.site, /^prog\.js:4:\d+$/);
  assert.strictEqual(writes.find((o) => o.field === 'n').val, 2);
  const init = ops.filter((o) => o.op === 'write' && o.t === 'main');
  assert.strictEqual(init.find((o) => o.field === 'item').val, null, 'undefined is recorded as null');
  assert.strictEqual(init.find((o) => o.field === 'n').val, 1.5);
  assert.ok(ops.some((o) => o.op === 'call' && o.h === 'Box.constructor' && o.t === 'main'));
});

test('a tested read is followed by a branch on its location', () => {
  const { ops } = record(`
    const o = { a: null, b: 1 };
    setTimeout(function tick() { if (o.a) {} if (o.b != null) {} }, 1);
  `);
  for (const [field, taken] of [['a', undefined], ['b', true]]) {
    const i = ops.findIndex((o) => o.op === 'read' && o.field === field && o.t !== 'main');
    assert.ok(i >= 0, 'no read of ' + field);
    const b = ops[i + 1];
    assert.deepStrictEqual([b.op, b.t, b.obj, b.field, b.cond, b.taken], ['branch', ops[i].t, ops[i].obj, field, 'nonnull', taken], field);
  }
});

test('an uncaught exception is an error op with its first frame', () => {
  const { ops } = record(`setTimeout(function boom() { null.x; }, 1);`, { expectFailure: true });
  const err = ops.find((o) => o.op === 'error');
  assert.match(err.msg, /^uncaught exception: TypeError: Cannot read properties of null/);
  assert.match(err.src, /^prog\.js:1:\d+$/);
  assert.strictEqual(err.t, eventOf(ops, 'boom').id);
});

test('shuffling: the same seed makes the same decisions', () => {
  const prog = `for (const d of [1, 2, 3, 4, 5, 6, 7, 8]) setTimeout(function t() {}, d * 3);`;
  const queues = (seed) =>
    record(prog, { LICORICE_SHUFFLE: '1', LICORICE_SEED: String(seed) })
      .ops.filter((o) => o.op === 'send')
      .map((o) => o.q);
  const a = queues(7);
  assert.deepStrictEqual(queues(7), a);
  const plain = [3, 6, 9, 12, 15, 18, 21, 24].map((d) => 'timer:' + d);
  assert.notDeepStrictEqual(a, plain, 'some durations got an extra delay');
  assert.notDeepStrictEqual(queues(8), a, 'another seed decides otherwise');
});

test('a worker thread is not recorded, and the main thread is', () => {
  const { ops } = record(`
    const { Worker } = require('worker_threads');
    const w = new Worker('1', { eval: true });
    w.on('exit', function exited() {});
  `);
  assert.ok(ops.some((o) => o.op === 'call' && o.h === 'exited'));
  assert.ok(ops.every((o) => o.t === undefined || /^(main|exit|E\d+|w\d+)$/.test(o.t)));
});

test('high-level locations: a path exists or not, a stream is destroyed', () => {
  const { ops } = record(`
    const fs = require('fs');
    const path = require('path');
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'hl-'));
    const f = path.join(dir, 'a.txt');
    fs.writeFile(f, 'x', function written() {
      fs.unlink(f, function removed() {
        fs.stat(f, function statted() { fs.rmdirSync(dir); });
      });
    });
    const { PassThrough } = require('stream');
    const s = new PassThrough();
    setTimeout(function use() { s.write('a'); }, 1);
    setTimeout(function close() { s.destroy(); }, 2);
  `);
  const at = (h) => eventOf(ops, h).id;
  const fsOps = ops.filter((o) => typeof o.obj === 'string' && o.obj.startsWith('fs:') && o.obj.endsWith('a.txt'));
  assert.deepStrictEqual(
    fsOps.map((o) => [o.op, o.t, o.field, o.val]),
    [
      ['alloc', 'main', undefined, undefined],
      ['write', at('written'), 'exists', true],
      ['write', at('written'), 'dir', false],
      ['read', at('removed'), 'exists', true],
      ['write', at('removed'), 'exists', false],
      ['read', at('statted'), 'exists', false],
    ],
  );
  assert.strictEqual(fsOps[0].site, 'fs@prog.js:6', 'a path is allocated at the call that first touched it');
  // The result is recorded inside the callback's handler call.
  const statted = ops.findIndex((o) => o.op === 'call' && o.h === 'statted');
  const read = ops.findIndex((o) => o.op === 'read' && o.t === at('statted') && o.field === 'exists');
  const ret = ops.findIndex((o) => o.op === 'ret' && o.h === 'statted');
  assert.ok(statted < read && read < ret, 'the read is between the call and the ret');
  const streamOps = ops.filter((o) => o.field === 'destroyed').map((o) => [o.op, o.t, o.val]);
  assert.deepStrictEqual(streamOps, [
    ['read', at('use'), false],
    ['write', at('close'), true],
  ]);
});

test('high-level locations: mkdir relies on the path being absent, EEXIST finds it there', () => {
  const { ops } = record(`
    const fs = require('fs');
    const path = require('path');
    const dir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'hl-'));
    const d = path.join(dir, 'sub');
    fs.mkdir(d, function made(err) {
      if (err) throw err;
      fs.mkdir(d, function again(err) {
        if (!err || err.code !== 'EEXIST') throw new Error('want EEXIST');
        fs.rmSync(dir, { recursive: true });
      });
    });
  `);
  const at = (h) => eventOf(ops, h).id;
  const fsOps = ops.filter((o) => typeof o.obj === 'string' && o.obj.startsWith('fs:') && o.obj.endsWith('sub') && o.op !== 'alloc');
  assert.deepStrictEqual(
    fsOps.map((o) => [o.op, o.t, o.field, o.val]),
    [
      ['read', at('made'), 'exists', false],
      ['write', at('made'), 'exists', true],
      ['write', at('made'), 'dir', true],
      ['read', at('again'), 'exists', true],
    ],
  );
});

test('module loading is not file-system traffic', () => {
  const { ops } = record(`require('path'); require('./helper.js');`.replace("require('./helper.js');", ''));
  assert.ok(!ops.some((o) => typeof o.obj === 'string' && o.obj.startsWith('fs:')));
});

test('loopback TCP: a write happens before the peer read that brings it', () => {
  const { ops } = record(`
    const net = require('net');
    const srv = net.createServer(function onConn(s) {
      s.on('data', function serverData() { s.write('pong'); });
      s.on('end', function serverEnd() { s.end(); });
    });
    srv.listen(0, '127.0.0.1', function listening() {
      const c = net.connect(srv.address().port, '127.0.0.1', function connected() { c.write('ping'); });
      c.on('data', function clientData() { setTimeout(function later() { c.destroy(); srv.close(); }, 1); });
      c.on('close', function clientClose() {});
    });
  `);
  // The socket's close comes after its destroy: the close callback's
  // delivery waits on a handle signal the destroying event gave.
  {
    let { send } = eventOf(ops, 'clientClose');
    while (!send.t.startsWith('w')) send = ops.find((o) => o.op === 'send' && o.e === send.t);
    const waits = ops.filter((o) => o.op === 'wait' && o.t === send.t).map((o) => o.m);
    const destroyer = eventOf(ops, 'later').id;
    assert.ok(ops.some((o) => o.op === 'signal' && o.t === destroyer && waits.includes(o.m)), "clientClose's delivery waits on the timer's destroy");
  }
  const linked = (writer, reader) => {
    const sig = ops.find((o) => o.op === 'signal' && o.t === eventOf(ops, writer).id && o.m.startsWith('tcp:'));
    assert.ok(sig, writer + ' signals its write');
    // The worker that delivered the read: up the senders (the end is
    // emitted in a tick of the read callback).
    let { send } = eventOf(ops, reader);
    while (!send.t.startsWith('w')) send = ops.find((o) => o.op === 'send' && o.e === send.t);
    assert.ok(ops.some((o) => o.op === 'wait' && o.t === send.t && o.m === sig.m), reader + "'s delivery waits on " + writer + "'s write");
  };
  linked('connected', 'serverData');
  linked('serverData', 'clientData');
  linked('later', 'serverEnd'); // the client's destroy sends the end the server reads
});

test('loopback TCP: a read that brings two writes is ordered after both', () => {
  const { ops } = record(`
    const net = require('net');
    let round = 0;
    const srv = net.createServer(function onConn(s) {
      s.on('data', function serverData() {
        if (round++ === 0) { s.write('a'); s.write('b'); } else s.write('c');
      });
    });
    srv.listen(0, '127.0.0.1', function listening() {
      let got = '';
      const c = net.connect(srv.address().port, '127.0.0.1', function connected() { c.write('1'); });
      c.on('data', function clientData(d) {
        got += d;
        if (got === 'ab') c.write('2');
        if (got.endsWith('c')) { c.destroy(); srv.close(); }
      });
    });
  `);
  const tcp = (op) => op.m !== undefined && op.m.startsWith('tcp:');
  // The server's writes, in order, and the client's reads: the read events
  // (TCP deliveries) with their workers.
  const serverEvents = new Set(ops.filter((o) => o.op === 'call' && o.h === 'serverData').map((o) => o.t));
  const serverWrites = ops.filter((o) => o.op === 'signal' && tcp(o) && serverEvents.has(o.t)).map((o) => o.m);
  assert.strictEqual(serverWrites.length, 3, 'three server writes');
  const waited = new Set(ops.filter((o) => o.op === 'wait' && tcp(o)).map((o) => o.m));
  for (const m of serverWrites) assert.ok(waited.has(m), m + ' is waited on by the reader');
  // The client's reads wait on each write before the code that follows
  // them, in the order the writes were made.
  const order = ops.filter((o) => o.op === 'wait' && serverWrites.includes(o.m)).map((o) => o.m);
  assert.deepStrictEqual([...new Set(order)], serverWrites);
});

test("loopback HTTP: the server parser's request comes after the client's write, and the end after its destroy", () => {
  const { ops } = record(`
    const http = require('http');
    const srv = http.createServer(function onRequest(req, res) {
      req.socket.on('end', function serverEnd() { srv.close(); });
      res.end('ok');
    });
    srv.listen(0, '127.0.0.1', function listening() {
      const agent = new http.Agent({ keepAlive: true });
      http.get({ port: srv.address().port, host: '127.0.0.1', agent }, function onResponse(res) {
        const sock = res.socket;
        res.resume();
        res.on('end', function clientDone() { sock.destroy(); });
      });
    });
  `);
  // The worker that delivered an event: up the senders.
  const delivery = (h) => {
    let { send } = eventOf(ops, h);
    while (!send.t.startsWith('w')) send = ops.find((o) => o.op === 'send' && o.e === send.t);
    return send.t;
  };
  const waitsOn = (worker) => ops.filter((o) => o.op === 'wait' && o.t === worker && o.m.startsWith('tcp:')).map((o) => o.m);
  const tcpSignals = (task) => ops.filter((o) => o.op === 'signal' && o.m.startsWith('tcp:') && o.t === task).map((o) => o.m);
  const firstWrite = ops.find((o) => o.op === 'signal' && o.m.startsWith('tcp:'));
  assert.ok(firstWrite, 'the client writes its request');
  assert.deepStrictEqual(waitsOn(delivery('onRequest')), [firstWrite.m], "onRequest's delivery waits on the request's write");
  const destroys = tcpSignals(eventOf(ops, 'clientDone').id);
  assert.strictEqual(destroys.length, 1, "clientDone's destroy is a write");
  assert.ok(waitsOn(delivery('serverEnd')).includes(destroys[0]), "serverEnd's delivery waits on clientDone's destroy");
});

test('exit listeners run after every event, on a thread of their own', () => {
  const { ops } = record(`
    let done = false;
    setTimeout(function work() { done = true; }, 1);
    process.on('exit', function check() { if (!done) throw new Error('not done'); });
  `);
  const tail = ops.slice(ops.findIndex((o) => o.op === 'thread_end' && o.t === 'main'));
  assert.deepStrictEqual(tail.slice(0, 3).map((o) => [o.op, o.t, o.child]), [
    ['thread_end', 'main', undefined],
    ['thread_begin', 'exit', undefined],
    ['join', 'exit', 'main'],
  ]);
  assert.ok(tail.some((o) => o.op === 'call' && o.h === 'check' && o.t === 'exit'));
});

test('native mutators of arrays and maps are writes', () => {
  const { ops } = record(`
    const a = [];
    const m = new Map();
    setTimeout(function add() { a.push(1, 2); m.set('k', 1); a.pop(); }, 1);
  `);
  const add = eventOf(ops, 'add').id;
  assert.deepStrictEqual(
    ops.filter((o) => o.op === 'write' && o.t === add).map((o) => [o.field, o.val]),
    [['[0]', 1], ['[1]', 2], ['length', 2], ['size', 1], ['[1]', null], ['length', 1]],
  );
  const init = ops.find((o) => o.op === 'write' && o.t === 'main' && o.field === 'length');
  assert.strictEqual(init.val, 0, "an array literal's length is its initial value");
});
