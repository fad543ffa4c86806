'use strict';
// The recorder's entry point, preloaded by `licorice record` with
// `node --require <this file> PROGRAM ARGS…`. It reads its settings from
// the environment (set by licorice, not by users):
//
//   LICORICE_OUT          the trace file to write (JSON Lines)
//   LICORICE_HEADER       the header's fields, as JSON (app, run, seed, …)
//   LICORICE_SEED         the run's seed
//   LICORICE_SHUFFLE      "1": shuffle the schedule (lib/shuffle.js)
//   LICORICE_DELAY_MEAN   the mean shuffle delay, ms (default 10)
//   LICORICE_INSTRUMENT   JSON list of globs of further files to
//                         instrument (relative to LICORICE_ROOT; a bare
//                         package name means that package)
//   LICORICE_ROOT         the directory source locations are relative to
//   LICORICE_NOTES        a file to append notes to, a line each: what
//                         the trace does not hold ("child process",
//                         "worker thread")
//   LICORICE_CACHE        where transformed files are cached (default: a
//                         folder in the system's temporary directory;
//                         empty: no cache)
//
// The program's own files (not node_modules) are instrumented by default.
// In a worker thread the recorder does nothing: worker threads are not
// recorded (the main thread records the worker as an I/O resource).

const path = require('path');
const { isMainThread } = require('worker_threads');

function main() {
  const out = process.env.LICORICE_OUT;
  if (!out) return;
  if (!isMainThread) return;
  // Children of the program are not recorded; they must not write here.
  for (const k of Object.keys(process.env)) {
    if (!k.startsWith('LICORICE_')) continue;
    settings[k] = process.env[k];
    delete process.env[k];
  }

  const { Recorder } = require('./recorder');
  const events = require('./events');
  const { createRuntime } = require('./heap');
  const hook = require('./hook');

  let header = {};
  try {
    header = JSON.parse(envOr('LICORICE_HEADER', '{}'));
  } catch {
    header = {};
  }
  const rec = new Recorder(out, { platform: 'node', ...header });
  rec.notesFile = envOr('LICORICE_NOTES', '');
  rec.internalOrigin = 0; // > 0: a resource made now is the shuffler's delay (shuffle.js)
  const heap = createRuntime(rec);
  globalThis.__licorice = heap;

  const root = envOr('LICORICE_ROOT', process.cwd());
  let globs = [];
  try {
    globs = JSON.parse(envOr('LICORICE_INSTRUMENT', '[]'));
  } catch {
    globs = [];
  }
  if (envOr('LICORICE_NO_TRANSFORM', '') !== '1') hook.install({ root, globs, recorderDir: path.resolve(__dirname, '..'), cacheDir: settings.LICORICE_CACHE });

  events.install(rec);
  if (envOr('LICORICE_SHUFFLE', '0') === '1') {
    require('./shuffle').install(rec, {
      seed: Number(envOr('LICORICE_SEED', '1')),
      delayMean: Number(envOr('LICORICE_DELAY_MEAN', '10')) || 10,
    });
  }
  // After the shuffler: a path's state is read where the program's
  // callback runs, after any delay.
  require('./highlevel').install(rec, heap, root);

  // The main module's synchronous code ends when the first tick runs:
  // this one, queued before the program's.
  rec.off++;
  process.nextTick(() => {
    rec.mainDone = true;
  });
  rec.off--;

  process.on('uncaughtExceptionMonitor', (err, origin) => {
    const msg = describe(err, origin);
    rec.off++;
    try {
      rec.emit('error', { msg }, firstFrame(err, root));
    } finally {
      rec.off--;
    }
  });
  process.on('exit', () => rec.finish());
}

const settings = {};

function envOr(k, d) {
  const v = settings[k];
  return v === undefined || v === '' ? d : v;
}

function describe(err, origin) {
  const kind = origin === 'unhandledRejection' ? 'unhandled rejection' : 'uncaught exception';
  if (err instanceof Error) return kind + ': ' + (err.name || 'Error') + ': ' + err.message;
  let s;
  try {
    s = String(err);
  } catch {
    s = typeof err;
  }
  return kind + ': ' + s;
}

/**
 * firstFrame is the first stack frame of err in the program (not in Node,
 * not in the recorder) as "file:line:col", relative to root.
 */
function firstFrame(err, root) {
  const stack = err && typeof err.stack === 'string' ? err.stack : '';
  const own = __dirname + path.sep;
  for (const line of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^()\s]+):(\d+):(\d+)\)?\s*$/.exec(line);
    if (m === null || m[1].startsWith('node:') || m[1].startsWith(own)) continue;
    let f = m[1].replace(/^file:\/\//, '');
    if (path.isAbsolute(f)) f = path.relative(root, f).split(path.sep).join('/');
    return f + ':' + m[2] + ':' + m[3];
  }
  return undefined;
}

main();
