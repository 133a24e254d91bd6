"""Run generated Cabrito programs under CPython (test support; the programs are our own output).

Reads a JSON list of cases on stdin: {id, kind, domain, starter, reference, stubs, strops, inputs}.
For each case it compiles both programs, executes them as modules with a `mylibrary` built from the
case's stub source, calls main() on every input, and reports per case:
  {id, starter: [outcome...], reference: [outcome...]}
where an outcome is ["ok", repr-of-result] or ["error", exception type name, message].
"""
import contextlib
import io
import json
import math
import sys
import types

import numpy as np


def module_from(name, source):
    mod = types.ModuleType(name)
    exec(compile(source, name + '.py', 'exec'), mod.__dict__)
    return mod


def canon(x):
    """A comparable, JSON-friendly form of a result (NaN-aware, exact types kept)."""
    if isinstance(x, tuple):
        return ['tuple', [canon(v) for v in x]]
    if isinstance(x, list):
        return ['list', [canon(v) for v in x]]
    if isinstance(x, np.ndarray):
        return ['ndarray', list(x.shape), [canon(float(v)) for v in x.ravel()]]
    if isinstance(x, bool):
        return ['bool', x]
    if isinstance(x, (int, np.integer)):
        return ['int', int(x)]
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return ['float', 'nan']
        if math.isinf(x):
            return ['float', 'inf' if x > 0 else '-inf']
        return ['float', repr(x)]
    if isinstance(x, str):
        return ['str', x]
    return ['other', repr(x)]


def run(source, stubs, strops, domain, inputs):
    sys.modules['mylibrary'] = module_from('mylibrary', stubs)
    sys.modules['strops'] = strops
    out = []
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            prog = module_from('generated', source)
    except Exception as e:  # noqa: BLE001 - reported to the Rust test
        return [['load-error', type(e).__name__, str(e)]]
    for raw in inputs:
        val = np.array(raw, dtype=float) if domain == 'array' else raw
        try:
            # What the programs print (instruction-following requirements) must not reach our stdout.
            with np.errstate(all='ignore'), contextlib.redirect_stdout(io.StringIO()):
                out.append(['ok', canon(prog.main(val))])
        except Exception as e:  # noqa: BLE001
            out.append(['error', type(e).__name__, str(e)[:200]])
    return out


def main():
    cases = json.load(sys.stdin)
    results = []
    strops_cache = {}
    for case in cases:
        key = case['strops']
        if key not in strops_cache:
            strops_cache[key] = module_from('strops', key)
        strops = strops_cache[key]
        results.append({
            'id': case['id'],
            'starter': run(case['starter'], case['stubs'], strops, case['domain'], case['inputs']),
            'reference': run(case['reference'], case['stubs'], strops, case['domain'], case['inputs']),
        })
    json.dump(results, sys.stdout)


if __name__ == '__main__':
    main()
