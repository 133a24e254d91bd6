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
# Values are tagged: {"t":"int","v":"12"}, {"t":"str","v":"a"}, ... A result float is the hex of its
# 8 little-endian bytes, {"t":"float","hex":"000000000000e03f"} (exact, and cheaper than a repr); a
# float64 array likewise, {"t":"ndarray","shape":[2],"dtype":"float64","hex":"..."}; another numeric
# array has "v", its elements' float reprs. The request's inputs give floats as repr text
# ({"t":"float","v":"0.5"}). What the program prints is swallowed.
#
# Run as a script (`python3 -I -S -c HARNESS SITE_PACKAGES`), or loaded by the pool's zygote
# (native/pool.py), whose forked children call `main()` once they are in their sandbox.

import _signal as signal
import _struct
import builtins
import opcode
import os
import sys
import time
import types

try:
    import _json
except ImportError:
    _json = None
try:
    from _functools import _lru_cache_wrapper as LRU
except ImportError:
    LRU = None

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


# json.loads and json.dumps run these C functions of `_json`; json's Python layer around them
# imports re and enum, which cost more CPU than the rest of a small command's start (BENCHMARKS.md).
class JsonContext:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__


def not_json(v):
    raise TypeError("Object of type %s is not JSON serializable" % type(v).__name__)


if _json is not None:
    SCAN = _json.make_scanner(JsonContext)
    # As json.dumps(obj, ensure_ascii=True, allow_nan=False) encodes, without its check for cycles
    # (what is encoded here is built fresh by `encode`).
    ENCODE = _json.make_encoder(None, not_json, _json.encode_basestring_ascii, None, ": ", ", ", False, False, False)
    ascii_json = _json.encode_basestring_ascii

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

    ascii_json = json.encoder.encode_basestring_ascii
    loads = json.loads

    def dumps(obj):
        return json.dumps(obj, ensure_ascii=True, allow_nan=False)


def emit(obj):
    PENDING.append(dumps(obj))

SMALL_INT = 1 << 62
# A float's 8 bytes, little-endian, as `float64` arrays are written (`.hex()` of them is the field).
PACK_F8 = _struct.Struct("<d").pack


def emit_value(t, i, v):
    """A call's result line. The values programs return (floats, ints, ASCII strings, float64
    arrays and tuples of them) are formatted straight to text (`plain_value`); the rest through
    `encode` and json.dumps."""
    tp = type(v)
    if tp is float:
        PENDING.append('{"k":"call","trial":%d,"i":%d,"value":{"t":"float","hex":"%s"}}' % (t, i, PACK_F8(v).hex()))
        return
    if tp is str and v.isascii():
        PENDING.append('{"k":"call","trial":%d,"i":%d,"value":{"t":"str","v":%s}}' % (t, i, ascii_json(v)))
        return
    nd = NDARRAY[0] or ndarray_type()
    if tp is nd and v.dtype is F8[0] and v.size < MAX_NODES:
        PENDING.append(
            '{"k":"call","trial":%d,"i":%d,"value":{"t":"ndarray","shape":[%s],"dtype":"float64","hex":"%s"}}'
            % (t, i, shape_text(v.shape), v.tobytes().hex())
        )
        return
    text = plain_value(v, [MAX_NODES], 0)
    if text is not None:
        PENDING.append('{"k":"call","trial":%d,"i":%d,"value":%s}' % (t, i, text))
        return
    emit({"k": "call", "trial": t, "i": i, "value": encode(v, [MAX_NODES])})


SHAPES = {}


def shape_text(shape):
    text = SHAPES.get(shape)
    if text is None:
        text = SHAPES[shape] = ",".join(map(str, shape))
    return text


def ndarray_type():
    """numpy.ndarray once numpy is loaded (NDARRAY, F8: its type and the little-endian float64
    dtype), else None."""
    numpy = loaded_numpy()
    if numpy is None:
        return None
    F8[0] = numpy.dtype("<f8")
    NDARRAY[0] = numpy.ndarray
    return NDARRAY[0]


