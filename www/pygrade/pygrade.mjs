// The in-page grader: a module Web Worker that runs ONE harness run (a reference's or a candidate's)
// with Pyodide (CPython in WebAssembly, from package-lock.json) and is then thrown away, so nothing a
// candidate leaves behind reaches another run. Bundled by scripts/build_pygrade.mjs into
// dist/pygrade.js; the page (src/web/inpage.rs) starts it only when a user asks for hidden tests
// without a grading worker, plans the runs and computes the verdict itself (with the checker), and
// terminates this worker at its time limit.
//
// Submitted code is hostile. Before any of it runs, this worker is locked: Python's `js` and
// `pyodide_js` modules are gone and re-importing them (or pyodide's own modules, ctypes) is refused;
// the JS scope loses every way out (fetch, XMLHttpRequest, WebSocket, EventSource, importScripts,
// indexedDB, caches, BroadcastChannel, Worker, navigator, postMessage...) and every way to compile
// JS from text (eval, Function constructors, string timers). A JsProxy found by walking Python's heap
// then reaches nothing. The wasm memory is capped. If any of that cannot be done, it refuses to run.
//
// page -> {run, harness, body}   (run: the run's id; harness: 'grade' or 'merge'; body: its request)
// page <- {type: 'load', loaded, total}  while Python downloads; {type: 'ready'}; {type: 'failed', why}
// page <- {type: 'ran', run, output, error, seconds}   the harness's result lines, raw

import { loadPyodide } from '../../node_modules/pyodide/pyodide.mjs';
import createPyodideModule from '../../node_modules/pyodide/pyodide.asm.mjs';

// Private references, taken before anything else runs.
const post = self.postMessage.bind(self);
const realFetch = self.fetch.bind(self);
const addListener = self.addEventListener.bind(self);
const here = new URL('.', self.location.href).href;
// The bytes Python's files weigh (set by the build), for the progress bar.
const TOTAL = typeof PYODIDE_BYTES === 'number' ? PYODIDE_BYTES : 0;
// The most memory Python may have: past it an allocation fails (MemoryError), not the tab.
const MEMORY_CAP_BYTES = 768 * 1024 * 1024;

// Cap the wasm memory's growth (Emscripten grows it through this method and reports a refusal to
// malloc as out of memory).
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (pages) {
  if (this.buffer.byteLength + pages * 65536 > MEMORY_CAP_BYTES) {
    throw new RangeError('the graded code used more memory than the page allows');
  }
  return grow.call(this, pages);
};

// Count the bytes of every download while Python loads.
let loaded = 0;
let lastPost = 0;
function progress(force) {
  const now = Date.now();
  if (force || now - lastPost > 100) {
    lastPost = now;
    post({ type: 'load', loaded, total: Math.max(TOTAL, loaded) });
  }
}
function countingFetch(input, init) {
  return realFetch(input, init).then((r) => {
    if (!r.ok || !r.body) return r;
    const reader = r.body.getReader();
    const body = new ReadableStream({
      async pull(c) {
        const { done, value } = await reader.read();
        if (done) {
          c.close();
          return;
        }
        loaded += value.byteLength;
        progress(false);
        c.enqueue(value);
      },
    });
    return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers });
  });
}

// The harness's timer. Pyodide has no timer signal of its own, but CPython reads a "signal buffer"
// every few dozen bytecodes while it runs (Pyodide's interrupt buffer); this one is a getter on this
// worker's clock, which reports SIGALRM once the armed deadline has passed. So the harness's
// setitimer arms it, its SIGALRM handler runs, and every per-call time limit of the harness holds
// as it does natively, with no SharedArrayBuffer (so on any static host).
const SIGALRM = 14;
let alarmAt = 0;
const signalClock = Object.create(null);
Object.defineProperty(signalClock, 0, {
  get() {
    if (alarmAt !== 0 && performance.now() >= alarmAt) {
      alarmAt = 0;
      return SIGALRM;
    }
    return 0;
  },
  set() {},
});
// What the harness's setitimer calls: arm the alarm `seconds` from now (0: disarm).
function armAlarm(seconds) {
  const s = Number(seconds);
  alarmAt = s > 0 && Number.isFinite(s) ? performance.now() + s * 1000 : 0;
}

