// The in-page grader: a module Web Worker that runs a task's hidden tests with Pyodide (CPython in
// WebAssembly, from package-lock.json) when no grading worker is connected. Bundled by
// scripts/build_pygrade.mjs into dist/pygrade.js; the app starts it only when a user asks for hidden
// tests without a worker (src/web/inpage.rs), and terminates it at its time limit.
//
// The plan and the verdict come from the static checker (a nested checker worker running
// cabrito_check::protocol::inpage); the harness is the native grader's own harness.py, run unchanged:
// its result channel (fd 3) is a file here, its stdin the request, and its per-call timer a no-op
// (Pyodide has no timer signal: the page's limit ends this worker instead).
//
// page -> {id, job}                 (job: a BrowserJob as JSON text)
// page <- {type: 'load', loaded, total} while Python downloads; {type: 'ready'}; {type: 'failed', why}
// page <- {type: 'server', json}    the worker protocol's progress, result and error messages

import { loadPyodide } from '../../node_modules/pyodide/pyodide.mjs';
import createPyodideModule from '../../node_modules/pyodide/pyodide.asm.mjs';

const post = self.postMessage.bind(self);
const here = new URL('.', self.location.href).href;
// The bytes Python's files weigh (set by the build), for the progress bar.
const TOTAL = typeof PYODIDE_BYTES === 'number' ? PYODIDE_BYTES : 0;

// Count the bytes of every download while Python loads.
const realFetch = self.fetch.bind(self);
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

// The driver: run harness.py's main() on one request, its result channel a file on fd 3.
const DRIVER = `
import io, os, sys, time, types

class _NoTimer(types.ModuleType):
    SIGALRM = 14
    ITIMER_REAL = 0
    def signal(self, *a): return None
    def setitimer(self, *a): return (0.0, 0.0)

def cabrito_run(source, body):
    path = "/tmp/cabrito-results"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    if fd != 3:
        os.dup2(fd, 3)
        os.close(fd)
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.argv, sys.modules.get("signal"))
    sys.modules["signal"] = _NoTimer("signal")
    sys.argv = ["harness"]
    sys.stdin = io.TextIOWrapper(io.BytesIO(body.encode("utf-8")), encoding="utf-8")
    ns = {"__name__": "cabrito_harness"}
    error = None
    start = time.monotonic()
    try:
        exec(compile(source, "harness.py", "exec"), ns)
        ns["main"]()
    except BaseException as e:
        try:
            error = "%s: %s" % (type(e).__name__, str(e)[:2000])
        except BaseException:
            error = type(e).__name__
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved[:4]
        if saved[4] is not None:
            sys.modules["signal"] = saved[4]
        out = ns.get("OUT")
        try:
            if out is not None:
                out.close()
            else:
                os.close(3)
        except BaseException:
            pass
    seconds = time.monotonic() - start
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    os.remove(path)
    return [text, error, seconds]
`;

async function startPython() {
  self.fetch = countingFetch;
  try {
    const [py, harness] = await Promise.all([
      loadPyodide({ indexURL: here + 'pyodide/', createPyodideModule, stdout: () => {}, stderr: () => {} }),
      realFetch(here + 'pyodide/harness.py').then((r) => {
        if (!r.ok) throw new Error(`harness.py: ${r.status} ${r.statusText}`);
        return r.text();
      }),
    ]);
    py.runPython(DRIVER);
    progress(true);
    return { py, harness, run: py.globals.get('cabrito_run') };
  } finally {
    self.fetch = realFetch;
  }
}

// The static checker, nested here: it plans the runs and reads them into the result.
function startChecker() {
  return new Promise((ok, no) => {
    const w = new Worker(here + 'checker_loader.js');
    const waiting = new Map();
    w.onmessage = (e) => {
      const d = e.data;
      if (typeof d === 'string') {
        let r;
        try {
          r = JSON.parse(d);
        } catch (x) {
          return;
        }
        const cb = waiting.get(r.id);
        if (cb) {
          waiting.delete(r.id);
          cb(r);
        } else if (waiting.size === 1) {
          // A reply without the job's id (the step could not be read): to the one waiting.
          const [[k, only]] = waiting;
          waiting.delete(k);
          only(r);
        }
      } else if (d && d.type === 'ready') {
        ok((step, id) => new Promise((done) => {
          waiting.set(id, done);
          w.postMessage(JSON.stringify(step));
        }));
      } else if (d && d.type === 'failed') {
        no(new Error(d.why));
      }
    };
    w.onerror = (e) => no(new Error(e.message || 'the checker did not load'));
  });
}

const python = startPython();
const checker = startChecker();
python.then(
  () => post({ type: 'ready' }),
  (e) => post({ type: 'failed', why: `Python could not start in this page: ${e.message || e}` }),
);
python.catch(() => {});
checker.catch(() => {});

function server(json) {
  post({ type: 'server', json });
}

function internal(id, message) {
  server(JSON.stringify({ v: 1, id, type: 'error', code: 'internal', message }));
}

async function grade(id, jobText) {
  let job;
  try {
    job = JSON.parse(jobText);
  } catch (e) {
    return internal(id, `the job cannot be read: ${e.message}`);
  }
  server(JSON.stringify({ v: 1, id, type: 'accepted', spec: job.spec || '', trials: job.trials || 50 }));
  let ask;
  try {
    ask = await checker;
  } catch (e) {
    return internal(id, `the static checker could not start: ${e.message}`);
  }
  const planned = await ask({ step: 'plan', job }, id);
  for (const m of planned.messages || []) server(m);
  if (planned.step !== 'runs') return server(planned.last);
  let p;
  try {
    p = await python;
  } catch (e) {
    return internal(id, `Python could not start in this page: ${e.message || e}`);
  }
  const runs = [];
  const stages = ['reference', 'candidate'];
  for (let i = 0; i < planned.bodies.length; i++) {
    const r = p.run(p.harness, planned.bodies[i]);
    const [output, error, seconds] = r.toJs();
    r.destroy();
    runs.push({ output, error: error === undefined ? null : error, seconds });
    server(JSON.stringify({ v: 1, id, type: 'progress', done: 2 + i, total: 3, stage: stages[i] || 'run' }));
  }
  const verdict = await ask({ step: 'verdict', job, runs }, id);
  for (const m of verdict.messages || []) server(m);
  server(verdict.last);
}

self.onmessage = (e) => {
  const d = e.data || {};
  if (typeof d.id !== 'string' || typeof d.job !== 'string') return;
  grade(d.id, d.job).catch((x) => internal(d.id, `the in-page grader failed: ${x && x.message ? x.message : x}`));
};
