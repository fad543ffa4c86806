'use strict';
// The recorder's state: which task runs now (the main thread's own code,
// an event, or an anonymous event), the handler calls open in it, and the
// sends, begins and ends that the hooks in events.js report. Every op of
// the trace goes through Recorder.emit, which names its task.
//
// The model (docs/causality.md, "Node.js"): one looper thread "main" runs
// every callback as an event. The main module's synchronous code is the
// thread's own code. Callbacks whose order Node guarantees are sent to
// looper queues whose FIFO or Table 3.1 rule states that guarantee:
//
//   jobs        process.nextTick callbacks and microtasks (promise
//               reactions, await continuations, queueMicrotask): a tick
//               sent outside the microtask phase is (delayed, async, 0),
//               a microtask (delayed, sync, 1), a tick sent from a
//               microtask (delayed, sync, 2); and setImmediate callbacks
//               (delayed, sync, 5), so that the jobs sent before an
//               immediate run before it (Node drains them before the
//               check phase and between two immediates): Table 3.1's
//               delayed-sync row orders a job before an immediate sent
//               after it, immediates FIFO, and no job after an immediate;
//   timer:D     setTimeout/setInterval callbacks of duration D ms, FIFO;
//   io          every other callback (I/O, sockets, child processes, the
//               callbacks whose origin is unknown). Each is sent by a
//               worker thread of its own ("delivery"), forked from the
//               main thread, which first waits on the signal its origin
//               gave: so its origin happens before it, and nothing orders
//               two of them. (Not on jobs: Node drains the jobs only when
//               the outermost callback scope closes, and one native
//               callback can run two I/O callbacks in a row.)
//
// The drain: Node runs every pending tick and microtask before a timer or
// an immediate begins (before the timers and check phases, and between two
// timers or immediates). The queues above cannot say so across queues, so
// the trace states it with a handle per drain. A job belongs to the drain
// of its root: the first task up its chain of senders that is no job (an
// event, or the main thread's own code). Every job signals "d:ROOT" at its
// end, and a timer or an immediate sent by ROOT or by one of its jobs
// waits on "d:ROOT" first thing: every job of that drain ran before it,
// whatever the order of everything else. (Its begin is not ordered after
// them, only its code; events of one looper never interleave, so that is
// the same order for everything that reads or writes.)

const { TraceWriter } = require('./trace');

const mainThread = 'main';

// immediateDelay is the time of an immediate on queue jobs (see above).
const immediateDelay = 5;

class Recorder {
  constructor(path, header) {
    this.w = new TraceWriter(path, header);
    this.events = 0;
    this.workers = 0;
    this.mainDone = false; // the main module's synchronous code has finished
    this.cur = null; // the running event: {id, kind, calls, depth, signal}
    this.main = { id: mainThread, kind: 'main', calls: [], depth: 0 };
    this.exit = null; // the thread that runs the exit listeners, once the loop is done
    this.off = 0; // > 0: the recorder's own code runs; record nothing
    this.deferred = []; // ops to record at the next handler call of the running task
    this.jobRoot = new Map(); // pending job (tick, microtask) -> the root of its drain
    this.drainRoot = new Map(); // pending timer or immediate -> the root of the drain it waits for
    this.w.op('thread_begin', mainThread, { kind: 'looper', name: 'main' });
    // The fixed queues; the timer queues (timer:D), known only as timers
    // are set, are attached by `licorice record` when it writes the trace
    // (a looper attaches queues only outside its events).
    for (const q of ['jobs', 'io']) this.w.op('attach', mainThread, { q });
  }

  /**
   * note tells licorice, once per kind, of something the trace does not
   * hold (a child process, a worker thread): a line in the notes file.
   */
  note(kind) {
    if (this.notes === undefined) this.notes = new Set();
    if (this.notes.has(kind) || !this.notesFile) return;
    this.notes.add(kind);
    try {
      require('fs').appendFileSync(this.notesFile, kind + '\n');
    } catch {
      // notes are advice
    }
  }

  /** task is the running task: an event, the main thread, or a new anonymous event. */
  task() {
    if (this.cur !== null) return this.cur;
    if (this.exit !== null) return this.exit;
    if (!this.mainDone) return this.main;
    return this.anonymous();
  }

  /** emit writes op kind of the running task. */
  emit(kind, fields, src) {
    this.w.op(kind, this.task().id, fields, src);
  }

