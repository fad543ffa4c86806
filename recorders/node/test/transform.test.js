// Tests of lib/transform.js: transformed programs behave exactly like the
// originals, and record what API.md says they record. `fake` below is a
// faithful implementation of the runtime interface that logs its calls.
const test = require('node:test');
const assert = require('node:assert');
const vm = require('node:vm');
const { transform, MARKER } = require('../lib/transform.js');

const ARITH = {
  '+': (a, b) => a + b, '-': (a, b) => a - b, '*': (a, b) => a * b, '/': (a, b) => a / b,
  '%': (a, b) => a % b, '**': (a, b) => a ** b, '<<': (a, b) => a << b, '>>': (a, b) => a >> b,
  '>>>': (a, b) => a >>> b, '&': (a, b) => a & b, '|': (a, b) => a | b, '^': (a, b) => a ^ b,
};
const BIN = {
  ...ARITH,
  '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b,
  // eslint-disable-next-line eqeqeq
  '==': (a, b) => a == b, '!=': (a, b) => a != b, '===': (a, b) => a === b, '!==': (a, b) => a !== b,
};

let calls = [];
let lastRead = null;
let counter = 0;
const frameNames = new Map();
const show = (v) => (typeof v === 'function' ? 'fn' : v !== null && typeof v === 'object' ? 'obj' : v);
const fake = {
  moduleScope(rel) { calls.push(['moduleScope', rel]); return 'module:' + rel; },
  scope(site) { const s = 'scope' + ++counter; calls.push(['scope', site, s]); return s; },
  rv(s, name, v, src) { lastRead = src; calls.push(['rv', s, name, show(v), src]); return v; },
  wv(s, name, v, src) { calls.push(['wv', s, name, show(v), src]); return v; },
  get(o, k, src) { const v = o[k]; lastRead = src; calls.push(['get', String(k), show(v), src]); return v; },
  invoke(o, k, src, ...args) {
    const fn = o[k];
    lastRead = src;
    calls.push(['invoke', String(k), src]);
    return Reflect.apply(fn, o, args);
  },
  put(o, k, v, src) { o[k] = v; calls.push(['put', String(k), show(v), src]); return v; },
  update(o, k, op, v, src) {
    const old = o[k];
    const nv = ARITH[op](old, v);
    o[k] = nv;
    calls.push(['update', String(k), op, show(old), show(nv), src]);
    return nv;
  },
  incr(o, k, delta, prefix, src) {
    let old = o[k];
    old = typeof old === 'bigint' ? old : +old;
    const nv = old + (typeof old === 'bigint' ? BigInt(delta) : delta);
    o[k] = nv;
    calls.push(['incr', String(k), delta, prefix, src]);
    return prefix ? nv : old;
  },
  del(o, k, src) { const r = delete o[k]; calls.push(['del', String(k), src]); return r; },
  alloc(v, site, type) { calls.push(['alloc', site, type]); return v; },
  enter(name, src) { const f = ++counter; frameNames.set(f, name); calls.push(['enter', name, src]); return f; },
  exit(f) { calls.push(['exit', frameNames.get(f)]); },
  suspend(f, v) { calls.push(['suspend', frameNames.get(f)]); return v; },
  resume(f, v) { calls.push(['resume', frameNames.get(f)]); return v; },
  took() { const l = lastRead; lastRead = null; return l; },
  guard(v, src) { calls.push(['guard', lastRead, show(v), src]); lastRead = null; return v; },
  bin(op, a, la, b, lb, src) { calls.push(['bin', op, la, lb, src]); return BIN[op](a, b); },
};
globalThis.__licorice = fake;

// Runs code as the body of a CommonJS module (with an extra `log` parameter);
// returns its (awaited) result, or its exception's class, and the log.
async function run(code, instrument, relPath = 't.js') {
  const src = instrument ? transform(code, { filename: '/virtual/' + relPath, relPath }).code : code;
  const wrapped = `(function (exports, require, module, __filename, __dirname, log) {${src}\n})`;
  const fn = vm.runInThisContext(wrapped, { filename: relPath });
  const module = { exports: {} };
  const log = [];
  calls = [];
  lastRead = null;
  counter = 0;
  let result;
  try {
    result = await fn.call(module.exports, module.exports, require, module, relPath, '/', (x) => log.push(x));
  } catch (e) {
    result = { threw: e && e.constructor && e.constructor.name };
  }
  return { result, log, calls };
}