// The driver: run one harness (harness.py or merge_harness.py, as the native runner does: a module
// named __main__ reading its request on stdin) with its result channel a file on fd 3, and its
// timer the signal clock above.
const DRIVER = `
import builtins, functools, io, json, opcode, os, re, signal, sys, time, types

def _timer_module(arm):
    real = signal
    class Timer(types.ModuleType):
        SIGALRM = real.SIGALRM
        ITIMER_REAL = real.ITIMER_REAL
        def signal(self, signum, handler):
            return real.signal(signum, handler)
        def setitimer(self, which, seconds, interval=0.0):
            arm(float(seconds))
            return (0.0, 0.0)
    return Timer("signal")

def cabrito_run(source, body, arm):
    path = "/tmp/cabrito-results"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    if fd != 3:
        os.dup2(fd, 3)
        os.close(fd)
    # The harnesses import _signal (C) by name; both names get the page's timer.
    sys.modules["signal"] = sys.modules["_signal"] = _timer_module(arm)
    sys.argv = ["harness"]
    sys.stdin = io.TextIOWrapper(io.BytesIO(body.encode("utf-8")), encoding="utf-8")
    ns = {"__name__": "__main__"}
    error = None
    start = time.monotonic()
    try:
        exec(compile(source, "harness.py", "exec"), ns)
    except BaseException as e:
        try:
            error = "%s: %s" % (type(e).__name__, str(e)[:2000])
        except BaseException:
            error = "the run raised an exception"
    arm(0)
    try:
        out = ns.get("OUT")
        if out is not None:
            out.close()
        else:
            os.close(3)
    except BaseException:
        pass
    seconds = time.monotonic() - start
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return [text, error, seconds]
`;

// Python's side of the lock: no module that reaches JS (or C) can be imported again.
const LOCK_PY = `
import sys
_BLOCKED = frozenset(["js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "ctypes", "_ctypes",
                      "micropip", "pyodide_http", "_pyodide_core_docs"])

class _Refuse:
    """Refuses the modules that reach JavaScript or C: graded code has no use for them."""
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in _BLOCKED:
            raise ImportError("the module %r is not available to graded code" % name)
        return None

sys.meta_path.insert(0, _Refuse)
for _name in list(sys.modules):
    if _name.split(".")[0] in _BLOCKED:
        sys.modules[_name] = None
del _name, _Refuse
`;

// What graded code must not reach in this worker's JS scope: the network, storage, other workers
// and windows, the page (postMessage: this worker's own reference is `post`), and code from text.
const DENIED = [
  'fetch', 'XMLHttpRequest', 'XMLHttpRequestEventTarget', 'XMLHttpRequestUpload', 'WebSocket', 'WebSocketStream',
  'WebTransport', 'EventSource', 'importScripts', 'indexedDB', 'IDBFactory', 'caches', 'CacheStorage',
  'BroadcastChannel', 'Worker', 'SharedWorker', 'ServiceWorker', 'navigator', 'Navigator', 'WorkerNavigator',
  'StorageManager', 'FileSystemHandle', 'FileSystemDirectoryHandle', 'FileSystemFileHandle',
  'FileSystemSyncAccessHandle', 'postMessage', 'MessageChannel', 'MessagePort', 'eval',
  'RTCPeerConnection', 'RTCDataChannel', 'Notification', 'sendBeacon', 'open', 'requestFileSystem',
  'webkitRequestFileSystem', 'webkitRequestFileSystemSync', 'Lock', 'LockManager',
];

function throwing(what) {
  return function () {
    throw new TypeError(`${what} is not available to graded code`);
  };
}

