'use strict';
// High-level locations: state outside the JavaScript heap that handlers
// race on, recorded as objects and fields (EventRacer's idea).
//
//   - A file-system path is an object "fs:<absolute path>" with fields
//     `exists` and `dir` (booleans). A call that observes a path (stat,
//     lstat, access, exists, readFile, readdir, open for reading, …)
//     reads them — inside the handler that gets the result, with what the
//     result says (ENOENT: exists false); a call that changes one (mkdir,
//     rmdir, rm, unlink, writeFile, appendFile, copyFile, rename, open for
//     writing, symlink) writes them when it has succeeded (a removal also
//     reads `exists` true first: the path was there; a mkdir reads it
//     false, and its EEXIST reads it true). Sync calls do
//     so at once, callback calls in their callback's event, fs.promises
//     calls in the event their result reaches. The path's allocation
//     site is the program's source location of the call that first
//     touched it (node_modules included), so that its symbolic name is
//     the same in every run whatever the path (a fresh temporary
//     directory) is.
//   - A stream or socket (any stream.Readable or stream.Writable) has a
//     field `destroyed`: destroy() writes true; write() and end() read it.
//   - Loopback TCP: a write (or end, or a destroy before the end) on a
//     socket whose peer is in this process happens before the peer's read
//     that brings its data (or the end). Each
//     write signals a handle of its own, per direction, in order; a read
//     callback of the peer's TCP handle is delivered after a wait on the
//     oldest write of that direction not yet read (events.js). TCP keeps
//     order, and a read brings at least the oldest unread byte.

const fs = require('fs');
const path = require('path');
const stream = require('stream');

/**
 * install patches fs and the streams. heap is the runtime (lib/heap.js),
 * rec the recorder, root the directory sources are relative to.
 */
