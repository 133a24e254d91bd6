# Cabrito's merge harness: runs ONE program (the reference or a candidate of a merge task, never
# both) in this fresh interpreter, which the grader started with resource limits and kills from
# outside. The program is executed once under a module name that is not "__main__" (so its
# `if __name__ == '__main__':` block does not run); then, for every argument vector, each class is
# instantiated and its compute(*vector) called, each under a per-call alarm.
#
# stdin: one JSON request {program, classes: [name, ...], vectors: [[int, ...], ...], call_timeout}
# fd 3:  the grading harness's protocol, one JSON line per event: {"k":"setup","trial":0,"error":{...}}
#        when the program raises while being executed; {"k":"call","trial":t,"i":i,"value":...} or
#        {..."error":{"type","message"}} for vector t and class i; {"k":"done"} at the end.
# Values are tagged: {"t":"int","v":"-12"} (any size), {"t":"float","hex":"0000000000000440"} (the hex of
# the float's 8 little-endian bytes), {"t":"bool","v":true}, {"t":"none"},
# {"t":"other","type":...,"repr":...}. What the program prints is swallowed.

import _operator as operator
import _signal as signal
import _struct
import os
import sys

try:
    import _json
except ImportError:
    _json = None

# json.loads and json.dumps run these C functions of `_json`; json's Python layer around them
# imports re and enum, which cost more CPU than a Merge Codebases run's own work (as in harness.py).
if _json is not None:

    class JsonContext:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__

    def not_json(v):
        raise TypeError("Object of type %s is not JSON serializable" % type(v).__name__)

    SCAN = _json.make_scanner(JsonContext)
    ENCODE = _json.make_encoder(None, not_json, _json.encode_basestring_ascii, None, ": ", ", ", False, False, False)

    def loads(text):
        start = len(text) - len(text.lstrip(" \t\n\r"))
        try:
            obj, end = SCAN(text, start)
        except StopIteration:
            raise ValueError("the request is not JSON") from None
        if end != len(text) and text[end:].strip():
            raise ValueError("the request has data after its JSON document")
        return obj

    def dumps(obj):
        return "".join(ENCODE(obj, 0))

else:
    import json

    loads = json.loads

    def dumps(obj):
        return json.dumps(obj, ensure_ascii=True, allow_nan=False)


OUT = os.fdopen(3, "w", encoding="utf-8")
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


PACK_F8 = _struct.Struct("<d").pack


class CallTimeout(BaseException):
    pass


class Sink:
    def write(self, s):
        return len(s) if isinstance(s, str) else 0

    def flush(self):
        pass


def emit(obj):
    """Buffered: the lines go out a vector at a time (`flush`), and at a timeout."""
    OUT.write(dumps(obj))
    OUT.write("\n")


def flush():
    OUT.flush()


def err(e):
    if isinstance(e, CallTimeout):
        return {"type": "Timeout", "message": "the call ran longer than the per-call time limit"}
    try:
        msg = str(e)
    except BaseException:
        msg = "<unprintable>"
    return {"type": type(e).__name__, "message": msg[:2000]}


def safe_repr(v):
    try:
        return repr(v)[:2000]
    except BaseException:
        return "<unrepresentable " + type(v).__name__ + ">"


def encode(v):
    if v is None:
        return {"t": "none"}
    if isinstance(v, bool):
        return {"t": "bool", "v": v}
    if isinstance(v, int):
        return {"t": "int", "v": str(int(v))}
    if isinstance(v, float):
        return {"t": "float", "hex": PACK_F8(float(v)).hex()}
    try:
        return {"t": "int", "v": str(operator.index(v))}
    except BaseException:
        return {"t": "other", "type": type(v).__name__, "repr": safe_repr(v)}


def on_alarm(signum, frame):
    # What is written so far goes out now: if the program swallows the timeout and is killed from
    # outside, the first call without a result is the one that was running.
    try:
        flush()
    except BaseException:
        pass
    raise CallTimeout("call timed out")


def main():
    req = loads(sys.stdin.read())
    sys.stdin = None
    real_stdout, real_stderr = sys.stdout, sys.stderr
    sink = Sink()
    timeout = float(req.get("call_timeout", 5.0))
    signal.signal(signal.SIGALRM, on_alarm)
    ns = {"__name__": "cabrito_merge"}
    sys.stdout = sys.stderr = sink
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout * 5)
        exec(compile(req["program"], "solution.py", "exec"), ns)
        signal.setitimer(signal.ITIMER_REAL, 0)
    except BaseException as e:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = real_stdout, real_stderr
        emit({"k": "setup", "trial": 0, "error": err(e)})
        emit({"k": "done", "stopped": None})
        flush()
        return
    stop = None
    for t, vector in enumerate(req["vectors"]):
        if stop is not None:
            break
        flush()
        for i, name in enumerate(req["classes"]):
            result = None
            error = None
            sys.stdout = sys.stderr = sink
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout)
                result = ns[name]().compute(*vector)
                signal.setitimer(signal.ITIMER_REAL, 0)
            except BaseException as e:
                signal.setitimer(signal.ITIMER_REAL, 0)
                error = e
            sys.stdout, sys.stderr = real_stdout, real_stderr
            if error is not None:
                emit({"k": "call", "trial": t, "i": i, "error": err(error)})
                if isinstance(error, CallTimeout):
                    stop = "timeout"
                    break
            else:
                try:
                    emit({"k": "call", "trial": t, "i": i, "value": encode(result)})
                except BaseException as e:
                    emit({"k": "call", "trial": t, "i": i, "error": err(e)})
    emit({"k": "done", "stopped": stop})
    flush()


main()
