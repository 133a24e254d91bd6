# Cabrito's grading harness. Runs ONE program (the reference or a candidate, never both) in this
# fresh interpreter, which the grader started with resource limits and kills from outside.
#
# stdin: one JSON request {program, defs, domain, stubs: {index: source}, strops,
#        functions: [[name, [parameter, ...]], ...], trials: [{stub, values: [value, ...],
#        calls: [[call index, function index, [value index per parameter]], ...]}], memoize,
#        restrict_builtins, call_timeout}
# fd 3:  one JSON line per event: {"k":"setup","trial":t,"error":{...}} when the stubs or the
#        program raise while being executed in trial t; {"k":"call","trial":t,"i":i,"value":...}
#        or {..."error":{"type","message"}} per call; {"k":"done"} at the end. Lines are written
#        a trial at a time (and before any call that may not return: see `flush`).
# Values are tagged: {"t":"float","v":"nan"}, {"t":"int","v":"12"}, {"t":"ndarray","shape":[3],
# "dtype":"float64","v":["0.5",...]}, ... What the program prints is swallowed.
#
# Run as a script (`python3 -I -S -c HARNESS SITE_PACKAGES`), or loaded by the pool's zygote
# (native/pool.py), whose forked children call `main()` once they are in their sandbox.

import builtins
import json
import os
import signal
import sys
import types

# Started with -S (no site: fast start); numpy's folder comes as argv[1] and is imported lazily,
# so math and string programs that never touch it do not pay for it.
if len(sys.argv) > 1 and sys.argv[1]:
    sys.path.append(sys.argv[1])


class LazyNumpy(types.ModuleType):
    def __getattr__(self, name):
        import numpy

        return getattr(numpy, name)


def loaded_numpy():
    return sys.modules.get("numpy")

OUT = None
PENDING = []
SAFE_NAMES = (
    "abs all any bin bool chr dict divmod enumerate filter float hex int isinstance issubclass len "
    "list map max min oct ord pow print range repr reversed round set slice sorted str sum tuple type "
    "zip True False None Exception ValueError TypeError IndexError KeyError ZeroDivisionError"
).split()
MAX_NODES = 200000


class CallTimeout(BaseException):
    pass


class Sink:
    """Where the program's prints go: nowhere."""

    def write(self, s):
        return len(s) if isinstance(s, str) else 0

    def flush(self):
        pass


def emit(obj):
    PENDING.append(json.dumps(obj, ensure_ascii=True, allow_nan=False))


def emit_value(t, i, v):
    """A call's result line; floats (the common case) are formatted without json.dumps: their
    repr is plain ASCII ('0.5', '-1e-05', 'nan', 'inf')."""
    if type(v) is float:
        PENDING.append('{"k":"call","trial":%d,"i":%d,"value":{"t":"float","v":"%r"}}' % (t, i, v))
    else:
        emit({"k": "call", "trial": t, "i": i, "value": encode(v, [MAX_NODES])})


def flush():
    if PENDING:
        PENDING.append("")
        OUT.write("\n".join(PENDING))
        PENDING.clear()
    OUT.flush()


def err(e):
    if isinstance(e, CallTimeout):
        return {"type": "Timeout", "message": "the call ran longer than the per-call time limit"}
    try:
        msg = str(e)
    except BaseException:
        msg = "<unprintable>"
    return {"type": type(e).__name__, "message": msg[:2000]}


def decode(v):
    t = v["t"]
    if t == "float":
        return float(v["v"])
    if t == "int":
        return int(v["v"])
    if t == "str":
        return v["v"]
    if t == "bool":
        return bool(v["v"])
    if t == "none":
        return None
    if t == "list":
        return [decode(x) for x in v["v"]]
    if t == "tuple":
        return tuple(decode(x) for x in v["v"])
    if t == "ndarray":
        import numpy

        return numpy.array([float(x) for x in v["v"]], dtype=numpy.float64).reshape(v["shape"])
    raise ValueError("cannot decode input tag " + t)