  newEvent() {
    return 'E' + ++this.events;
  }

  /**
   * send sends a new event to queue q from the running task and returns
   * its id. opts: {async, delay}.
   */
  send(q, opts) {
    const e = this.newEvent();
    const t = this.task();
    const delay = opts && opts.delay ? opts.delay : undefined;
    this.w.op('send', t.id, { q, e, delay, async: opts && opts.async ? true : undefined });
    const root = t.root !== undefined ? t.root : t.id;
    if (q === 'jobs' && delay !== immediateDelay) this.jobRoot.set(e, root);
    else this.drainRoot.set(e, root); // a timer or an immediate
    return e;
  }

  /** remove removes a pending event. */
  remove(e) {
    this.emit('remove', { e });
    this.jobRoot.delete(e);
    this.drainRoot.delete(e);
  }

  /** signal gives handle m from the running task. */
  signal(m) {
    this.emit('signal', { m });
  }

  /**
   * deliver sends a new event to the io queue from a worker thread of its
   * own, forked by the main thread, that first waits on origin (if any):
   * the origin happens before the event, and nothing else does.
   * also, if given, are more handles to wait on (loopback TCP: the
   * peer's writes whose data this read brings). It must be called between
   * events.
   */
  deliver(origin, also) {
    const e = this.newEvent();
    if (this.exit !== null) return e; // the loop is done: nothing is delivered (begin ignores it)
    const w = 'w' + ++this.workers;
    this.w.op('fork', mainThread, { child: w });
    this.w.op('thread_begin', w, {});
    if (origin) this.w.op('wait', w, { m: origin });
    if (also) for (const m of also) this.w.op('wait', w, { m });
    this.w.op('send', w, { q: 'io', e });
    this.w.op('thread_end', w, {});
    return e;
  }

  /** begin starts event e, of kind (tick, micro, macro, anon), on the main thread. */
  begin(e, kind) {
    if (this.exit !== null) return; // no event runs after the loop is done
    if (this.cur !== null) this.end();
    this.deferred = [];
    this.mainDone = true;
    this.w.op('begin', e, { thread: mainThread });
    this.cur = { id: e, kind, calls: [], depth: 0, signal: false, root: this.jobRoot.get(e) };
    this.jobRoot.delete(e);
    const drain = this.drainRoot.get(e);
    if (drain !== undefined) {
      this.drainRoot.delete(e);
      this.w.op('wait', e, { m: 'd:' + drain });
    }
  }

  /** end ends the running event, closing its open calls. */
  end() {
    const ev = this.cur;
    if (ev === null) return;
    this.closeCalls(ev);
    if (ev.signal) this.w.op('signal', ev.id, { m: 's:' + ev.id });
    if (ev.root !== undefined) this.w.op('signal', ev.id, { m: 'd:' + ev.root });
    this.w.op('end', ev.id);
    this.cur = null;
  }

  /** anonymous begins an event for code that runs outside every known callback. */
  anonymous() {
    const e = this.deliver(undefined);
    this.begin(e, 'anon');
    return this.cur;
  }

  closeCalls(t) {
    while (t.calls.length > 0) {
      const f = t.calls.pop();
      this.w.op('ret', t.id, { h: f.name });
    }
    t.depth = 0;
  }

  /** runDeferred records the deferred ops now, in the running task. */
  runDeferred() {
    if (this.deferred.length === 0) return;
    const fs = this.deferred;
    this.deferred = [];
    for (const f of fs) f();
  }

  /**
   * finish closes the event loop: the running event ends, the main thread
   * ends, and the process's exit listeners (the program's, which run
   * after ours) are the code of a thread "exit" that joins main — so
   * every event happens before them, as Node runs them once the loop is
   * done. The file is flushed, and what follows is written at once.
   */
  finish() {
    if (this.exit !== null) return;
    if (this.cur !== null) this.end();
    this.runDeferred();
    this.closeCalls(this.main);
    this.w.op('thread_end', mainThread);
    this.exit = { id: 'exit', kind: 'exit', calls: [], depth: 0 };
    this.w.op('thread_begin', 'exit', { name: 'exit listeners' });
    this.w.op('join', 'exit', { child: mainThread });
    this.w.flush();
    this.w.sync = true;
  }
}

module.exports = { Recorder, mainThread, immediateDelay };
