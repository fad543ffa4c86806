'use strict';
// FSE: fs-extra issue 392 (the same patch sent upstream as rimraf PR 145).
//
//   node harness.js           fs-extra 2.1.1 (buggy)
//   node harness.js --fixed   fs-extra 2.1.2 (fixed: `return fixWinEPERM(...)` in rimraf_)
//
// As in the report, emptyDir(cache) is called while another program still
// holds a file in the cache open. On Windows such a file cannot be looked
// at or removed for a while: lstat, unlink, chmod and stat fail with EPERM.
// fs-extra 2.1.1's internal rimraf, on an lstat EPERM (Windows only),
// starts fixWinEPERM and, lacking a `return`, also unlinks: two chains that
// each end by calling back, so the user's callback runs twice.
//
// The bug is reachable on Windows only, so the harness plays Windows for
// fs-extra, without touching the package:
//   - process.platform reads 'win32' while fs-extra is loaded (rimraf and
//     graceful-fs decide at load time; it is restored right after);
//   - Node's fs (before graceful-fs copies it) answers lstat, stat, unlink,
//     chmod and rmdir of a held path with EPERM, delivered as an immediate,
//     while the other program holds it (`holder.held`, decided when the call
//     is made). Other calls and other paths go to the real fs.
// The other program holds cache/en-US from the start and lets go of it on a
// timer of 1 ms; emptyDir starts on a timer of 2 ms. Nothing orders the
// two timers against emptyDir's readdir callback, which issues the first
// lstat: when the release comes later, 2.1.1 calls back twice (the harness
// throws), 2.1.2 retries after 100 ms and calls back once.
//
// The tree lives in a fresh directory under os.tmpdir(), removed at the end.

const fs = require('fs');
const os = require('os');
const path = require('path');

const fixed = process.argv.includes('--fixed');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'licorice-fse-'));
const cache = path.join(root, 'cache');
fs.mkdirSync(cache);
const held = path.join(cache, 'en-US');
fs.writeFileSync(held, 'cached page\n');

// The other program (an editor, a virus scanner) holding cache/en-US.
const holder = { path: held, held: true };

function eperm(syscall, p) {
  const err = new Error('EPERM: operation not permitted, ' + syscall + " '" + p + "'");
  err.code = 'EPERM';
  err.errno = -4048; // as on Windows
  err.syscall = syscall;
  err.path = p;
  return err;
}

// Windows' answer for a held path, in place of Node's fs on Linux.
for (const name of ['lstat', 'stat', 'unlink', 'chmod', 'rmdir']) {
  const real = fs[name];
  fs[name] = function (p, ...rest) {
    const cb = rest[rest.length - 1];
    if (typeof cb === 'function' && holder.held && path.resolve(String(p)) === holder.path) {
      setImmediate(cb, eperm(name, p));
      return undefined;
    }
    return real.call(this, p, ...rest);
  };
}

// fs-extra believes it runs on Windows.
const platform = Object.getOwnPropertyDescriptor(process, 'platform');
Object.defineProperty(process, 'platform', { value: 'win32', configurable: true, enumerable: true });
let fse;
try {
  fse = require(fixed ? 'fs-extra-fixed' : 'fs-extra-buggy');
} finally {
  Object.defineProperty(process, 'platform', platform);
}

let calls = 0;

setTimeout(function release() {
  holder.held = false;
}, 1);

setTimeout(function empty() {
  fse.emptyDir(cache, function onEmptied(err) {
    calls++;
    if (calls > 1) throw new Error('emptyDir called back ' + calls + ' times');
    if (err) throw err;
  });
}, 2);

process.on('exit', function check(code) {
  const left = fs.readdirSync(cache).length;
  fs.rmSync(root, { recursive: true, force: true });
  if (code !== 0) return;
  if (calls !== 1) throw new Error('emptyDir called back ' + calls + ' times');
  if (left !== 0) throw new Error('cache not empty');
});