// Take away what DENIED names (from the global and its prototypes), the Function constructors and
// string timers; then check that it is gone. Returns what is left, [] when locked.
function lockScope() {
  for (const name of DENIED) {
    for (let o = self; o; o = Object.getPrototypeOf(o)) {
      if (Object.prototype.hasOwnProperty.call(o, name)) {
        try {
          if (!delete o[name]) {
            Object.defineProperty(o, name, { value: undefined, writable: false, configurable: false });
          }
        } catch (e) {
          // Checked below.
        }
      }
    }
  }
  const ctors = [
    function () {},
    async function () {},
    function* () {},
    async function* () {},
  ].map((f) => Object.getPrototypeOf(f));
  for (const proto of ctors) {
    Object.defineProperty(proto, 'constructor', {
      value: throwing('compiling code from text'),
      writable: false,
      configurable: false,
    });
  }
  // `Function` itself compiles text: a stand-in that refuses, with the same prototype (so that
  // `instanceof Function` still holds).
  const noFunction = throwing('compiling code from text');
  Object.defineProperty(noFunction, 'prototype', { value: Function.prototype });
  Object.defineProperty(self, 'Function', { value: noFunction, writable: false, configurable: false });
  const timers = {};
  for (const name of ['setTimeout', 'setInterval']) {
    const real = self[name].bind(self);
    timers[name] = real;
    const safe = (fn, ...rest) => {
      if (typeof fn !== 'function') throw new TypeError('a timer runs functions only here');
      return real(fn, ...rest);
    };
    Object.defineProperty(self, name, { value: safe, writable: false, configurable: false });
  }
  const left = DENIED.filter((n) => {
    try {
      return self[n] !== undefined;
    } catch (e) {
      return false;
    }
  });
  for (const make of [() => (function () {}).constructor('return 1'), () => self.Function('return 1')]) {
    try {
      make();
      left.push('the Function constructor');
    } catch (e) {
      // Refused, as it should be.
    }
  }
  try {
    self.setTimeout('1', 0);
    left.push('string timers');
  } catch (e) {
    // Refused.
  }
  return left;
}

// The harnesses a run may name (the native grader's files, copied by the build).
const HARNESSES = { grade: 'harness.py', merge: 'merge_harness.py' };

function fetchText(name) {
  return realFetch(here + 'pyodide/' + name).then((r) => {
    if (!r.ok) throw new Error(`${name}: ${r.status} ${r.statusText}`);
    return r.text();
  });
}

async function start() {
  self.fetch = countingFetch;
  let py;
  const harnesses = Object.create(null);
  try {
    let texts;
    [py, ...texts] = await Promise.all([
      loadPyodide({
        indexURL: here + 'pyodide/',
        createPyodideModule,
        // Python's `js` module: nothing of this worker's scope.
        jsglobals: Object.create(null),
        stdout: () => {},
        stderr: () => {},
      }),
      ...Object.values(HARNESSES).map(fetchText),
    ]);
    Object.keys(HARNESSES).forEach((k, i) => {
      harnesses[k] = texts[i];
    });
  } finally {
    self.fetch = realFetch;
  }
  py.runPython(DRIVER);
  const run = py.globals.get('cabrito_run');
  py.globals.delete('cabrito_run');
  py.setInterruptBuffer(signalClock);
  const readResults = () => {
    try {
      return py.FS.readFile('/tmp/cabrito-results', { encoding: 'utf8' });
    } catch (e) {
      return '';
    }
  };
  for (const m of ['js', 'pyodide_js']) {
    try {
      py.unregisterJsModule(m);
    } catch (e) {
      // Not registered.
    }
  }
  py.runPython(LOCK_PY);
  progress(true);
  const left = lockScope();
  if (left.length) throw new Error(`this browser would let graded code reach ${left.join(', ')}`);
  return { run, harnesses, readResults };
}

let python = null;
let used = false;

function ran(id, output, error, seconds) {
  post({ type: 'ran', run: id, output, error, seconds });
}

addListener('message', (e) => {
  const d = e.data;
  if (!python || used || !d || typeof d.run !== 'string' || typeof d.body !== 'string') return;
  const { run, harnesses, readResults } = python;
  used = true;
  const harness = harnesses[typeof d.harness === 'string' ? d.harness : 'grade'];
  if (typeof harness !== 'string') return ran(d.run, '', `no harness is named ${String(d.harness).slice(0, 40)}`, 0);
  let r;
  const t0 = performance.now();
  try {
    r = run(harness, d.body, armAlarm);
  } catch (x) {
    // Python itself stopped (out of stack or memory): what it wrote so far, and why.
    armAlarm(0);
    const why = `Python stopped: ${x && x.message ? String(x.message).slice(0, 2000) : x}`;
    return ran(d.run, readResults(), why, (performance.now() - t0) / 1000);
  }
  try {
    const [output, error, seconds] = r.toJs();
    r.destroy();
    ran(d.run, String(output), error == null ? null : String(error), Number(seconds) || 0);
  } catch (x) {
    ran(d.run, readResults(), `the run's result could not be read: ${x && x.message ? x.message : x}`, 0);
  }
});

start().then(
  (p) => {
    python = p;
    post({ type: 'ready' });
  },
  (e) => post({ type: 'failed', why: `Python could not start in this page: ${e && e.message ? e.message : e}` }),
);