// Each snippet's result and log must be the same with and without instrumentation.
const semantics = {
  'closures and module-level counters': `
    let n = 0; const inc = () => ++n; inc(); inc();
    function get() { return n }
    function counter() { let c = 0; return () => c++ }
    const a = counter(), b = counter(); a(); a();
    return [n++, n, get(), a(), b(), typeof inc]`,
  'classes with inheritance, super, static members': `
    class A { constructor(x) { this.x = x } m() { return 'A' + this.x } static s() { return 'sA' } }
    class B extends A { constructor() { super(2); this.y = super.m() } m() { return 'B' + super.m() } static s() { return super.s() + 'B' } }
    const b = new B(); return [b.m(), b.y, B.s(), b instanceof A, Object.getPrototypeOf(B) === A]`,
  'private fields and methods, #x in o': `
    class P { #x = 1; static #n = 0; #inc() { return ++this.#x } bump() { P.#n++; this.#x += 2; return this.#inc() }
      static has(o) { return #x in o } static count() { return P.#n } }
    const p = new P(); return [p.bump(), p.bump(), P.has(p), P.has({}), P.count()]`,
  'class fields with arrows, impure initializers and static blocks': `
    let made = 0; const o = { m(v) { return v * 2 }, a(v) { return v } };
    const g = () => { log('g'); return 5 };
    class C { static tag = 'c'; x = o.m(g()); y = made++; z = () => this.x + this.y; static { let q = o.a(g()); q++; C.q = q } }
    const c1 = new C(), c2 = new C(); return [c1.z(), c2.z(), C.q, C.tag, made]`,
  'async/await chains, try/catch around await, await in loops': `
    const wait = (v) => new Promise((r) => setTimeout(() => r(v), 1));
    async function fail() { await wait(0); throw new Error('boom') }
    async function main() {
      const out = [];
      for (let i = 0; i < 3; i++) out.push(await wait(i));
      try { await fail() } catch (e) { out.push(e.message) } finally { out.push('fin') }
      const o = { v: 1 }; o.v += await wait(10); out.push(o.v);
      out.push(await Promise.all([1, 2].map(async (x) => (await wait(x)) * 2)));
      return out;
    }
    return main()`,
  'generators: return(), yield*, try/finally': `
    function* inner() { yield 'i1'; yield 'i2' }
    function* g(n) { try { for (let i = 0; i < n; i++) { const x = yield i; if (x) log(x) } yield* inner() } finally { log('fin') } }
    const it = g(3); const r = [it.next().value, it.next('a').value, it.return(9)];
    return [r, [...g(2)]]`,
  'async generators and for await': `
    async function* ag() { yield 1; await null; yield 2 }
    async function main() { const out = []; for await (const v of ag()) out.push(v); return out }
    return main()`,
  'getters and setters in classes and object literals': `
    const o = { _v: 1, get v() { log('get'); return this._v }, set v(x) { log('set ' + x); this._v = x } };
    o.v = o.v + 1; o.v++; o.v += 3;
    class K { #a = 0; get a() { return this.#a } set a(v) { this.#a = v * 10 } static get s() { return 's' } }
    const k = new K(); k.a = 2; return [o.v, o._v, k.a, K.s]`,
  'spread arguments and spread in literals': `
    const o = { f(...xs) { return xs.reduce((a, b) => a + b, this.base) }, base: 100 };
    const xs = [1, 2, 3]; return [o.f(...xs, 4), Math.max(...xs), [...xs, ...'ab'], { ...o, base: 1 }.base]`,
  'tests short-circuit as before: &&, ||, ??, ?:, == null, !': `
    let n = 0; n = 1;
    const o = { a: null, b: 0, c: 'x', get g() { log('g'); return this.c } };
    const r = [o.a && o.g, o.b || o.g, o.a ?? o.g, o.b ?? o.g, o.c ? o.g : 0, o.a == null, undefined === o.b, !o.c, !!n];
    let i = 0; while (o.b < 3 && i++ < 5) { o.b++ }
    if (!o.a && (n || o.g)) log('in');
    return [r, o.b, i]`,
  'computed keys with side effects': `
    let i = 0; const k = () => { log('k' + i); return 'k' + i++ };
    const v = () => { log('v' + i); return i };
    const o = { [k()]: v(), [k()]: v() }; o[k()] = v(); o[k()] += v();
    return [o, i]`,
  'chained calls keep this': `
    const a = { b: { c: { d() { return this === a.b.c }, e: { f() { return this } } } } };
    return [a.b.c.d(), a.b.c.e.f() === a.b.c.e, a['b']['c'].d()]`,
  'x.y++ and --o[k] inside expressions': `
    const o = { y: 1, s: '5', z: 0 }; const k = 'z';
    const r = [o.y++ + o.y, --o[k], o.s++, o.s, ++o.s, typeof o.s];
    let t = 0; t = o.y++ * 10 + o.y; return [r, o, t]`,
  'a.b += f() where f changes a.b': `
    const a = { b: 1, c: [1, 2] };
    function f() { a.b = 100; return 1 }
    a.b += f(); const k = () => { log('k'); return 0 }; a.c[k()] += (a.c[0] = 50, 1);
    return [a.b, a.c]`,
  'comma expressions and conditionals': `
    let x = 0; const o = { p: 1 };
    const r = (x++, o.p++, x + o.p); const s = o.p > 1 ? (o.p = 0, 'yes') : 'no';
    for (let i = 0, j = 10; i < j; i += 3, j--) x += i;
    return [r, s, x, o]`,
  'order of evaluation through a logging proxy': `
    const p = new Proxy({ c(x) { return x + 1 }, n: 1, b: 2 }, {
      get(t, k) { log('get ' + String(k)); return t[k] },
      set(t, k, v) { log('set ' + String(k) + '=' + v); t[k] = v; return true },
      deleteProperty(t, k) { log('del ' + String(k)); return delete t[k] } });
    const g = (v) => { log('g'); return v };
    p.a = p.b + p.c(p.n); p.n += g(1); p.n++; p.m = p.c(g(3)); delete p.a; p.c(5);
    return p.n`,
  'this in plain, method, detached and comma calls': `
    'use strict';
    const o = { m() { return this === o ? 'o' : String(this) } };
    const f = o.m; return [o.m(), f(), (0, o.m)(), (o.m)(), o['m'](), o.m.call(1)]`,
  'optional chaining and short circuit': `
    const g = () => { log('evaluated'); return 1 };
    const a = { b: { c() { return this === a.b }, d: null }, arr: [1] }; const n = null;
    const r = [n?.b, n?.b.c.d, n?.b(g()), a?.b.c(), a.b?.c(), a.b.d?.(g()), a.b.c?.(), n?.[g()], a?.arr?.[0], delete n?.x, delete a?.b.d];
    try { (n?.b).c } catch (e) { r.push(e.constructor.name) }
    return [r, Object.keys(a.b)]`,
  'logical assignment short-circuits': `
    let n = null; let m = 1; const o = { x: 0, y: 'y', z: undefined };
    const f = (v) => { log('f' + v); return v };
    o.x ||= f(1); o.y ||= f(2); o.z ??= f(3); o.y &&= f(4); n ??= f(5); m ||= f(6); m &&= f(7);
    const get = () => [n, m]; return [o, get()]`,
  'typeof on undeclared globals and members': `
    return [typeof notDeclaredAnywhere, typeof globalThis.nope, typeof ({}).x, typeof Math.max]`,
  'delete of non-members and members': `
    var v = 1; globalThis.zz = 1; const o = { a: 1, b: 2 }; const k = 'b';
    return [delete v, delete zz, typeof zz, delete 1, delete o.a, delete o[k], o, delete Object.prototype]`,
  'destructuring assignment and patterns': `
    let a = 1, b = 2; const o = {}; const src = { x: 1, y: 2, z: 3, w: { q: 4 } };
    [a, b] = [b, a]; [o.a, o['b']] = [10, 20]; ({ x: o.c, ...o.rest } = src);
    const { w: { q = 9, r = o.a }, ...others } = src; const [f = 5, , ...g] = [undefined, 0, 7, 8];
    function h({ m, n = 2 } = {}, [p] = [3]) { return m + n + p }
    const inc = () => a + b; return [a, b, o, q, r, others, f, g, h({ m: 1 }), inc()]`,
  'arguments object and mapping': `
    function f(a) { arguments[0] = 9; return [a, arguments.length, [].slice.call(arguments)] }
    function g() { const h = () => arguments[1]; return h() }
    function s(a) { 'use strict'; arguments[0] = 9; return a }
    return [f(1, 2), g(5, 6), s(1)]`,
  'member targets of for-of and for-in': `
    const o = {}; const seen = [];
    for (o.y of [1, 2, 3]) seen.push(o.y);
    for (o['k'] in { a: 1, b: 2 }) seen.push(o.k);
    for (const [k, v] of Object.entries({ p: 1 })) seen.push(k + v);
    return [o, seen]`,
  'labels, break and continue': `
    const out = []; outer: for (let i = 0; i < 3; i++) { inner: for (let j = 0; j < 3; j++) { if (j === 1) continue outer; if (i === 2) break outer; out.push(i + ':' + j) } }
    blk: { out.push('a'); break blk; }
    return out`,
  'new.target and constructors': `
    function F() { return new.target === F }
    function G() { this.t = new.target === G }
    class H { constructor() { this.t = new.target.name } } class I extends H {}
    return [F(), new G().t, new I().t, Reflect.construct(G, []).t]`,
  'tagged templates keep this': `
    const o = { p: '!', tag(s, ...v) { return s.raw.join('|') + v.join(',') + this.p } };
    return [o.tag\`a\${1}b\${o.p}\`, String.raw\`x\\ny\${2}\`, o['tag']\`z\`]`,
  'import() expressions': `
    return import('node:path').then((m) => typeof m.join, (e) => e.code || e.constructor.name)`,
  'use strict directive stays first': `
    'use strict';
    const o = { f() { return this } }; let threw = false;
    try { undeclaredThing = 1 } catch (e) { threw = e.constructor.name }
    return [(function () { return this })() === undefined, threw]`,
  'function-level use strict and sloppy this': `
    function s() { 'use strict'; return this === undefined }
    function l() { return this === globalThis }
    return [s(), l(), (() => { 'use strict'; return typeof this })()]`,
  'hoisting of function declarations': `
    const early = [f(), typeof g, typeof h];
    function f() { return 'f' + g() }
    function g() { return 'g' }
    { function h() { return 'h' } }
    if (true) { early.push(i()); function i() { return 'i' } }
    return [early, typeof h, h()]`,
  'TDZ of let and const': `
    const out = [];
    function readX() { return x }
    try { readX() } catch (e) { out.push(e.constructor.name) }
    try { typeof y } catch (e) { out.push(e.constructor.name) }
    let x = 1; x = 2; const y = 3; let z; z = 4;
    const r = () => [x, y, z]; return [out, r()]`,
  'var redeclaration': `
    var x = 1; var x; var x = x + 1; function f() { var x; return x } x = x * 10;
    const g = () => x; return [x, f(), g()]`,
  'direct and indirect eval': `
    var q = 1; function f() { var q = 2; return eval('q + 1') } q = 5;
    function g() { return (0, eval)('typeof q') } const h = () => q;
    return [f(), g(), q, h()]`,
  'with statements': `
    const o = { a: 1, b: { c: 2 } }; let r;
    with (o) { r = a + b.c; a = 10 }
    return [r, o.a]`,
  'function names are preserved': `
    const f = () => {}; let g = function () {}; let k; k = function () {}; const c = () => k;
    const o = { h() {}, i: () => {}, ['j' + 1]: function () {} }; class C { static s = () => {}; m() {} }
    const { d = () => {} } = {}; const e = class {}; let u = 0; u = class {};
    return [f.name, g.name, k.name, o.h.name, o.i.name, o.j1.name, C.s.name, C.prototype.m.name, d.name, e.name, u.name, c().name]`,
  'function length and toString of params': `
    function f(a, b = 1, ...c) {} const g = (x, y) => x;
    return [f.length, g.length, (function (a, b) {}).length]`,
  'recursion and per-invocation state': `
    function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
    function mk(s) { let c = s; return { inc: () => ++c, get: () => c } }
    const a = mk(0), b = mk(10); a.inc(); a.inc(); b.inc();
    return [fib(15), a.get(), b.get()]`,
  'update expressions on strings, BigInt and tracked variables': `
    let s = '5'; let b = 1n; const o = { b: 2n, s: 'x' };
    const r1 = [s++, s, ++s, b++, b, --b]; const r2 = [o.b++, ++o.b, o.s++, o.s];
    const r = () => [s, b]; return [r1.map(String), r2.map(String), r().map(String)]`,
  'new with member callees and computed constructors': `
    const ns = { C: class { constructor(v) { this.v = v } } }; const pick = () => ns.C;
    const a = new ns.C(1), b = new (pick())(2), c = new ns['C'](3), d = new Date(0);
    return [a.v, b.v, c.v, d.getTime(), a instanceof ns.C]`,
  'switch with fallthrough and declarations in cases': `
    function s(x) { const out = []; switch (x) { case 1: out.push(1); case 2: out.push(typeof f); function f() {} break; default: out.push('d') } return out }
    return [s(1), s(2), s(3)]`,
  'object literal methods with super and __proto__': `
    const base = { m() { return 'base' } };
    const o = { __proto__: base, m() { return super.m() + '+o' }, get g() { return super.m() } };
    return [o.m(), o.g, Object.getPrototypeOf(o) === base]`,
  'compound assignments with every operator': `
    const o = { a: 2, b: 5, c: -16, d: 7, e: 6, f: 5, g: 3, h: 9, i: 10, j: 'p' };
    o.a **= 3; o.b <<= 2; o.c >>>= 28; o.c >>= 1; o.d &= 3; o.e |= 1; o.f ^= 1; o.g *= 3; o.h /= 2; o.i %= 4; o.i -= 1; o.j += 'q';
    return o`,
  'comparisons and arithmetic between member reads': `
    const a = { x: 1, s: 'a', n: null }, b = { y: 2, s: 'b', u: undefined }; let v = 3; const w = () => v; v = 4;
    return [a.x < b.y, a.x >= b.y, a.n == b.u, a.n === b.u, a.s + b.s, a.x - b.y, a.x ** b.y, a.x << b.y, a.x & b.y, v * a.x, v > b.y, w()]`,
  'exceptions through instrumented functions': `
    class MyErr extends Error {}
    const o = { f() { throw new MyErr('m') }, g() { try { return 'try' } finally { log('finally') } } };
    function h() { try { o.f() } catch (e) { return [e instanceof MyErr, e.message] } }
    function ret() { try { return 1 } finally { return 2 } }
    let threw; try { o.nope() } catch (e) { threw = e.constructor.name }
    return [h(), o.g(), ret(), threw]`,
  'this and arguments in arrows inside methods': `
    const o = { v: 7, m() { const f = () => [this.v, arguments[0]]; return f() } };
    return o.m('arg')`,
  'event ordering with timers and promises': `
    const order = []; const o = { n: 0 };
    setTimeout(() => { o.n++; order.push('t' + o.n) }, 0);
    Promise.resolve().then(() => { o.n += 10; order.push('p' + o.n) });
    queueMicrotask(() => order.push('q'));
    return new Promise((r) => setTimeout(() => r([order, o.n]), 5))`,
  'per-iteration let bindings captured by closures': `
    const fs = []; for (let i = 0; i < 3; i++) fs.push(() => i);
    const gs = []; for (const k of ['a', 'b']) { let c = k; gs.push(() => c); c += '!' }
    return [fs.map((f) => f()), gs.map((g) => g())]`,
  'derived constructor with captured variables before super': `
    class B { constructor(v) { this.v = v } }
    class D extends B { constructor() { let x = 1; const inc = () => x++; inc(); super(x); this.f = () => inc() + x } }
    const d = new D(); return [d.v, d.f(), d.f()]`,
  'module.exports and exports assignments': `
    exports.a = function () { return 1 }; module.exports.b = () => 2;
    return [exports.a(), module.exports.b(), Object.keys(module.exports)]`,
};

