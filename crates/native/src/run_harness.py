# The `run` tool's harness: runs an agent's Python against its workspace in this fresh, sandboxed
# interpreter (the grader started it with resource limits and kills it from outside).
#
# stdin: one JSON request {solution, library, strops, target: {kind: "code", code} | {kind: "file",
#        args}}; `library` is the source of the installed `mylibrary` (or null), `strops` the string
#        domain's helper module (or null).
# fd 3:  one JSON line {"value": repr} when an expression ran, then {"k": "done"}.
# The program's own output goes to stdout and stderr as it would in a shell; an uncaught exception
# prints a traceback of the workspace's frames (solution.py, <run>) and exits with status 1.

import json
import linecache
import sys
import traceback
import types

if len(sys.argv) > 1 and sys.argv[1]:
    sys.path.append(sys.argv[1])

VALUE_CHARS = 4000
HARNESS_FILE = "<string>"


def out3(obj):
    try:
        with open(3, "w", closefd=False) as f:
            f.write(json.dumps(obj, ensure_ascii=True) + "\n")
    except OSError:
        pass


def source_module(name, source, filename, main=False):
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    m = types.ModuleType("__main__" if main else name)
    m.__file__ = filename
    m.__builtins__ = __builtins__
    sys.modules[name] = m
    if main:
        sys.modules["__main__"] = m
    exec(compile(source, filename, "exec"), m.__dict__)
    return m


def report(e):
    """Print the traceback of the workspace's frames only (never the harness's) and exit 1."""
    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == HARNESS_FILE:
        tb = tb.tb_next
    sys.stdout.flush()
    text = "".join(traceback.format_exception(type(e), e, tb))
    sys.stderr.write(text)
    sys.stderr.flush()
    out3({"k": "done"})
    sys.exit(1)


def main():
    req = json.loads(sys.stdin.read())
    sys.stdin = open("/dev/null")
    sys.stdout.reconfigure(line_buffering=True)
    if req.get("library") is not None:
        source_module("mylibrary", req["library"], "mylibrary.py")
    if req.get("strops") is not None:
        source_module("strops", req["strops"], "strops.py")
    target = req["target"]
    solution = req["solution"]
    try:
        if target["kind"] == "file":
            sys.argv = ["solution.py"] + list(target.get("args", []))
            source_module("solution", solution, "solution.py", main=True)
        else:
            m = source_module("solution", solution, "solution.py")
            code = target["code"]
            linecache.cache["<run>"] = (len(code), None, code.splitlines(True), "<run>")
            ns = dict(m.__dict__)
            ns["__name__"] = "__main__"
            ns["__file__"] = "<run>"
            try:
                compiled = compile(code, "<run>", "eval")
            except SyntaxError:
                compiled = None
            if compiled is not None:
                value = eval(compiled, ns)
                if value is not None:
                    r = repr(value)
                    if len(r) > VALUE_CHARS:
                        r = r[:VALUE_CHARS] + "… (%d characters)" % len(r)
                    out3({"value": r})
            else:
                exec(compile(code, "<run>", "exec"), ns)
    except SystemExit as e:
        sys.stdout.flush()
        out3({"k": "done"})
        raise
    except BaseException as e:
        report(e)
    sys.stdout.flush()
    out3({"k": "done"})


main()
