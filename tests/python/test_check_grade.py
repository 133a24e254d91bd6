"""`check` and `grade` from Python give the CLI's reports and verdicts on the reference fixtures, and
hostile responses and arguments raise clear exceptions (or fail the task) without crashing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cabrito
from conftest import layout, run_cli

BUCKET = "function_traversal_en25"


def _without(report: dict, *keys: str) -> dict:
    return {k: v for k, v in report.items() if k not in keys}


def test_check_is_the_clis_on_the_fixtures(cli, fixtures, tmp_path):
    cases = layout(fixtures, BUCKET, tmp_path)
    assert len(cases) >= 20
    passed = {"solution": 0, "starter": 0}
    for path, record, resp in cases:
        sol = tmp_path / "response.txt"
        sol.write_text(resp["output"], encoding="utf-8")
        out = run_cli(cli, "check", "--task-file", str(path), "--task-name", record["name"], "--solution", str(sol), "--json", check=False)
        assert out.returncode in (0, 1), out.stderr
        theirs = json.loads(out.stdout)
        ours = cabrito.check(record, resp["output"])
        assert _without(ours, "solution") == _without(theirs, "solution"), record["name"]
        assert ours["passed"] == (out.returncode == 0)
        passed[resp["which"]] += ours["passed"]
    # The reference solutions pass the rubric and the untouched starters do not.
    assert passed["solution"] == len(cases) // 2 and passed["starter"] == 0


def test_grade_is_the_clis_on_the_fixtures(cli, fixtures, tmp_path):
    cases = layout(fixtures, BUCKET, tmp_path, limit=8)
    out = run_cli(cli, "grade", "--tasks", str(tmp_path), "--responses", str(tmp_path), "--out", str(tmp_path / "out"), "--trials", "5", "--json")
    theirs: dict[tuple[str, str], dict] = {}
    for f in (tmp_path / "out" / "results").rglob("*.jsonl"):
        for line in f.read_text().splitlines():
            r = json.loads(line)
            theirs[(r["name"], f.stem)] = r
    assert len(theirs) == len(cases)
    for _path, record, resp in cases:
        ours = cabrito.grade(record, resp["output"], trials=5)
        cli_rec = theirs[(record["name"], resp["which"])]
        assert _without(ours, "seconds") == _without(cli_rec, "seconds"), record["name"]
        assert ours["score"] == (1 if resp["which"] == "solution" else 0)
    assert json.loads(out.stdout)


def test_a_generated_task_grades_its_reference_and_fails_its_starter():
    task = cabrito.generate(kind="cache_function", domain="string", axis="traversal", n=5, seed=2)
    good = cabrito.grade(task, task["solution_code"], trials=5)
    bad = cabrito.grade(task, task["starter_code"], trials=5)
    assert (good["score"], bad["score"]) == (1, 0)
    assert good["format"] == "bare" and good["parsed_ok"]
    # bytes are decoded as a source file is, a file block and a JSON-text task work the same.
    block = f"<solution>\n# === solution.py ===\n{task['solution_code']}\n</solution>"
    assert cabrito.grade(json.dumps(task), block.encode(), trials=5)["score"] == 1
    assert cabrito.check(task, block)["passed"]


@pytest.fixture(scope="module")
def small_task() -> dict:
    return cabrito.generate(kind="add_parameter", domain="math", axis="traversal", n=5, seed=4)


@pytest.mark.parametrize(
    "response",
    [
        "",
        "while True:\n    pass\n",
        "import os\nos._exit(3)\n",
        "def f(\n",
        "import sys\nsys.setrecursionlimit(10**6)\ndef r(x):\n    return r(x)\nr(1)\n",
        "x = 'a' * (10**10)\n",
        "\x00\x01 binary",
        "# === solution.py ===\n" + "(" * 5000 + ")" * 5000 + "\n",
        "--- a/solution.py\n+++ b/solution.py\n@@ -1,1 +1,1 @@\n-nothing\n+something\n",
        b"\xff\xfe\xfa not utf-8",
    ],
    ids=["empty", "loop", "exit", "syntax", "recursion", "memory", "nul", "deep", "bad-diff", "bad-bytes"],
)
def test_hostile_responses_fail_the_task_or_raise_a_response_error(small_task, response):
    try:
        verdict = cabrito.grade(small_task, response, trials=2, call_timeout=1.0)
    except cabrito.ResponseError as e:
        assert "cannot be read" in str(e)
        return
    assert verdict["score"] == 0
    report = cabrito.check(small_task, response)
    assert report["passed"] is False


def test_hostile_arguments(small_task):
    with pytest.raises(cabrito.ResponseError, match="larger than"):
        cabrito.check(small_task, "x" * (3 << 20))
    with pytest.raises(TypeError):
        cabrito.check(small_task, 42)
    with pytest.raises(TypeError):
        cabrito.check(42, "x")
    with pytest.raises(cabrito.TaskError, match="not JSON"):
        cabrito.check("{not json", "x")
    with pytest.raises(cabrito.TaskError, match="starter_code"):
        cabrito.check({"name": "math_function_dead_code_x"}, "x")
    with pytest.raises(cabrito.TaskError, match="cannot tell the kind"):
        cabrito.check({"starter_code": "x = 1", "solution_code": "x = 1"}, "x = 1")
    with pytest.raises(cabrito.TaskError, match="unknown kind"):
        cabrito.check(small_task, "x", kind="sideways")
    with pytest.raises(cabrito.SpecError, match="trials"):
        cabrito.grade(small_task, "x", trials=0)
    with pytest.raises(cabrito.SpecError, match="trials"):
        cabrito.grade(small_task, "x", trials=10**9)
    with pytest.raises(TypeError):
        cabrito.grade(small_task, "x", trials="5")
    with pytest.raises(cabrito.SpecError, match="call_timeout"):
        cabrito.grade(small_task, "x", call_timeout=float("inf"))
    # A record that names a different kind than asked is graded as asked, as `cabrito check --kind` does.
    report = cabrito.check(small_task, small_task["solution_code"], kind="dead_code")
    assert report["task"]["kind"] == "dead_code"


def test_grading_without_python3_is_a_clear_error(small_task, no_python3_path, tmp_path):
    """Where no python3 with numpy is on PATH, grade raises GradeUnavailable (check still works)."""
    task = tmp_path / "task.json"
    task.write_text(json.dumps(small_task))
    code = (
        "import json, sys, cabrito\n"
        "t = json.load(open(sys.argv[1]))\n"
        "assert cabrito.check(t, t['solution_code'])['passed']\n"
        "try:\n    cabrito.grade(t, t['solution_code'])\nexcept cabrito.GradeUnavailable as e:\n    print('unavailable:', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(task)], capture_output=True, text=True, env=no_python3_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("unavailable: grading runs the candidate in a python3 with numpy"), out.stdout
    assert "python3" in out.stdout


def test_reasoning_gym_convention():
    data = cabrito.create_dataset("search/dead_code", size=7, seed=3)
    assert len(data) == 7 and len(list(data)) == 7
    kinds = {e["metadata"]["kind"] for e in data}
    assert kinds == {"dead_code"}
    assert {e["metadata"]["domain"] for e in data} == {"math", "string", "array"}, "entries mix the cells"
    for e in data[:2]:
        assert set(e) == {"question", "answer", "metadata"}
        assert cabrito.score_answer(e["answer"], e) == 1.0
        assert data.score_answer(e["metadata"]["record"]["starter_code"], e) == 0.0
        assert cabrito.score_answer(None, e) == 0.0
        assert cabrito.score_answer("", e) == 0.0
    # The same arguments give the same entries; a dict spec keeps its knobs.
    assert cabrito.create_dataset("search/dead_code", size=7, seed=3)[6] == data[6]
    d = cabrito.create_dataset({"kind": "add_parameter", "axis": "search", "n": 5}, size=2, seed=9)
    assert [e["metadata"]["seed"] for e in d] == [9, 10]
    assert data[-1] == data[6]
    with pytest.raises(IndexError):
        data[7]
    with pytest.raises(cabrito.SpecError, match="unknown preset"):
        cabrito.create_dataset("sideways")
    with pytest.raises(cabrito.SpecError, match="seed="):
        cabrito.create_dataset({"kind": "dead_code", "seed": 1})
    with pytest.raises(cabrito.SpecError):
        cabrito.create_dataset({"kind": "dead_code", "n": 10**6})
    with pytest.raises(cabrito.SpecError):
        cabrito.create_dataset("paper", size=-1)
    assert len(cabrito.create_dataset("paper", size=10**6)) == 10**6, "entries are made when read"
