'use strict';
// The load-time hook: CommonJS modules that the user asked for are
// instrumented (lib/transform.js) as Node loads them, through pirates'
// require hook. By default that is the program's own files: every .js and
// .cjs file outside node_modules. Globs add more: a pattern is matched
// against the file's path relative to the root ("node_modules/del/**"),
// and a bare package name ("del", "@scope/pkg") stands for every file of
// that package, wherever it is installed. The recorder's own files are
// never instrumented.
//
// Transformed files are cached (cacheDir, keyed by the transform's own
// source, the file's path and its content), so that a batch of runs loads
// Babel once, not once per run.

const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { addHook } = require('pirates');
const picomatch = require('picomatch');

/** matcher returns the predicate that decides which files are instrumented. */
function matcher({ root, globs, recorderDir }) {
  const tests = globs.map((g) => {
    if (/^(@[\w.-]+\/)?[\w.-]+$/.test(g)) return (rel) => rel.includes('node_modules/' + g + '/');
    const m = picomatch(g, { dot: true });
    return (rel) => m(rel);
  });
  const own = [path.join(recorderDir, 'lib') + path.sep, path.join(recorderDir, 'node_modules') + path.sep];
  return (filename) => {
    if (own.some((d) => filename.startsWith(d))) return false;
    const rel = path.relative(root, filename).split(path.sep).join('/');
    if (!rel.split('/').includes('node_modules')) return true;
    return tests.some((t) => t(rel));
  };
}

/** install hooks require for .js and .cjs files. opts.cacheDir '' turns the cache off. */
function install(opts) {
  let transform = null;
  const version = crypto.createHash('sha256').update(fs.readFileSync(path.join(__dirname, 'transform.js'))).digest('hex').slice(0, 16);
  const cacheDir = opts.cacheDir === undefined ? path.join(os.tmpdir(), 'licorice-node-' + version) : opts.cacheDir;
  const match = matcher(opts);
  return addHook(
    (code, filename) => {
      const rel = path.relative(opts.root, filename).split(path.sep).join('/');
      let file = '';
      if (cacheDir !== '') {
        const key = crypto.createHash('sha256').update(version + '\0' + rel + '\0' + code).digest('hex');
        file = path.join(cacheDir, key + '.js');
        try {
          return fs.readFileSync(file, 'utf8');
        } catch {
          // not cached yet
        }
      }
      if (transform === null) transform = require('./transform').transform;
      let out;
      try {
        out = transform(code, { filename, relPath: rel }).code;
      } catch (err) {
        // Not JavaScript that Babel reads: Node loads it as it is, and
        // reports its own SyntaxError if it is not JavaScript at all.
        process.stderr.write('licorice: ' + rel + ' is not instrumented: ' + (err && err.message ? err.message.split('\n')[0] : err) + '\n');
        return code;
      }
      if (file !== '') {
        try {
          fs.mkdirSync(cacheDir, { recursive: true });
          const tmp = file + '.' + process.pid + '.tmp';
          fs.writeFileSync(tmp, out);
          fs.renameSync(tmp, file);
        } catch {
          // a cache that cannot be written only costs time
        }
      }
      return out;
    },
    { exts: ['.js', '.cjs'], matcher: match, ignoreNodeModules: false },
  );
}

module.exports = { install, matcher };