def plain_value(v, budget, depth):
    """`encode(v)` as JSON text for plain values, or None (then `encode` decides)."""
    budget[0] -= 1
    t = type(v)
    if t is float:
        return '{"t":"float","hex":"%s"}' % PACK_F8(v).hex()
    if t is int and -SMALL_INT < v < SMALL_INT:
        return '{"t":"int","v":"%d"}' % v
    if t is str and v.isascii():
        return '{"t":"str","v":%s}' % ascii_json(v)
    if t is tuple:
        if depth > 8:
            return None
        parts = []
        for x in v:
            text = plain_value(x, budget, depth + 1)
            if text is None:
                return None
            parts.append(text)
        return '{"t":"tuple","v":[%s]}' % ",".join(parts)
    nd = NDARRAY[0] or ndarray_type()
    if t is nd and v.dtype is F8[0]:
        budget[0] -= v.size
        if budget[0] < 0:
            return None
        # The bytes in C order as hex: exact, and far cheaper than a repr per element.
        return '{"t":"ndarray","shape":[%s],"dtype":"float64","hex":"%s"}' % (shape_text(v.shape), v.tobytes().hex())
    return None


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
        return {"t": "float", "hex": PACK_F8(float(v)).hex()}
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


NDARRAY = [None]
F8 = [None]


def fast_key(v):
    t = type(v)
    if t in SIMPLE_TYPES:
        return (t, v)
    nd = NDARRAY[0]
    if nd is None and t.__name__ == "ndarray":
        nd = ndarray_type()
    if t is nd:
        return ("ndarray", v.shape, v.dtype, v.tobytes())
    return memo_key(v)


def values_key(vals):
    """The memo key of a call's bound arguments: plain values as they are, with their types (1
    and 1.0 differ; a positional call with every argument meets its keyword form in one entry),
    anything else by `fast_key`, an ndarray inline."""
    kinds = tuple(map(type, vals))
    if SIMPLE_TYPES.issuperset(kinds):
        return (kinds, vals)
    nd = NDARRAY[0]
    # `kinds` types every position, so a plain value stands as itself.
    return (
        "bound",
        kinds,
        tuple(
            [
                (v.tobytes(), v.shape, v.dtype) if t is nd else (v if t in SIMPLE_TYPES else fast_key(v))
                for v, t in zip(vals, kinds)
            ]
        ),
    )


MISSING = object()
ODD_FLAGS = 0x04 | 0x08  # CO_VARARGS, CO_VARKEYWORDS


def raw_key(args, kwargs):
    key = ("raw", tuple(map(fast_key, args)))
    if kwargs:
        key = (key, tuple((n, fast_key(v)) for n, v in kwargs.items()))
    return key


# functools.lru_cache's C wrapper without its update_wrapper (most of the cost of wrapping every
# function of every trial) and without importing functools; the public decorator where CPython
# lacks the C constructor.
if LRU is None:
    import functools

    LRU = lambda fn, maxsize, typed, info: functools.lru_cache(maxsize=maxsize, typed=typed)(fn)  # noqa: E731


def CACHE_INFO(hits, misses, maxsize, currsize):
    return (hits, misses, maxsize, currsize)


def memoize(fn, by_value_too=True):
    """A per-trial cache of `fn`'s results keyed on its arguments and their types; exceptions are
    not cached. Hashable arguments (the common case: floats, strings) are looked up by
    functools.lru_cache, in C; a call with an unhashable argument (an ndarray, a list) goes to
    `memoize_by_value` when `by_value_too` (keying by value costs more than most array functions:
    it is kept for those the program calls from more than one place), else to `fn` itself. The C
    wrapper raises TypeError before `fn` runs when an argument cannot be
    hashed: such an error has no frame of `fn` in its traceback, one raised by `fn` has."""
    cached = LRU(fn, None, True, CACHE_INFO)
    by_value = []

    def wrapper(*args, **kwargs):
        # Once a call had an unhashable argument (an array function), the next go straight by value.
        if by_value:
            return by_value[0](*args, **kwargs)
        try:
            return cached(*args, **kwargs)
        except TypeError as e:
            if e.__traceback__.tb_next is not None:
                raise
        by_value.append(memoize_by_value(fn) if by_value_too else fn)
        return by_value[0](*args, **kwargs)

    wrapper.__name__ = getattr(fn, "__name__", "wrapper")
    wrapper.__wrapped__ = fn
    return wrapper


