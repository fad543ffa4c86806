'use strict';
// MKD: mkdirp's race (the package's own test/race.js, added with the fix in
// 0.0.4; Node.fz's and NodeRacer's benchmark "MKD").
//
//   node harness.js           mkdirp 0.0.3 (buggy)
//   node harness.js --fixed   mkdirp 0.0.7 (fixed: EEXIST is success)
//   node harness.js --delay 0 both calls at once: 0.0.3 fails every run
//
// Two parts of a program make the same nested directory, each before
// writing a file into it: a build step writes out/assets/img/logo.txt at
// start, a second step writes out/assets/img/icon.txt on a timer. mkdirp
// 0.0.3 walks up with path.exists until a directory exists, then makes
// the missing ones on the way down, and passes any mkdir error on: when
// the two walks overlap, the second mkdir of a directory fails with
// EEXIST and its caller fails. 0.0.4 and later treat EEXIST as success.
//
// mkdirp 0.0.x calls path.exists, which Node 0.8 moved to fs.exists and
// later Node releases removed from path: the harness puts it back (the same
// function) before loading the package, which it does not touch otherwise.
//
// Timing: the first call makes the three directories with seven
// file-system calls (a millisecond with plain Node, 5-20 ms under the
// recorder); the second starts on a timer of --delay ms (default 30).
// Nothing orders that timer against the first call's file-system
// callbacks: a run without delays passes, even on a loaded machine, while
// the shuffler's delays let the walks overlap in most shuffled runs, and
// 0.0.3 then fails.
//
// The tree lives in a fresh directory under os.tmpdir(), removed at the end.

const fs = require('fs');
const os = require('os');
const path = require('path');

const fixed = process.argv.includes('--fixed');
const arg = process.argv.indexOf('--delay');
const DELAY = arg > 0 ? Number(process.argv[arg + 1]) : 30;

// path.exists, as mkdirp 0.0.x expects it (Node < 0.8).
path.exists = fs.exists;
const mkdirp = require(fixed ? 'mkdirp-fixed' : 'mkdirp-buggy').mkdirp;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'licorice-mkd-'));
const dir = path.join(root, 'out', 'assets', 'img');
const written = [];

function writeInto(name) {
  return function made(err) {
    if (err) throw err;
    fs.writeFile(path.join(dir, name), name + '\n', function wrote(err) {
      if (err) throw err;
      written.push(name);
    });
  };
}

mkdirp(dir, 0o755, writeInto('logo.txt'));

setTimeout(function second() {
  mkdirp(dir, 0o755, writeInto('icon.txt'));
}, DELAY);

process.on('exit', function check(code) {
  fs.rmSync(root, { recursive: true, force: true });
  if (code !== 0) return;
  if (written.length !== 2) throw new Error('wrote ' + written.length + ' files of 2');
});
