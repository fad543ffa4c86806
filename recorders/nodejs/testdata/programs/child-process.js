'use strict';
const { execFile } = require('child_process');
let out = null;
execFile(process.execPath, ['-e', 'console.log(6 * 7)'], function done(err, stdout) {
  if (err) throw err;
  out = stdout.trim();
  if (out !== '42') throw new Error('child said ' + out);
});