function install(rec, heap, root) {
  const own = __dirname + path.sep;
  const sites = new Map(); // path -> site

  const recorderDeps = path.join(path.dirname(__dirname), 'node_modules') + path.sep;
  /**
   * callSite is the first frame of the program that called fs, or null
   * when the caller is Node's module loader or the recorder (loading
   * code is not the program's file-system traffic).
   */
  const callSite = () => {
    const stack = new Error().stack.split('\n');
    let caller = true; // the next frame is the one that called fs
    for (let i = 1; i < stack.length; i++) {
      const m = /\(?([^()\s]+):(\d+):(\d+)\)?\s*$/.exec(stack[i]);
      if (m === null || m[1].startsWith(own)) continue;
      // fs calling itself (writeFile opens the file): counted once, by the outer call
      if (caller && (m[1] === 'node:fs' || m[1].startsWith('node:internal/fs'))) return null;
      caller = false;
      if (m[1] === 'node:fs' || m[1].startsWith('node:internal/fs')) continue;
      if (m[1].startsWith('node:internal/modules') || m[1].startsWith(recorderDeps)) return null;
      if (m[1].startsWith('node:') || !path.isAbsolute(m[1])) continue;
      return path.relative(root, m[1]).split(path.sep).join('/') + ':' + m[2];
    }
    return 'fs';
  };

  const objectOf = (p, site) => {
    if (site === null) return null;
    if (typeof p !== 'string' && !(p instanceof URL) && !Buffer.isBuffer(p)) return null;
    let abs;
    try {
      abs = path.resolve(p instanceof URL ? p.pathname : String(p));
    } catch {
      return null;
    }
    const id = 'fs:' + abs;
    if (!sites.has(abs)) {
      sites.set(abs, site);
      rec.emit('alloc', { obj: id, site: 'fs@' + site, type: 'Path' });
    }
    return id;
  };

  const read = (id, field, v) => rec.emit('read', { obj: id, field, val: Boolean(v) });
  const write = (id, field, v) => rec.emit('write', { obj: id, field, val: Boolean(v) });
  const quiet = (f) => {
    if (rec.off > 0) return;
    rec.off++;
    try {
      f();
    } finally {
      rec.off--;
    }
  };
  void heap;

  // What each call does to its path arguments: [argument index, effect].
  // Effects: 'observe' (exists, and dir from a Stats), 'create' (a file),
  // 'mkdir', 'remove'.
  const observeStats = (id, err, st) => {
    read(id, 'exists', !(err && err.code === 'ENOENT'));
    if (!err && st && typeof st.isDirectory === 'function') read(id, 'dir', st.isDirectory());
  };
  const effects = {
    stat: [[0, 'stats']],
    lstat: [[0, 'stats']],
    access: [[0, 'observe']],
    exists: [[0, 'exists']],
    readFile: [[0, 'observe']],
    readdir: [[0, 'observe']],
    opendir: [[0, 'observe']],
    realpath: [[0, 'observe']],
    open: [[0, 'open']],
    mkdir: [[0, 'mkdir']],
    rmdir: [[0, 'remove']],
    rm: [[0, 'remove']],
    unlink: [[0, 'remove']],
    writeFile: [[0, 'create']],
    appendFile: [[0, 'create']],
    copyFile: [[0, 'observe'], [1, 'create']],
    rename: [[0, 'remove'], [1, 'create']],
    symlink: [[1, 'create']],
    link: [[0, 'observe'], [1, 'create']],
  };
  const apply = (effect, id, err, res, args) => {
    switch (effect) {
      case 'stats':
        observeStats(id, err, res);
        break;
      case 'observe':
        read(id, 'exists', !(err && err.code === 'ENOENT'));
        break;
      case 'exists':
        read(id, 'exists', err === true || err === null && res === true);
        break;
      case 'open': {
        const flags = typeof args[1] === 'string' ? args[1] : 'r';
        if (/^r\+?$|^rs\+?$/.test(flags)) read(id, 'exists', !(err && err.code === 'ENOENT'));
        else if (!err) {
          write(id, 'exists', true);
          write(id, 'dir', false);
        }
        break;
      }
      case 'mkdir':
        if (!err) {
          read(id, 'exists', false); // made: it was not there
          write(id, 'exists', true);
          write(id, 'dir', true);
        } else if (err.code === 'EEXIST') read(id, 'exists', true);
        else if (err.code === 'ENOENT') read(id, 'exists', false);
        break;
      case 'remove':
        if (!err) {
          read(id, 'exists', true); // it was there to remove
          write(id, 'exists', false);
        } else if (err.code === 'ENOENT') read(id, 'exists', false);
        break;
      case 'create':
        if (!err) {
          write(id, 'exists', true);
          write(id, 'dir', false);
        }
        break;
    }
  };

  for (const [name, spec] of Object.entries(effects)) {
    const cb = fs[name];
    if (typeof cb === 'function') {
      fs[name] = function (...args) {
        const last = args[args.length - 1];
        if (typeof last !== 'function' || rec.off > 0) return cb.apply(this, args);
        const site = callSite();
        const ids = spec.map(([i]) => objectOf(args[i], site));
        args[args.length - 1] = function (err, res) {
          // Recorded inside the callback's handler call, where learn sees
          // them (heap.js runs deferred ops right after a handler's call
          // op), or after it if the callback is not instrumented.
          rec.deferred.push(() => quiet(() => spec.forEach(([, effect], k) => ids[k] && apply(effect, ids[k], err, res, args))));
          try {
            return last.apply(this, arguments);
          } finally {
            rec.runDeferred();
          }
        };
        return cb.apply(this, args);
      };
      Object.defineProperty(fs[name], 'name', { value: name });
    }
    const sync = fs[name + 'Sync'];
    if (typeof sync === 'function') {
      fs[name + 'Sync'] = function (...args) {
        if (rec.off > 0) return sync.apply(this, args);
        const site = callSite();
        const ids = spec.map(([i]) => objectOf(args[i], site));
        let res;
        try {
          res = sync.apply(this, args);
        } catch (err) {
          quiet(() => spec.forEach(([, effect], k) => ids[k] && apply(effect, ids[k], err, undefined, args)));
          throw err;
        }
        quiet(() => spec.forEach(([, effect], k) => ids[k] && apply(effect, ids[k], name === 'exists' ? res : null, res, args)));
        return res;
      };
      Object.defineProperty(fs[name + 'Sync'], 'name', { value: name + 'Sync' });
    }
    const prom = fs.promises[name];
    if (typeof prom === 'function') {
      fs.promises[name] = function (...args) {
        if (rec.off > 0) return prom.apply(this, args);
        const site = callSite();
        const ids = spec.map(([i]) => objectOf(args[i], site));
        return prom.apply(this, args).then(
          (res) => {
            quiet(() => spec.forEach(([, effect], k) => ids[k] && apply(effect, ids[k], null, res, args)));
            return res;
          },
          (err) => {
            quiet(() => spec.forEach(([, effect], k) => ids[k] && apply(effect, ids[k], err, undefined, args)));
            throw err;
          },
        );
      };
    }
  }

  // Loopback TCP. Per direction ("local>peer"): the writes not yet read,
  // oldest first, each with the count of bytes written through it (an end
  // is a write of its own that only the end of the stream reads), and the
  // bytes the peer has received.
  const net = require('net');
  const pending = new Map(); // "local>peer" -> {list: [{m, end, fin}], written, received}
  let writes = 0;
  const known = new WeakMap(); // handle -> its names, once connected (they do not change)
  const names = (handle) => {
    if (handle === null || typeof handle !== 'object' || typeof handle.getsockname !== 'function') return null;
    const seen = known.get(handle);
    if (seen !== undefined) return seen;
    const l = {};
    const p = {};
    try {
      if (handle.getsockname(l) !== 0 || handle.getpeername(p) !== 0) return null;
    } catch {
      return null;
    }
    const n = { local: l.address + ':' + l.port, peer: p.address + ':' + p.port };
    known.set(handle, n);
    return n;
  };
  // A direction whose writes nobody here reads (the peer is another
  // process on this machine) stops being tracked after maxUnread writes.
  const maxUnread = 4096;
  const dead = new Set();
  const loopbackAddr = /^(127\.|::1$|::ffff:127\.)/;
  const byteLength = (chunk, enc) => {
    if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof enc === 'string' ? enc : 'utf8');
    return chunk !== null && chunk !== undefined && typeof chunk.byteLength === 'number' ? chunk.byteLength : 0;
  };
  /** wrote records a write of bytes (or, fin, the end) on sock, if its peer is here. */
  const wrote = (sock, bytes, fin) => {
    if (!(sock instanceof net.Socket) || rec.off > 0) return;
    const n = names(sock._handle);
    if (n === null || !loopbackAddr.test(n.peer)) return;
    const key = n.local + '>' + n.peer;
    if (dead.has(key)) return;
    let dir = pending.get(key);
    if (dir === undefined) pending.set(key, (dir = { list: [], written: 0, received: 0 }));
    if (dir.list.length >= maxUnread) {
      dead.add(key);
      pending.delete(key);
      return;
    }
    const m = 'tcp:' + ++writes;
    dir.written += bytes;
    dir.list.push({ m, end: dir.written, fin });
    quiet(() => rec.signal(m));
  };
  /** incoming is the direction that handle h reads, if it has writes not yet read. */
  const incoming = (h) => {
    const n = h ? names(h) : null;
    if (n === null) return undefined;
    const dir = pending.get(n.peer + '>' + n.local);
    return dir === undefined || dir.list.length === 0 ? undefined : dir;
  };
  rec.loopback = {
    /**
     * readOf is the handles a callback of resource res (of async_hooks
     * type) waits on before it begins, if it reads what its peer wrote: a
     * read of a TCP handle brings at least the first byte not yet
     * received, of the oldest write not yet read (read() below follows
     * the rest). An HTTP server's parser reads its socket itself (the
     * handle is "consumed"): a request callback comes after the
     * connection's first write at least, and the one read the socket
     * still makes, the end, comes after every write.
     */
    readOf(type, res) {
      if (type === 'HTTPINCOMINGMESSAGE') {
        const dir = incoming(res.socket && res.socket._handle);
        return dir === undefined ? undefined : [dir.list[0].m];
      }
      if (type !== 'TCPWRAP') return undefined;
      const dir = incoming(res);
      if (dir === undefined) return undefined;
      return res._consumed ? dir.list.splice(0).map((w) => w.m) : [dir.list[0].m];
    },
  };
  // A socket's read pushes what it brought (null: the end): the writes it
  // completes are read, and the code after it waits on them.
  const push = stream.Readable.prototype.push;
  stream.Readable.prototype.push = function (chunk, enc) {
    if (this instanceof net.Socket && rec.off === 0) {
      const dir = incoming(this._handle);
      if (dir !== undefined) {
        let done = 0;
        if (chunk === null) {
          const i = dir.list.findIndex((w) => w.fin);
          done = i < 0 ? 0 : i + 1;
        } else {
          dir.received += byteLength(chunk, enc);
          while (done < dir.list.length && !dir.list[done].fin && dir.list[done].end <= dir.received) done++;
        }
        for (const w of dir.list.splice(0, done)) quiet(() => rec.emit('wait', { m: w.m }));
      }
    }
    return push.apply(this, arguments);
  };

  // Streams and sockets: destroyed.
  const streamRead = (s) => quiet(() => rec.emit('read', { obj: heap.idOf(s), field: 'destroyed', val: Boolean(s.destroyed) }));
  const streamWrite = (s) => quiet(() => rec.emit('write', { obj: heap.idOf(s), field: 'destroyed', val: true }));
  const seen = new Set();
  for (const proto of [stream.Readable.prototype, stream.Writable.prototype, stream.Duplex.prototype]) {
    for (const name of ['destroy', 'write', 'end']) {
      const orig = proto[name];
      if (typeof orig !== 'function' || !Object.prototype.hasOwnProperty.call(proto, name)) continue;
      const key = proto === stream.Readable.prototype ? 'R' + name : proto === stream.Writable.prototype ? 'W' + name : 'D' + name;
      if (seen.has(key)) continue;
      seen.add(key);
      proto[name] = function (...args) {
        if (name === 'destroy') {
          const was = this.destroyed;
          if (!was && !this.writableEnded) wrote(this, 0, true); // the FIN (or reset) the peer reads as the end
          const h = this._handle;
          const out = orig.apply(this, args);
          if (!was) {
            streamWrite(this);
            // The handle's close callback (the stream's 'close') comes
            // after the destroy: its delivery waits on the handle's signal.
            if (h && typeof h.getAsyncId === 'function') quiet(() => rec.signal('r' + h.getAsyncId()));
          }
          return out;
        }
        streamRead(this);
        const data = typeof args[0] === 'function' ? undefined : args[0];
        const bytes = byteLength(data, args[1]);
        if (name === 'write' || bytes > 0) wrote(this, bytes, false);
        if (name === 'end' && !this.writableEnded) wrote(this, 0, true);
        return orig.apply(this, args);
      };
      Object.defineProperty(proto[name], 'name', { value: name });
    }
  }
}

module.exports = { install };