def memo_slot():
    """`memoize` kept across trials: `(wrapper, point)`, where `point(fn, by_value_too)` aims the
    wrapper at this trial's `fn`, empties its cache and returns what to bind the name to. The
    program defines the same functions every trial, so re-aiming one wrapper per function costs
    far less than wrapping anew; a function that took an unhashable argument in the last trial
    (an array function) starts the next one in the memo by value, or bare when that memo is not
    wanted for it."""
    # function, by-value memo once needed, by_value_too, unhashable seen, the last by-value memo
    current = [None, None, True, False, None]

    def call(*args, **kwargs):
        return current[0](*args, **kwargs)

    cached = LRU(call, None, True, CACHE_INFO)

    def wrapper(*args, **kwargs):
        if current[1] is not None:
            return current[1](*args, **kwargs)
        try:
            return cached(*args, **kwargs)
        except TypeError as e:
            if e.__traceback__.tb_next is not None:
                raise
        fn = current[0]
        current[1] = by_value(fn) if current[2] else fn
        current[3] = True
        return current[1](*args, **kwargs)

    def by_value(fn):
        """The by-value memo of the last trial re-aimed at `fn` (same code), or a new one."""
        memo = current[4]
        if memo is None or not memo.aim(fn):
            memo = current[4] = memoize_by_value(fn)
        return memo

    def point(fn, by_value_too):
        current[0] = fn
        current[2] = by_value_too
        cached.cache_clear()
        wrapper.__wrapped__ = fn
        if current[3]:
            if not by_value_too:
                current[1] = None
                return fn
            # Bound directly: `wrapper` would only pass every call on to it.
            current[1] = by_value(fn)
            return current[1]
        else:
            current[1] = None
        return wrapper

    wrapper.__name__ = "wrapper"
    return wrapper, point


SLOTS = {}


def memoize_by_value(fn):
    """The memo for calls with an unhashable argument (see `memoize`): keyed on the arguments'
    types and values, ndarrays by shape, dtype and bytes; other unhashable arguments bypass it.

    A call is keyed by the arguments bound to the function's parameters, so `f(v)`, `f(val=v)`
    and `f(v, m)` with `m` the default are one entry and a function that every caller reaches
    with the same `val` runs once per trial; a call that does not bind plainly (varargs, an
    unknown keyword) is keyed as written."""
    cache = {}
    cur = [fn]
    code = fn.__code__
    n = code.co_argcount
    names = code.co_varnames[:n]
    posonly = code.co_posonlyargcount
    index = {name: j for j, name in enumerate(names) if j >= posonly}
    plain = not (code.co_flags & ODD_FLAGS) and not code.co_kwonlyargcount

    # The parameters after `k` positional arguments, where they may be named.
    tails = [names[k:] if k >= posonly else None for k in range(n + 1)]

    def bound_key(args, kwargs):
        """The key of a call by its bound arguments, or None when it does not bind plainly."""
        k = len(args)
        if not plain or k > n:
            return None
        if k == n:
            return None if kwargs else values_key(args)
        if not kwargs:
            # The rest from the defaults (`f(val)` with `mult` defaulted), as the loop below would.
            defaults = cur[0].__defaults__ or ()
            first = n - len(defaults)
            return values_key(args + defaults[k - first :]) if k >= first else None
        if len(kwargs) == n - k and tails[k] is not None:
            # Every parameter given (the common call, `f(val, mult=mult)`); a keyword that is
            # not one of the rest leaves one of them unbound or binds one twice.
            try:
                return values_key(args + tuple(map(kwargs.__getitem__, tails[k])))
            except KeyError:
                return None
        vals = list(args)
        vals += [MISSING] * (n - k)
        for name, v in kwargs.items():
            j = index.get(name)
            if j is None or vals[j] is not MISSING:
                return None
            vals[j] = v
        defaults = cur[0].__defaults__ or ()
        first = n - len(defaults)
        # Only the parameters after the positional arguments can be missing.
        for j in range(k, n):
            if vals[j] is MISSING:
                if j < first:
                    return None
                vals[j] = defaults[j - first]
        return values_key(tuple(vals))

    def wrapper(*args, **kwargs):
        try:
            key = bound_key(args, kwargs)
            if key is None:
                key = raw_key(args, kwargs)
            hit = cache.get(key, cache)
            if hit is not cache:
                return hit
        except Exception:
            return cur[0](*args, **kwargs)
        result = cur[0](*args, **kwargs)
        cache[key] = result
        return result

    def aim(f):
        """Serve `f` (this trial's definition of the same code) from an empty memo: whether it could."""
        if getattr(f, "__code__", None) is not code:
            return False
        cur[0] = f
        cache.clear()
        wrapper.__wrapped__ = f
        return True

    wrapper.__name__ = getattr(fn, "__name__", "wrapper")
    wrapper.__wrapped__ = fn
    wrapper.aim = aim
    return wrapper


