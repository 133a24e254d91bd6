"""Compile each file named on the command line as `python3 FILE` would, and print one JSON line per file:
{"file", "ok", "line", "error"}. The loop runs at module level, so `compile()` is called from the same
depth as in `python3 -c "compile(...)"` (CPython's recursion limits depend on the caller's depth)."""
import json
import sys

for path in sys.argv[1:]:
    with open(path, "rb") as f:
        src = f.read()
    try:
        compile(src, path, "exec")
        out = {"file": path, "ok": True, "line": None, "error": None}
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        line = getattr(e, "lineno", None)
        out = {"file": path, "ok": False, "line": line, "error": f"{type(e).__name__}: {e}"[:300]}
    print(json.dumps(out), flush=True)