for (const [name, code] of Object.entries(semantics)) {
  test(`semantics: ${name}`, async () => {
    const out = transform(code, { filename: 't.js', relPath: 't.js' });
    assert.strictEqual(!!out.skipped, /\bwith \(/.test(code), out.skipped);
    const plainRun = await run(code, false);
    const instrRun = await run(code, true);
    assert.deepStrictEqual(
      { result: instrRun.result, log: instrRun.log },
      { result: plainRun.result, log: plainRun.log });
  });
}

// Each snippet records exactly `want` (calls of the kinds listed in `kinds`).
const recording = [
  {
    name: 'a put then a get, with field, value and location',
    code: 'const o = {}; o.x = 1; o.x;',
    kinds: ['put', 'get'],
    want: [['put', 'x', 1, 't.js:1:17'], ['get', 'x', 1, 't.js:1:26']],
  },
  {
    name: 'a module-level variable is read and written on the module scope',
    code: 'let n = 0;\nfunction inc() { n++ }\ninc();',
    kinds: ['moduleScope', 'rv', 'wv', 'scope'],
    want: [
      ['moduleScope', 't.js'],
      ['wv', 'module:t.js', 'n', 0, 't.js:1:5'],
      ['rv', 'module:t.js', 'n', 0, 't.js:2:18'],
      ['wv', 'module:t.js', 'n', 1, 't.js:2:18'],
    ],
  },
  {
    name: 'a captured reassigned variable gets a scope token per invocation',
    code: 'function mk() {\n  let c = 0;\n  return () => { c = c + 1; };\n}\nconst a = mk(), b = mk();\na(); b();',
    kinds: ['scope', 'rv', 'wv'],
    want: [
      ['scope', 't.js:1:1', 'scope2'],
      ['wv', 'scope2', 'c', 0, 't.js:2:7'],
      ['scope', 't.js:1:1', 'scope4'],
      ['wv', 'scope4', 'c', 0, 't.js:2:7'],
      ['rv', 'scope2', 'c', 0, 't.js:3:22'],
      ['wv', 'scope2', 'c', 1, 't.js:3:18'],
      ['rv', 'scope4', 'c', 0, 't.js:3:22'],
      ['wv', 'scope4', 'c', 1, 't.js:3:18'],
    ],
  },
  {
    name: 'a captured reassigned parameter is written at entry',
    code: 'function f(x) { return () => x++; }\nf(5)();',
    kinds: ['scope', 'rv', 'wv'],
    want: [
      ['scope', 't.js:1:1', 'scope2'],
      ['wv', 'scope2', 'x', 5, 't.js:1:12'],
      ['rv', 'scope2', 'x', 5, 't.js:1:30'],
      ['wv', 'scope2', 'x', 6, 't.js:1:30'],
    ],
  },
  {
    name: 'a never-reassigned const and an uncaptured local are not tracked',
    code: 'const k = 1;\nfunction f() { let i = 0; i++; return i + k; }\nf();',
    kinds: ['scope', 'rv', 'wv'],
    want: [],
  },
  {
    name: 'compound assignment of a module variable reads then writes',
    code: 'let n = 1;\nn += 2;\nconst o = { n };',
    kinds: ['rv', 'wv'],
    want: [
      ['wv', 'module:t.js', 'n', 1, 't.js:1:5'],
      ['rv', 'module:t.js', 'n', 1, 't.js:2:1'],
      ['wv', 'module:t.js', 'n', 3, 't.js:2:1'],
      ['rv', 'module:t.js', 'n', 3, 't.js:3:13'],
    ],
  },
  {
    name: 'a comparison of two member reads records bin with both locations',
    code: 'const a = { x: 1 }, b = { y: 2 };\nif (a.x < b.y) {}',
    kinds: ['get', 'bin'],
    want: [['get', 'x', 1, 't.js:2:7'], ['get', 'y', 2, 't.js:2:13'], ['bin', '<', 't.js:2:7', 't.js:2:13', 't.js:2:5']],
  },
  {
    name: 'allocations: literals, new, function and class declarations and expressions',
    code: 'function Foo() {}\nnew Foo();\nconst o = { a: [1] };\nclass K {}\nsetTimeout(function () {});\nconst f = () => 1;',
    kinds: ['alloc'],
    want: [
      ['alloc', 't.js:1:1', 'Function'],
      ['alloc', 't.js:2:1', 'Foo'],
      ['alloc', 't.js:3:16', 'Array'],
      ['alloc', 't.js:3:11', 'Object'],
      ['alloc', 't.js:4:1', 'Function'],
      ['alloc', 't.js:5:12', 'Function'],
      ['alloc', 't.js:6:11', 'Function'],
    ],
  },
  {
    name: 'enter/exit names: declarations, Class.method, assigned and anonymous functions',
    code: 'function decl() {}\nclass C { m() {} static s() {} get g() { return 1 } }\n' +
      'const arrow = () => {};\nexports.handler = function () {};\nconst o = { meth() {} };\n' +
      'decl(); new C().m(); C.s(); new C().g; arrow(); exports.handler(); o.meth(); [1].forEach(() => {});',
    kinds: ['enter', 'exit'],
    want: [
      ['enter', 'decl', 't.js:1:1'], ['exit', 'decl'],
      ['enter', 'C.m', 't.js:2:11'], ['exit', 'C.m'],
      ['enter', 'C.s', 't.js:2:18'], ['exit', 'C.s'],
      ['enter', 'C.get g', 't.js:2:32'], ['exit', 'C.get g'],
      ['enter', 'arrow', 't.js:3:15'], ['exit', 'arrow'],
      ['enter', 'exports.handler', 't.js:4:19'], ['exit', 'exports.handler'],
      ['enter', 'o.meth', 't.js:5:13'], ['exit', 'o.meth'],
      ['enter', 't.js:6:90', 't.js:6:90'], ['exit', 't.js:6:90'],
    ],
  },
  {
    name: 'await suspends and resumes the frame',
    code: 'async function f() {\n  const v = await 1;\n  return v;\n}\nreturn f();',
    kinds: ['enter', 'exit', 'suspend', 'resume'],
    want: [['enter', 'f', 't.js:1:1'], ['suspend', 'f'], ['resume', 'f'], ['exit', 'f']],
  },
  {
    name: 'method calls: invoke, or get then call when an argument runs code',
    code: 'const o = { m(v) { return v; } };\no.m(1);\no.m(o.m(2));',
    kinds: ['invoke', 'get'],
    want: [['invoke', 'm', 't.js:2:3'], ['get', 'm', 'fn', 't.js:3:3'], ['invoke', 'm', 't.js:3:7']],
  },
  {
    name: 'update, incr and del',
    code: 'const o = { a: 1, b: 2 };\no.a += 2;\no.b++;\n--o["a"];\ndelete o.b;',
    kinds: ['update', 'incr', 'del'],
    want: [['update', 'a', '+', 1, 3, 't.js:2:3'], ['incr', 'b', 1, false, 't.js:3:3'],
      ['incr', 'a', -1, true, 't.js:4:5'], ['del', 'b', 't.js:5:10']],
  },
  {
    name: 'a compound assignment whose value runs code reads before and writes after',
    code: 'const a = { b: 1 };\nfunction f() { a.b = 10; return 1; }\na.b += f();',
    kinds: ['get', 'put', 'enter'],
    want: [['get', 'b', 1, 't.js:3:3'], ['enter', 'f', 't.js:2:1'], ['put', 'b', 10, 't.js:2:18'],
      ['put', 'b', 2, 't.js:3:3']],
  },
  {
    name: 'this.x in a constructor and a method',
    code: 'class P {\n  constructor() { this.x = 0; }\n  bump() { this.x = this.x + 1; }\n}\nnew P().bump();',
    kinds: ['put', 'get', 'bin', 'enter'],
    want: [['enter', 'P.constructor', 't.js:2:3'], ['put', 'x', 0, 't.js:2:24'], ['enter', 'P.bump', 't.js:3:3'],
      ['get', 'x', 0, 't.js:3:26'], ['put', 'x', 1, 't.js:3:17']],
  },
  {
    name: 'a variable compared with a member read records bin',
    code: 'let lim = 0; lim = 3;\nconst o = { n: 1 };\nlim > o.n;',
    kinds: ['bin'],
    want: [['bin', '>', 't.js:3:1', 't.js:3:9', 't.js:3:1']],
  },
  {
    name: 'tested reads are guarded: if, !, &&, ||, ??, ?:, loops, == null',
    code: 'const o = { a: null, b: 1, c: 0 };\nlet v = 0; v = 2;\n' +
      'if (o.a) {}\nif (!o.b) {}\nconst x = o.a && o.b;\nconst y = o.a ?? o.c;\n' +
      'o.b ? 1 : 2;\nwhile (o.c) {}\nif (o.a == null) {}\nif (undefined !== o.b) {}\n' +
      'if (v) {}\nfor (; o.c;) {}\nif (o.a === void 0 || !(o.b && o.c)) {}',
    kinds: ['guard'],
    want: [
      ['guard', 't.js:3:7', null, 't.js:3:7'],
      ['guard', 't.js:4:8', 1, 't.js:4:8'],
      ['guard', 't.js:5:13', null, 't.js:5:13'],
      ['guard', 't.js:6:13', null, 't.js:6:13'],
      ['guard', 't.js:7:3', 1, 't.js:7:3'],
      ['guard', 't.js:8:10', 0, 't.js:8:10'],
      ['guard', 't.js:9:7', null, 't.js:9:7'],
      ['guard', 't.js:10:21', 1, 't.js:10:21'],
      ['guard', 't.js:11:5', 2, 't.js:11:5'],
      ['guard', 't.js:12:10', 0, 't.js:12:10'],
      ['guard', 't.js:13:7', null, 't.js:13:7'],
      ['guard', 't.js:13:27', 1, 't.js:13:27'],
      ['guard', 't.js:13:34', 0, 't.js:13:34'],
    ],
  },
  {
    name: 'the test of an if that throws is an assertion, not a guard (functions in it keep theirs)',
    code: 'const o = { a: 1, b: [2] };\nif (!o.a) throw new Error();\nif (o.a == null) { log(1); throw new Error(); } else {}\n' +
      'if (o.b.some((x) => o.a && x > 5)) throw new Error();\nif (o.z) { throw new Error(); }',
    kinds: ['guard'],
    want: [['guard', 't.js:4:23', 1, 't.js:4:23']],
  },
  {
    name: 'reads used as values, or compared with other values, are not guarded',
    code: 'const o = { a: 1, b: 2 };\nconst x = o.a;\nif (o.a === 1) {}\nif (o.a < o.b) {}\nif (f(o.a)) {}\nfunction f(v) { return v; }',
    kinds: ['guard'],
    want: [],
  },
  {
    name: 'nothing is recorded for optional chains, private fields or super',
    code: 'class A { m() { return 1; } }\nclass B extends A { #p = 1; m() { return super.m() + this.#p; } }\n' +
      'const o = { b: null };\nnew B().m(); o.b?.c; o.b?.c();',
    kinds: ['get', 'put', 'invoke'],
    want: [['invoke', 'm', 't.js:4:9'], ['get', 'b', null, 't.js:4:16'], ['get', 'b', null, 't.js:4:24']],
  },
];

for (const { name, code, kinds, want } of recording) {
  test(`recording: ${name}`, async () => {
    const { result, calls: got } = await run(code, true);
    assert.ok(!(result && result.threw), `threw ${result && result.threw}`);
    assert.deepStrictEqual(got.filter((c) => kinds.includes(c[0])), want);
  });
}

test('the output is marked, starts with the runtime after directives and keeps lines', () => {
  const code = '#!/usr/bin/env node\n"use strict";\nconst o = {};\n\nfunction f() {\n  return o.x;\n}\n';
  const out = transform(code, { filename: '/abs/a.js', relPath: 'a.js' }).code;
  const lines = out.split('\n');
  assert.strictEqual(lines[0], '#!/usr/bin/env node');
  assert.ok(lines[1].startsWith(MARKER + '"use strict";var __lc = globalThis.__licorice;'), lines[1]);
  assert.match(lines[5], /__lc\.get\(o, "x", "a\.js:6:12"\)/);
  assert.ok(lines.length <= code.split('\n').length);
});

test('stack traces keep the original line numbers', async () => {
  const code = 'const o = {};\n\nfunction f() {\n\n  throw new Error("x");\n}\ntry { f() } catch (e) { return e.stack.split("\\n")[1] }';
  const { result } = await run(code, true, 'lines.js');
  assert.match(result, /lines\.js:5:/);
});

test('already instrumented files are skipped', () => {
  const once = transform('const o = {}; o.x = 1;', { filename: 'a.js', relPath: 'a.js' });
  const twice = transform(once.code, { filename: 'a.js', relPath: 'a.js' });
  assert.ok(!once.skipped);
  assert.strictEqual(twice.code, once.code);
  assert.match(twice.skipped, /already instrumented/);
  const runtime = 'globalThis.__licorice = { get() {} };';
  assert.strictEqual(transform(runtime, { filename: 'r.js' }).code, runtime);
});

test('ES modules and files using with or the name __lc are returned unchanged', () => {
  for (const code of ['with (o) { x = 1 }', 'var __lc = 1; o.x = __lc;', 'import a from "a"; a.x = 1;']) {
    const out = transform(code, { filename: 'w.js', relPath: 'w.js' });
    assert.strictEqual(out.code, code);
    assert.ok(out.skipped);
  }
});

test('files with a direct eval track no variables', () => {
  const out = transform('let n = 0; n++; function f() { return eval("n") } o.x = n;', { filename: 'e.js', relPath: 'e.js' });
  assert.doesNotMatch(out.code, /__lc\.(rv|wv)/);
  assert.match(out.code, /__lc\.put/);
});

test('a syntax error names the file and line', () => {
  assert.throws(
    () => transform('const a = 1;\nconst b = ;\n', { filename: '/proj/src/bad.js', relPath: 'src/bad.js' }),
    (e) => e instanceof Error && /\/proj\/src\/bad\.js:2:11/.test(e.message) && /Unexpected token/.test(e.message));
});
