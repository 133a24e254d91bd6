"""Check generated merge tasks under CPython (test support; the programs are Cabrito's own output).

Reads a JSON list of cases on stdin: {id, input, input_with_space, solution, params, vectors, blocks}
where blocks[k] = {inputs: [[canonical, name_a, name_b], ...], live_out: [[...], ...]}. Per case it
reports {id, problems: [...], differ: bool}:
- the input's and the solution's CalculateA (and CalculateB) return the same on every vector;
- CalculateA and CalculateB differ on at least one vector;
- input_with_space defines the same program as input;
- every block of each class (input_with_space splits them with blank lines) gives the canonical
  block's live-out values (the solution's compute() between its custom_compute calls) on random
  inputs.
"""
import json
import random
import sys

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)


def load(src):
    ns = {"__name__": "merge_check"}
    exec(compile(src, "solution.py", "exec"), ns)
    return ns


def method_body(src, cls, name):
    """The body lines of `cls.name` (8-space indented), up to the first line indented less."""
    lines = src.split("\n")
    i = lines.index(next(l for l in lines if l.startswith(f"class {cls}(")))
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith(f"    def {name}("))
    body = []
    for l in lines[j + 1:]:
        if l.strip() and not l.startswith("        "):
            break
        body.append(l)
    while body and not body[-1].strip():
        body.pop()
    return body


def segments(body, split):
    out, cur = [], []
    for l in body:
        if split(l):
            out.append(cur)
            cur = []
        else:
            cur.append(l)
    out.append(cur)
    return out


def run_lines(lines, env):
    env = dict(env)
    exec("\n".join(l.strip() for l in lines if l.strip()), {}, env)
    return env


def check(case):
    problems = []
    inp, spaced, sol = load(case["input"]), load(case["input_with_space"]), load(case["solution"])
    differ = False
    for v in case["vectors"]:
        got = {}
        for c in ("CalculateA", "CalculateB"):
            a, s, b = inp[c]().compute(*v), spaced[c]().compute(*v), sol[c]().compute(*v)
            if not (a == s == b) or type(a) is not int:
                problems.append(f"{c}{tuple(v)}: input {a}, spaced {s}, solution {b}")
            got[c] = a
        differ |= got["CalculateA"] != got["CalculateB"]
    # Blocks: the canonical ones between the solution's custom_compute calls.
    canon = [s for s in segments(method_body(case["solution"], "Calculate", "compute"), lambda l: "self.custom_compute_" in l)]
    canon[-1] = [l for l in canon[-1] if not l.strip().startswith("return ")]
    rng = random.Random(case["id"])
    for ci, c in enumerate(("CalculateA", "CalculateB")):
        body = [l for l in method_body(case["input_with_space"], c, "compute")]
        segs = segments(body[1:] if body and not body[0].strip() else body, lambda l: not l.strip())
        segs = [s for s in segs if s]
        blocks = segs[0::2]
        blocks[-1] = [l for l in blocks[-1] if not l.strip().startswith("return ")]
        if len(blocks) != len(case["blocks"]) or len(canon) != len(case["blocks"]):
            problems.append(f"{c}: {len(blocks)} blocks in the class, {len(canon)} in the solution, {len(case['blocks'])} expected")
            continue
        for k, b in enumerate(case["blocks"]):
            for _ in range(20):
                vals = {x[0]: rng.randint(-5, 5) for x in b["inputs"]}
                want = run_lines(canon[k], vals)
                have = run_lines(blocks[k], {x[1 + ci]: vals[x[0]] for x in b["inputs"]})
                for x in b["live_out"]:
                    if have.get(x[1 + ci]) != want.get(x[0]):
                        problems.append(f"{c} block {k}: {x[1 + ci]} = {have.get(x[1 + ci])}, canonical {x[0]} = {want.get(x[0])}")
                        break
    return {"id": case["id"], "problems": problems[:5], "differ": differ}


print(json.dumps([check(c) for c in json.load(sys.stdin)]))
