'use strict';
// DEL: del issue 43 (discussion in PR 44).
//
//   node harness.js           del 2.0.2 (buggy: every matched path's rimraf at once, Promise.all)
//   node harness.js --fixed   del 3.0.0 with concurrency 1 (PR 44's fix: one rimraf at a time)
//
// As in the report, del("folder/**") deletes a folder and everything in it.
// The glob matches the folder and each file and subfolder inside it, and
// del 2.0.x starts a rimraf for every match at once: the rimraf of the
// folder walks into it and removes the files while the files' own rimrafs
// lstat and unlink them. Whichever loses finds its path gone (ENOENT, in
// lstat, unlink, rmdir or readdir). The report saw that ENOENT thrown; the
// rimraf that del 2.0.x gets today (2.7.1) turns ENOENT into success, so
// the harness checks the outcome: del must resolve, with every match, and
// leave nothing behind. Any failure throws (a failing exit status).
//
// The tree lives in a fresh directory under os.tmpdir(), which is the
// working directory del is given (cwd), and is removed at the end.

const fs = require('fs');
const os = require('os');
const path = require('path');

const fixed = process.argv.includes('--fixed');
const del = require(fixed ? 'del-fixed' : 'del-buggy');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'licorice-del-'));
const folder = path.join(root, 'folder');
fs.mkdirSync(folder);
fs.writeFileSync(path.join(folder, 'a.js'), 'a\n');
fs.writeFileSync(path.join(folder, 'b.js'), 'b\n');
fs.mkdirSync(path.join(folder, 'sub'));
fs.writeFileSync(path.join(folder, 'sub', 'c.js'), 'c\n');

const expected = ['folder', 'folder/a.js', 'folder/b.js', 'folder/sub', 'folder/sub/c.js'].map((p) => path.join(root, p)).sort();

const options = fixed ? { cwd: root, concurrency: 1 } : { cwd: root };
del('folder/**', options).then(function deleted(files) {
  const got = files.slice().sort();
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    throw new Error('del reported ' + JSON.stringify(got) + ', want ' + JSON.stringify(expected));
  }
  if (fs.existsSync(folder)) throw new Error('folder still exists after del');
  fs.rmdirSync(root);
});
