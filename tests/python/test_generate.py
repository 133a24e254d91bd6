"""Generation from Python is the CLI's, byte for byte (D14), and bad arguments raise clear exceptions
with the CLI's messages without harming the interpreter."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

import cabrito
from conftest import run_cli


def specs() -> list[dict[str, object]]:
    """Many specs over every kind, domain and axis (some of which the generator refuses), with sizes
    and seeds drawn from a fixed seed, plus the knobs of the kinds and axes that have their own."""
    rng = random.Random(20261206)
    out: list[dict[str, object]] = []
    for kind in cabrito.KINDS:
        for axis in cabrito.AXES:
            out.append({
                "kind": kind,
                "domain": rng.choice(cabrito.DOMAINS),
                "axis": axis,
                "n": rng.choice([5, 10, 25]),
                "seed": rng.randrange(0, 2**63),
            })
    out += [
        {"kind": "merge_codebases", "n": 25, "seed": 3, "d": 2, "params": 4, "transformations": "rename,shuffle"},
        {"kind": "variable_renaming", "n": 10, "seed": 4, "chain": 40},
        {"kind": "cache_function", "axis": "runtime", "n": 10, "seed": 5, "branches": 4, "ratio": "0.5"},
        {"kind": "add_parameter", "axis": "instructions", "n": 5, "seed": 6, "values": 2, "conditional": 50},
        {"kind": "dead_code", "n": 5, "seed": 7, "n_init": 7, "n_edit": 3},
        {},
    ]
    return out


def flags(spec: dict[str, object]) -> list[str]:
    return [a for k, v in spec.items() for a in (f"--{k.replace('_', '-')}", str(v))]


@pytest.mark.parametrize("spec", specs(), ids=lambda s: "-".join(str(v) for v in s.values())[:60] or "defaults")
def test_generate_is_the_clis_byte_for_byte(cli, spec):
    out = run_cli(cli, "generate", "--json", *flags(spec), check=False)
    if out.returncode == 0:
        text = cabrito.generate_json(**spec)
        assert out.stdout == text + "\n"
        assert cabrito.generate(**spec) == json.loads(out.stdout)
    else:
        # The CLI refuses it: Python refuses it with the same message.
        assert out.returncode == 2, out.stderr
        with pytest.raises(cabrito.SpecError) as e:
            cabrito.generate_json(**spec)
        assert out.stderr.strip() == f"cabrito: {e.value}"


def test_a_grid_is_the_clis_jsonl_shard_by_shard(cli, tmp_path):
    args = dict(axes="search,runtime,renaming", kinds="dead_code,cache_function,variable_renaming",
                domains="string,array", sizes="5,10", samples=2, seed=7)
    for k in (1, 2, 3):
        out = tmp_path / f"grid{k}"
        run_cli(cli, "grid", "--out", str(out), *flags(args), "--shard", f"{k}/3")
        lines = (out / f"tasks-{k}-of-3.jsonl").read_text().splitlines()
        g = cabrito.grid(**args, shard=(k, 3))
        assert len(g) == len(lines) > 0
        assert list(g) == [json.loads(line) for line in lines]
        # The native module's lines are the CLI's bytes.
        raw = cabrito._core.grid(args["axes"], args["kinds"], args["domains"], args["sizes"], 2, 7, f"{k}/3")
        assert list(raw) == lines
    assert cabrito.grid(axes="search", kinds=["dead_code"], domains=["math"], sizes=[5], samples=3).links()[2].endswith("seed=2")


def test_grid_refusals_are_the_clis(cli, tmp_path):
    for args in (["--axes", "sideways"], ["--sizes", "5,x"], ["--shard", "4/3"], ["--kinds", "dead_code", "--axes", "instructions"]):
        out = run_cli(cli, "grid", "--out", str(tmp_path / "g"), *args, check=False)
        assert out.returncode == 2
        py = {"--axes": "axes", "--sizes": "sizes", "--shard": "shard", "--kinds": "kinds"}
        kw = {py[args[i]]: args[i + 1] for i in range(0, len(args), 2)}
        with pytest.raises(cabrito.SpecError) as e:
            cabrito.grid(**kw)
        assert out.stderr.strip().endswith(str(e.value)), (out.stderr, str(e.value))


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"kind": "nope"}, cabrito.SpecError),
        ({"n": 10**9}, cabrito.SpecError),
        ({"n": 0}, cabrito.SpecError),
        ({"n": "many"}, cabrito.SpecError),
        ({"seed": -1}, cabrito.SpecError),
        ({"seed": 2**70}, cabrito.SpecError),
        ({"colour": "blue"}, cabrito.SpecError),
        ({"d": 3}, cabrito.SpecError),
        ({"n": True}, TypeError),
        ({"n": 2.5}, TypeError),
        ({"n": [5]}, TypeError),
        ({"kind": object()}, TypeError),
        ({"ratio": float("nan"), "axis": "runtime"}, cabrito.SpecError),
        ({"kind": "dead\x00code"}, cabrito.SpecError),
        ({"kind": "x" * 100_000}, cabrito.SpecError),
    ],
)
def test_hostile_arguments_raise_clear_exceptions(kwargs, error):
    with pytest.raises(error) as e:
        cabrito.generate(**kwargs)
    assert str(e.value), "the exception says what is wrong"
    # It names the value (clipped or not) and no more than that and what is allowed.
    assert len(str(e.value)) < 2000 + sum(len(str(v)) for v in kwargs.values())


def test_random_garbage_never_crashes_the_interpreter():
    """Random knob values of every type: each call returns a task or raises a cabrito or type error,
    run in a child interpreter so a crash would show as its exit status."""
    code = r"""
import random, cabrito
rng = random.Random(7)
values = [None, 0, -5, 1, 2**64, 2**64 - 1, 3.5, "", " ", "25", "x", "\udcff", "1e9", "all", "none", "∞", b"5", (), ["a"], {"a": 1}]
keys = [k for k, *_ in cabrito.KNOBS] + ["v", "bogus"]
ok = bad = 0
for _ in range(400):
    kw = {rng.choice(keys): rng.choice(values) for _ in range(rng.randrange(1, 4))}
    if kw.get("n") not in (None,) and isinstance(kw.get("n"), int) and kw["n"] > 60:
        kw["n"] = 5
    try:
        cabrito.generate(**kw)
        ok += 1
    except (cabrito.CabritoError, TypeError, UnicodeEncodeError):
        bad += 1
print(ok, bad)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    ok, bad = map(int, out.stdout.split())
    assert ok + bad == 400 and bad > 0


def test_links_and_prompts_are_the_clis(cli):
    spec = {"kind": "add_return_value", "domain": "array", "axis": "search", "n": 10, "seed": 11}
    out = run_cli(cli, "link", *flags(spec), "--base", "")
    assert out.stdout.strip() == cabrito.link(**spec)
    task = cabrito.generate(**spec)
    entry = cabrito.create_dataset({k: v for k, v in spec.items() if k != "seed"}, size=1, seed=11)[0]
    assert entry["metadata"]["record"] == task
    assert entry["answer"] == task["solution_code"]
    assert task["starter_code"] in entry["question"] and task["prompt"] in entry["question"]