def encode(v, budget):
    budget[0] -= 1
    if budget[0] < 0:
        raise OverflowError("result too large to report")
    if v is None:
        return {"t": "none"}
    numpy = loaded_numpy()
    if isinstance(v, bool) or (numpy is not None and isinstance(v, numpy.bool_)):
        return {"t": "bool", "v": bool(v)}
    if isinstance(v, int) or (numpy is not None and isinstance(v, numpy.integer)):
        try:
            return {"t": "int", "v": str(int(v))}
        except ValueError:
            return {"t": "other", "type": "int", "repr": "<int too large>"}
    if isinstance(v, float) or (numpy is not None and isinstance(v, numpy.floating)):
        return {"t": "float", "v": repr(float(v))}
    if type(v) is str:
        try:
            v.encode("utf-8")
            return {"t": "str", "v": v}
        except UnicodeError:
            return {"t": "other", "type": "str", "repr": ascii(v)[:2000]}
    if type(v) is tuple:
        return {"t": "tuple", "v": [encode(x, budget) for x in v]}
    if type(v) is list:
        return {"t": "list", "v": [encode(x, budget) for x in v]}
    if numpy is not None and isinstance(v, numpy.ndarray):
        out = {"t": "ndarray", "shape": list(v.shape), "dtype": str(v.dtype)}
        if v.dtype.kind in "biuf":
            budget[0] -= v.size
            if budget[0] < 0:
                raise OverflowError("result too large to report")
            out["v"] = [repr(float(x)) for x in v.ravel().tolist()]
        else:
            out["repr"] = safe_repr(v)
        return out
    return {"t": "other", "type": type(v).__name__, "repr": safe_repr(v)}


def safe_repr(v):
    try:
        return repr(v)[:2000]
    except BaseException:
        return "<unrepresentable " + type(v).__name__ + ">"