# Builtins whose result depends on their arguments alone.
PURE_BUILTINS = frozenset(
    "abs all any bin bool chr dict divmod enumerate filter float hex int isinstance issubclass len "
    "list map max min oct ord pow range repr reversed round set slice sorted str sum tuple type zip "
    "Exception ValueError TypeError IndexError KeyError ZeroDivisionError ArithmeticError OverflowError".split()
)
WRITES_GLOBALS = frozenset(opcode.opmap[n] for n in ("STORE_GLOBAL", "DELETE_GLOBAL") if n in opcode.opmap)
IMMUTABLE = frozenset([int, float, str, bool, type(None), complex, bytes])
CODE_NAMES = {}


def code_names(code):
    """(every name a code object and the code nested in it use, whether none writes a global)."""
    info = CODE_NAMES.get(code)
    if info is None:
        names = set(code.co_names)
        ok = not code.co_freevars
        raw = code.co_code
        for j in range(0, len(raw), 2):
            if raw[j] in WRITES_GLOBALS:
                ok = False
                break
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                more, fine = code_names(c)
                names |= more
                ok = ok and fine
        info = CODE_NAMES[code] = (frozenset(names), ok)
    return info


LOAD_GLOBAL = opcode.opmap["LOAD_GLOBAL"]
EXTENDED_ARG = opcode.opmap["EXTENDED_ARG"]
# In 3.11 and later LOAD_GLOBAL's argument is the name index shifted left by one.
GLOBAL_SHIFT = 1 if sys.version_info >= (3, 11) else 0
LOOPS = frozenset(opcode.opmap[n] for n in ("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "FOR_ITER") if n in opcode.opmap)
GLOBAL_LOADS = {}


def global_loads(code, nested=False):
    """{name: times it is loaded} over a code object and the code nested in it; a name loaded in a
    loop or in nested code (a comprehension, a lambda) counts twice (it may run many times)."""
    info = GLOBAL_LOADS.get((code, nested))
    if info is None:
        raw = code.co_code
        names = code.co_names
        loops = nested
        loads = []
        ext = 0
        for j in range(0, len(raw), 2):
            op = raw[j]
            if op == EXTENDED_ARG:
                ext = (ext | raw[j + 1]) << 8
                continue
            arg = ext | raw[j + 1]
            ext = 0
            if op == LOAD_GLOBAL:
                k = arg >> GLOBAL_SHIFT
                if k < len(names):
                    loads.append(names[k])
            elif op in LOOPS:
                loops = True
        info = {}
        for n in loads:
            info[n] = info.get(n, 0) + (2 if loops else 1)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                for n, k in global_loads(c, True).items():
                    info[n] = info.get(n, 0) + k
        GLOBAL_LOADS[(code, nested)] = info
    return info


def shared_callees(g, defs):
    """The functions the program may call more than once in a trial (from two places, or from a
    loop): where a memo by value bounds the work of a DAG's shared nodes. One called from one
    place runs once per run of its caller without it."""
    counts = {}
    for name in defs:
        f = g.get(name)
        code = getattr(f, "__code__", None)
        if code is None:
            continue
        for n, k in global_loads(code).items():
            counts[n] = counts.get(n, 0) + k
    return {n for n, k in counts.items() if k >= 2}


def trial_independent(g, defs):
    """The program's functions whose results cannot depend on the trial: no default values (the
    stubs may set them), no global written, and every name they use a pure builtin or another such
    function (never a stub, numpy, or anything else the trial defines)."""
    cand = {}
    for name in defs:
        f = g.get(name)
        if type(f) is not types.FunctionType or f.__defaults__ or f.__kwdefaults__ or f.__closure__:
            continue
        names, ok = code_names(f.__code__)
        if ok:
            cand[name] = names
    changed = True
    while changed:
        changed = False
        for name in list(cand):
            for n in cand[name]:
                if (n not in cand) if n in g else (n not in PURE_BUILTINS):
                    del cand[name]
                    changed = True
                    break
    return cand


def immutable(v):
    t = type(v)
    if t in IMMUTABLE:
        return True
    return (t is tuple or t is frozenset) and all(immutable(x) for x in v)


class Unshared(Exception):
    """A mutable result: returned to its caller, never kept for another trial."""

    def __init__(self, value):
        self.value = value


def memoize_across_trials(fn):
    """The memo of a trial-independent function, kept for the whole run: a pure function of its
    arguments computes each distinct call once, not once a trial. Only immutable results are kept
    (a caller in one trial cannot change what another trial gets); calls with an unhashable
    argument are not cached."""

    def checked(*args, **kwargs):
        r = fn(*args, **kwargs)
        if not immutable(r):
            raise Unshared(r)
        return r

    cached = LRU(checked, None, True, CACHE_INFO)

    def wrapper(*args, **kwargs):
        try:
            return cached(*args, **kwargs)
        except Unshared as u:
            return u.value
        except TypeError as e:
            if e.__traceback__.tb_next is not None:
                raise
        return fn(*args, **kwargs)

    wrapper.__name__ = getattr(fn, "__name__", "wrapper")
    wrapper.__wrapped__ = fn
    return wrapper


SHARED = {}


def positional_ok(fn, params):
    """Whether `fn(*values)` binds exactly as `fn(**dict(zip(params, values)))`: its first
    parameters are `params`, in order, none positional-only, the rest with defaults. The harness
    then calls it positionally, as the program's own callers do, so the memo serves both."""
    fn = getattr(fn, "__wrapped__", fn)
    code = getattr(fn, "__code__", None)
    if code is None or code.co_posonlyargcount:
        return False
    n = code.co_argcount
    k = len(params)
    if k > n or tuple(code.co_varnames[:k]) != tuple(params):
        return False
    return n - k <= len(getattr(fn, "__defaults__", None) or ())


IN_CALL = [False]
# The running call's deadline, and when the armed timer fires (None: not armed), both on
# time.monotonic. A call re-arms the timer only when it would fire after the call's deadline; a
# timer that fires before the deadline is re-armed for the rest (one syscall a trial, not two a call).
DEADLINE = [0.0]
FIRES = [None]


def start_call(seconds):
    """Enter a call that may run `seconds` of wall clock before it raises CallTimeout."""
    d = time.monotonic() + seconds
    DEADLINE[0] = d
    IN_CALL[0] = True
    f = FIRES[0]
    if f is None or f > d:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        FIRES[0] = d


def on_alarm(signum, frame):
    FIRES[0] = None
    # Outside a call (the timer is not disarmed after one) there is nothing to interrupt.
    if not IN_CALL[0]:
        return
    left = DEADLINE[0] - time.monotonic()
    if left > 0:
        signal.setitimer(signal.ITIMER_REAL, left)
        FIRES[0] = DEADLINE[0]
        return
    # The results so far go out now: if the program swallows the timeout and is killed from
    # outside, the first call without a result is the one that was running.
    try:
        flush()
    except BaseException:
        pass
    raise CallTimeout("call timed out")


def stub_defs(src):
    """`src` cut before every line that starts with `def ` (as re.split(r"(?m)^(?=def )", src),
    without the empty first piece; re is not imported here, see `JsonContext`)."""
    cuts = src.split("\ndef ")
    last = len(cuts) - 1
    return [t for t in (("def " if j else "") + c + ("\n" if j < last else "") for j, c in enumerate(cuts)) if t]


def compile_stub(src, parts):
    """A stub block compiled one top-level `def` at a time, each distinct text once a run: the
    blocks of a run (one drawn per trial) share most of their functions. Executed in order into
    one namespace, the parts define what the whole block does; a block that does not split
    cleanly is compiled whole."""
    try:
        out = []
        for text in stub_defs(src):
            code = parts.get(text)
            if code is None:
                code = parts[text] = compile(text, "mylibrary.py", "exec")
            out.append(code)
        return out
    except SyntaxError:
        return [compile(src, "mylibrary.py", "exec")]


def main():
    global OUT
    OUT = os.fdopen(3, "w", encoding="utf-8")
    req = loads(sys.stdin.buffer.read().decode("utf-8", "surrogatepass"))
    sys.stdin = None
    real_stdout, real_stderr = sys.stdout, sys.stderr
    sink = Sink()
    code = compile(req["program"], "solution.py", "exec")
    strops_src = req.get("strops")
    parts = {}
    stubs = {int(k): compile_stub(src, parts) for k, src in req["stubs"].items()}
    strops_code = compile(strops_src, "strops.py", "exec") if strops_src else None
    if req.get("restrict_builtins", True):
        safe = {n: getattr(builtins, n) for n in SAFE_NAMES}
    else:
        safe = builtins.__dict__
    defs = req["defs"]
    functions = req["functions"]
    positions = [None] * len(functions)
    if req.get("domain") == "array":
        import numpy as np_module
    elif loaded_numpy() is not None:
        np_module = loaded_numpy()
    else:
        np_module = LazyNumpy("numpy")
    timeout = float(req.get("call_timeout", 2.0))
    signal.signal(signal.SIGALRM, on_alarm)
    memo = req.get("memoize", True)
    analysed = [None, None, None]
    stop = None
    # What the program prints goes nowhere, from here to the end (results travel on fd 3).
    sys.stdout = sys.stderr = sink
    for t, trial in enumerate(req["trials"]):
        if stop is not None:
            break
        flush()
        g = {"__builtins__": safe, "__name__": "solution"}
        try:
            ns = {"__name__": "mylibrary"}
            if strops_code is not None:
                mod = types.ModuleType("strops")
                exec(strops_code, mod.__dict__)
                ns.update({k: v for k, v in mod.__dict__.items() if not k.startswith("__")})
                ns["strops"] = mod
            for part in stubs[trial["stub"]]:
                exec(part, ns)
            g.update({k: v for k, v in ns.items() if not k.startswith("__")})
            g["np"] = g["numpy"] = np_module
        except BaseException as e:
            emit({"k": "setup", "trial": t, "error": err(e)})
            continue
        try:
            start_call(timeout * 5)
            exec(code, g)
            IN_CALL[0] = False
            if memo:
                # The same program and library every trial: analysed once a run.
                shape = (tuple([getattr(g.get(n), "__code__", None) for n in defs]), frozenset(g))
                if shape != analysed[0]:
                    analysed[:] = [shape, trial_independent(g, defs), shared_callees(g, defs)]
                independent, shared = analysed[1], analysed[2]
                for name in defs:
                    f = g.get(name)
                    if name in independent:
                        key = (name, f.__code__)
                        w = SHARED.get(key)
                        if w is None:
                            w = SHARED[key] = memoize_across_trials(f)
                        g[name] = w
                    elif isinstance(f, types.FunctionType):
                        slot = SLOTS.get(name)
                        if slot is None:
                            slot = SLOTS[name] = memo_slot()
                        g[name] = slot[1](f, name in shared)
        except BaseException as e:
            IN_CALL[0] = False
            emit({"k": "setup", "trial": t, "error": err(e)})
            continue
        values = trial["values"]
        # Immutable inputs are decoded once a trial; lists and arrays afresh for every call, so a
        # call that mutates its input cannot change another's.
        decoded = [decode(v) for v in values]
        mutable = frozenset(j for j, v in enumerate(values) if v["t"] in ("list", "ndarray"))
        # A float64 array's fresh copy is a copy of its decoded template (as `decode` would build it).
        copies = {j for j in mutable if values[j]["t"] == "ndarray" and decoded[j].dtype.char == "d"}
        for i, f, refs in trial["calls"]:
            name, params = functions[f]
            if mutable:
                args = [
                    (decoded[r].copy() if r in copies else decode(values[r])) if r in mutable else decoded[r]
                    for r in refs
                ]
            else:
                args = [decoded[r] for r in refs]
            fn = g.get(name)
            # `positional_ok` depends on the function's code (and `params`, fixed for `f`): the
            # answer for `f` holds while each trial's program gives it the same code object.
            fcode = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
            known = positions[f]
            if known is None or known[0] is not fcode:
                known = positions[f] = (fcode, positional_ok(fn, params))
            pos = known[1]
            result = None
            error = None
            try:
                start_call(timeout)
                try:
                    result = fn(*args) if pos else fn(**dict(zip(params, args)))
                except CallTimeout:
                    raise
                except BaseException:
                    # The reference's protocol: retry positionally in parameter order.
                    result = fn(*args)
                IN_CALL[0] = False
            except BaseException as e:
                IN_CALL[0] = False
                error = e
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
    signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stdout, sys.stderr = real_stdout, real_stderr
    emit({"k": "done", "stopped": stop})
    flush()


if __name__ == "__main__":
    main()
