"""Compile the file named on the command line as `python3 -c "compile(open(f, 'rb').read(), f, 'exec')"`
would, and print one JSON line: {"file", "ok", "line", "error"}.

One file per process, compiled at module level: CPython's recursion limits depend on the caller's depth,
a RecursionError leaves the counters a little off for later compiles in the same process, and so do
forks (after about ten `os.fork()` calls a child compiles a few levels deeper).
"""
import json
import sys

path = sys.argv[1]
with open(path, "rb") as f:
    src = f.read()
try:
    compile(src, path, "exec")
    out = {"file": path, "ok": True, "line": None, "error": None}
except BaseException as e:
    line = getattr(e, "lineno", None)
    out = {"file": path, "ok": False, "line": line, "error": f"{type(e).__name__}: {e}"[:300]}
print(json.dumps(out))