def memo_key(v):
    numpy = loaded_numpy()
    if numpy is not None and isinstance(v, numpy.ndarray):
        return ("ndarray", v.shape, v.dtype.str, v.tobytes())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(memo_key(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple(sorted((memo_key(k), memo_key(x)) for k, x in v.items())))
    return (type(v).__name__, v)


SIMPLE_TYPES = frozenset([float, int, str, bool, type(None)])


def fast_key(v):
    t = type(v)
    if t in SIMPLE_TYPES:
        return (t, v)
    return memo_key(v)


MISSING = object()
ODD_FLAGS = 0x04 | 0x08  # CO_VARARGS, CO_VARKEYWORDS


def raw_key(args, kwargs):
    key = ("raw", tuple(map(fast_key, args)))
    if kwargs:
        key = (key, tuple((n, fast_key(v)) for n, v in kwargs.items()))
    return key


def memoize(fn):
    """A per-trial cache keyed on the arguments' types and values (ndarrays by shape, dtype and
    bytes). Unhashable arguments bypass it; exceptions are not cached.

    A call is looked up first by its arguments as written (cheap: the common case is a callee
    reached again the same way), then, on a miss, by the arguments bound to the function's
    parameters, so `f(v)`, `f(val=v)` and `f(v, m)` with `m` the default are one entry and a
    function that every caller reaches with the same `val` runs once per trial."""
    cache = {}
    code = fn.__code__
    n = code.co_argcount
    names = code.co_varnames[:n]
    posonly = code.co_posonlyargcount
    index = {name: j for j, name in enumerate(names) if j >= posonly}
    plain = not (code.co_flags & ODD_FLAGS) and not code.co_kwonlyargcount

    def bound_key(args, kwargs):
        if not plain or len(args) > n:
            return None
        vals = list(args) + [MISSING] * (n - len(args))
        for name, v in kwargs.items():
            j = index.get(name)
            if j is None or vals[j] is not MISSING:
                return None
            vals[j] = v
        defaults = fn.__defaults__ or ()
        first = n - len(defaults)
        for j in range(n):
            if vals[j] is MISSING:
                if j < first:
                    return None
                vals[j] = defaults[j - first]
        vals = tuple(vals)
        kinds = tuple(map(type, vals))
        # Plain values: the key of a positional call with every argument, so both meet in one entry.
        if SIMPLE_TYPES.issuperset(kinds):
            return (kinds, vals)
        return ("bound", tuple(map(fast_key, vals)))

    def wrapper(*args, **kwargs):
        # The common call: every parameter given positionally with plain values. Its key is the
        # bound key too, so one look-up serves both.
        if plain and not kwargs and len(args) == n:
            kinds = tuple(map(type, args))
            if SIMPLE_TYPES.issuperset(kinds):
                key = (kinds, args)
                hit = cache.get(key, cache)
                if hit is not cache:
                    return hit
                result = fn(*args)
                cache[key] = result
                return result
        try:
            if kwargs:
                vals = args + tuple(kwargs.values())
                kinds = tuple(map(type, vals))
                key = (kinds, vals, tuple(kwargs)) if SIMPLE_TYPES.issuperset(kinds) else raw_key(args, kwargs)
            else:
                kinds = tuple(map(type, args))
                key = (kinds, args) if SIMPLE_TYPES.issuperset(kinds) else raw_key(args, kwargs)
            hit = cache.get(key, cache)
            if hit is not cache:
                return hit
            bound = bound_key(args, kwargs)
            if bound is not None:
                hit = cache.get(bound, cache)
                if hit is not cache:
                    cache[key] = hit
                    return hit
        except Exception:
            return fn(*args, **kwargs)
        result = fn(*args, **kwargs)
        cache[key] = result
        if bound is not None:
            cache[bound] = result
        return result

    wrapper.__name__ = getattr(fn, "__name__", "wrapper")
    wrapper.__wrapped__ = fn
    return wrapper


def on_alarm(signum, frame):
    # The results so far go out now: if the program swallows the timeout and is killed from
    # outside, the first call without a result is the one that was running.
    try:
        flush()
    except BaseException:
        pass
    raise CallTimeout("call timed out")


def main():
    global OUT
    OUT = os.fdopen(3, "w", encoding="utf-8")
    req = json.loads(sys.stdin.buffer.read())
    sys.stdin = None
    real_stdout, real_stderr = sys.stdout, sys.stderr
    sink = Sink()
    code = compile(req["program"], "solution.py", "exec")
    strops_src = req.get("strops")
    stubs = {int(k): compile(src, "mylibrary.py", "exec") for k, src in req["stubs"].items()}
    strops_code = compile(strops_src, "strops.py", "exec") if strops_src else None
    if req.get("restrict_builtins", True):
        safe = {n: getattr(builtins, n) for n in SAFE_NAMES}
    else:
        safe = builtins.__dict__
    defs = req["defs"]
    functions = req["functions"]
    if req.get("domain") == "array":
        import numpy as np_module
    elif loaded_numpy() is not None:
        np_module = loaded_numpy()
    else:
        np_module = LazyNumpy("numpy")
    timeout = float(req.get("call_timeout", 2.0))
    signal.signal(signal.SIGALRM, on_alarm)
    stop = None
    for t, trial in enumerate(req["trials"]):
        if stop is not None:
            break
        flush()
        sys.stdout = sys.stderr = sink
        g = {"__builtins__": safe, "__name__": "solution"}
        try:
            ns = {"__name__": "mylibrary"}
            if strops_code is not None:
                mod = types.ModuleType("strops")
                exec(strops_code, mod.__dict__)
                ns.update({k: v for k, v in mod.__dict__.items() if not k.startswith("__")})
                ns["strops"] = mod
            exec(stubs[trial["stub"]], ns)
            g.update({k: v for k, v in ns.items() if not k.startswith("__")})
            g["np"] = g["numpy"] = np_module
        except BaseException as e:
            sys.stdout, sys.stderr = real_stdout, real_stderr
            emit({"k": "setup", "trial": t, "error": err(e)})
            continue
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout * 5)
            exec(code, g)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if req.get("memoize", True):
                for name in defs:
                    f = g.get(name)
                    if isinstance(f, types.FunctionType):
                        g[name] = memoize(f)
        except BaseException as e:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.stdout, sys.stderr = real_stdout, real_stderr
            emit({"k": "setup", "trial": t, "error": err(e)})
            continue
        values = trial["values"]
        # Immutable inputs are decoded once a trial; lists and arrays afresh for every call, so a
        # call that mutates its input cannot change another's.
        decoded = [decode(v) for v in values]
        mutable = frozenset(j for j, v in enumerate(values) if v["t"] in ("list", "ndarray"))
        for i, f, refs in trial["calls"]:
            name, params = functions[f]
            if mutable:
                kwargs = {p: decode(values[r]) if r in mutable else decoded[r] for p, r in zip(params, refs)}
            else:
                kwargs = dict(zip(params, [decoded[r] for r in refs]))
            fn = g.get(name)
            result = None
            error = None
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout)
                try:
                    result = fn(**kwargs)
                except CallTimeout:
                    raise
                except BaseException:
                    # The reference's protocol: retry positionally in parameter order.
                    result = fn(*[kwargs[p] for p in params])
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
                    emit_value(t, i, result)
                except BaseException as e:
                    emit({"k": "call", "trial": t, "i": i, "error": err(e)})
            sys.stdout = sys.stderr = sink
        sys.stdout, sys.stderr = real_stdout, real_stderr
    emit({"k": "done", "stopped": stop})
    flush()


if __name__ == "__main__":
    main()
