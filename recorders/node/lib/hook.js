'use strict';
// The load-time hook: CommonJS modules that the user asked for are
// instrumented (lib/transform.js) as Node loads them, through pirates'
// require hook. By default that is the program's own files: every .js and
// .cjs file outside node_modules. Globs add more: a pattern is matched
// against the file's path relative to the root ("node_modules/del/**"),
// and a bare package name ("del", "@scope/pkg") stands for every file of
// that package, wherever it is installed. The recorder's own files are
// never instrumented.

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
  const own = recorderDir + path.sep;
  return (filename) => {
    if (filename.startsWith(own)) return false;
    const rel = path.relative(root, filename).split(path.sep).join('/');
    if (!rel.split('/').includes('node_modules')) return true;
    return tests.some((t) => t(rel));
  };
}

/** install hooks require for .js and .cjs files. */
function install(opts) {
  const { transform } = require('./transform');
  const match = matcher(opts);
  return addHook(
    (code, filename) => {
      const rel = path.relative(opts.root, filename).split(path.sep).join('/');
      return transform(code, { filename, relPath: rel }).code;
    },
    { exts: ['.js', '.cjs'], matcher: match, ignoreNodeModules: false },
  );
}

module.exports = { install, matcher };
