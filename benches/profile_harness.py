"""Where the harness's time goes, for one request (BENCHMARKS.md, "Where grading time goes").

    cargo test --release --test grade_bench dump_requests -- --ignored --nocapture
    python3 benches/profile_harness.py target/grade-requests/*.json

For each request file: its size, trials and calls; the harness run's wall time without a
profiler; the bytes it writes; and, under cProfile, the own time of each part: reading the request
(JSON), compiling, executing the stub blocks and strops, executing the program's module code, the
program's functions, the memo, decoding inputs, encoding and writing results. Interpreter start-up
and the numpy import are timed once, as separate processes.
"""

import cProfile
import json
import os
import pstats
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "..", "src", "native", "harness.py")


def site_packages():
    import numpy

    return os.path.dirname(os.path.dirname(numpy.__file__))


def startup():
    def t(code):
        best = []
        for _ in range(7):
            s = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-S", "-c", code, site_packages()], check=True)
            best.append(time.perf_counter() - s)
        best.sort()
        return best[len(best) // 2]

    bare = t("pass")
    np = t("import sys; sys.path.append(sys.argv[1]); import numpy")
    src = open(HARNESS).read()
    load = t("import sys; src = open(%r).read(); exec(compile(src, 'h', 'exec'), {'__name__': 'x'})" % HARNESS)
    print(f"python3 -I -S start-up: {bare * 1e3:.1f} ms; with numpy imported: {np * 1e3:.1f} ms; "
          f"harness loaded: {load * 1e3:.1f} ms (medians of 7, separate processes)")
    del src


def load_harness():
    mod = types.ModuleType("cabrito_harness")
    exec(compile(open(HARNESS).read(), HARNESS, "exec"), mod.__dict__)
    return mod


def run(path, profile):
    """Run the harness on the request at `path` in this process; fd 3 goes to a counting pipe."""
    mod = load_harness()
    if "numpy" not in sys.modules:
        sys.path.append(site_packages())
    data = open(path, "rb").read()
    import fcntl

    r0, w0 = os.pipe()
    # Keep both ends clear of fd 3, which the harness writes to.
    r, w = fcntl.fcntl(r0, fcntl.F_DUPFD, 10), fcntl.fcntl(w0, fcntl.F_DUPFD, 10)
    os.close(r0)
    os.close(w0)
    saved3 = os.dup(3) if _fd_open(3) else None
    os.dup2(w, 3)
    os.close(w)
    sink = open(os.devnull, "rb")
    saved_stdin = sys.stdin
    sys.stdin = types.SimpleNamespace(buffer=types.SimpleNamespace(read=lambda: data))
    total = [0]

    import threading

    def drain():
        while True:
            b = os.read(r, 1 << 16)
            if not b:
                break
            total[0] += len(b)

    th = threading.Thread(target=drain)
    th.start()
    prof = cProfile.Profile() if profile else None
    s = time.perf_counter()
    try:
        if prof:
            prof.runcall(mod.main)
        else:
            mod.main()
    finally:
        elapsed = time.perf_counter() - s
        mod.OUT.close()
        sys.stdin = saved_stdin
        if saved3 is not None:
            os.dup2(saved3, 3)
            os.close(saved3)
        th.join()
        os.close(r)
        sink.close()
    return elapsed, total[0], prof


def _fd_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def categorise(prof):
    st = pstats.Stats(prof)
    cats = {}
    for (filename, _line, func), (_cc, _nc, tt, _ct, _callers) in st.stats.items():
        base = os.path.basename(filename)
        if base == "mylibrary.py" or base == "strops.py":
            cat = "stub blocks and strops (executing and their functions)"
        elif base == "solution.py" and func == "<module>":
            cat = "program module code (defining functions)"
        elif base == "solution.py":
            cat = "program functions"
        elif base == "harness.py" and func in ("wrapper", "key_of", "fast_key", "memo_key", "raw_key", "memoize"):
            cat = "memo (keys, lookups, wrapping)"
        elif base == "harness.py" and func == "decode":
            cat = "decoding inputs"
        elif base == "harness.py" and func in ("encode", "emit", "emit_value", "flush", "safe_repr", "err"):
            cat = "encoding and writing results"
        elif base == "harness.py" and func == "main":
            cat = "harness loop"
        elif "json" in filename or func in ("<method 'write' of '_io.TextIOWrapper' objects>",):
            cat = "JSON and writes (library)"
        elif func.startswith("<built-in method builtins.compile") or func == "<built-in method builtins.compile>":
            cat = "compiling program and stubs"
        elif func.startswith("<built-in method builtins.exec"):
            cat = "exec (frames)"
        elif func.startswith("<built-in method math.") or func.startswith("<built-in method _operator") or "operator" in func:
            cat = "program functions"
        elif "numpy" in filename or func.startswith("<built-in method numpy") or "ufunc" in func:
            cat = "numpy"
        else:
            cat = "other builtins (" + func[:40] + ")" if tt > 0.01 else "other"
        cats[cat] = cats.get(cat, 0.0) + tt
    return sorted(cats.items(), key=lambda kv: -kv[1])


def main(paths):
    startup()
    import numpy  # noqa: F401  (as in the pool's children: already imported)

    for path in paths:
        req = json.load(open(path))
        calls = sum(len(t["calls"]) for t in req["trials"])
        size = os.path.getsize(path)
        elapsed, written, _ = run(path, False)
        _, _, prof = run(path, True)
        total = sum(tt for _, tt in categorise(prof))
        print(f"\n{os.path.basename(path)}: request {size:,} B, {len(req['trials'])} trials, {calls:,} calls, "
              f"{len(req['stubs'])} stub blocks; harness {elapsed * 1e3:.1f} ms; results {written:,} B")
        for cat, tt in categorise(prof):
            if tt >= 0.0005:
                print(f"    {cat:<58} {tt * 1e3:8.1f} ms  {100 * tt / total:5.1f} %")


if __name__ == "__main__":
    main(sys.argv[1:])
