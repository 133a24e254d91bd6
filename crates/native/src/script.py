# Cabrito's program runner (native/runner.rs `run_python`): runs ONE program as `__main__` in this
# interpreter, which the grader started (or forked from its pool) in a sandbox with resource
# limits and kills from outside. Unlike the grading harnesses it restricts nothing inside Python:
# the program is a whole script, its stdout, stderr and exit status are the answer.
#
# argv[1]: numpy's folder (the interpreter runs with -S; the folder goes on sys.path).
# stdin:   "<length of the program in bytes>\n", the program's UTF-8 source, then whatever the
#          program itself reads from its stdin.

import os
import sys

if len(sys.argv) > 1 and sys.argv[1]:
    sys.path.append(sys.argv[1])


def _read_program():
    header = b""
    while not header.endswith(b"\n"):
        b = os.read(0, 1)
        if not b or len(header) > 20:
            raise SystemExit("cabrito: the program's length did not come first on stdin")
        header += b
    n = int(header)
    parts = []
    while n > 0:
        b = os.read(0, min(n, 1 << 20))
        if not b:
            raise SystemExit("cabrito: the program ended early on stdin")
        parts.append(b)
        n -= len(b)
    return b"".join(parts)


def _run():
    code = compile(_read_program(), "main.py", "exec")
    sys.argv = ["main.py"]
    exec(code, {"__name__": "__main__", "__builtins__": __builtins__})


_run()
