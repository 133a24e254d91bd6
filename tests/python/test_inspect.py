"""Inspect: `inspect eval cabrito/…` runs offline with mockllm/model, the grader scores (rubric items in
the score's metadata), and a `cabrito agent` or `cabrito solve` run written as Inspect eval logs is read
back by inspect-ai (`read_eval_log` and `inspect log dump`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, get_model

import cabrito
from cabrito.inspect import cabrito_task, write_eval_logs
from conftest import run_cli

INSPECT = Path(sys.executable).parent / "inspect"


def env_for_inspect() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("INSPECT_LOG_LEVEL", "warning")
    env["INSPECT_DISPLAY"] = "none"
    return env


def test_inspect_eval_runs_a_registered_task_offline(tmp_path):
    assert INSPECT.exists(), "inspect-ai's command is installed beside this python"
    out = subprocess.run(
        [str(INSPECT), "eval", "cabrito/traversal_dead_code", "--model", "mockllm/model", "-T", "n=5", "-T", "size=2",
         "-T", "trials=3", "--log-dir", str(tmp_path), "--log-format", "json"],
        capture_output=True, text=True, env=env_for_inspect(), timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    logs = list(tmp_path.glob("*.json"))
    assert len(logs) == 1
    log = read_eval_log(str(logs[0]))
    assert log.status == "success" and log.eval.task.endswith("traversal_dead_code")
    assert len(log.samples) == 2
    for s in log.samples:
        score = s.scores["cabrito_scorer"]
        assert score.value == "I", "the mock model's default answer is not a solution"
        assert score.metadata["rubric"] and score.metadata["rubric_passed"] is False
        assert s.metadata["record"]["name"] == s.id


def test_every_axis_and_kind_is_registered():
    from cabrito import _inspect_registry as reg

    names = set(reg.TASKS)
    assert {"traversal_dead_code", "search_extract_helper", "runtime_cache_function", "instructions_add_parameter", "merge", "renaming"} <= names
    assert "instructions_dead_code" not in names, "dead code is not built along instruction following"


def test_the_grader_scores_a_correct_answer_and_puts_the_rubric_in_the_metadata(tmp_path):
    task = cabrito_task(kind="add_return_value", axis="search", n=5, size=2, seed=1, domain="array", trials=3)
    answers = [s.target for s in task.dataset]
    model = get_model("mockllm/model", custom_outputs=[ModelOutput.from_content("mockllm/model", a) for a in answers])
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    for s in log.samples:
        meta = s.scores["cabrito_scorer"].metadata
        assert meta["rubric_passed"] is True
        assert {i["id"] for i in meta["rubric"]} >= {"compilation"}
        assert {c["kind"] for c in meta["checks"]} >= {"compilation", "function_existence", "behavioral"}


def test_an_agent_run_becomes_an_inspect_log(cli, tmp_path):
    run = tmp_path / "run"
    run_cli(cli, "agent", "--strategy", "reader", "--kind", "dead_code", "--domain", "string", "--n", "5", "--seed", "3", "--out", str(run))
    logs = tmp_path / "logs"
    out = subprocess.run(
        [sys.executable, "-m", "cabrito.inspect", "log", "--run", str(run), "--tasks", str(run), "--grade", "--trials", "3", "--out", str(logs)],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    [path] = [Path(p) for p in out.stdout.split()]
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.model == "scripted/reader"
    [sample] = log.samples
    assert sample.scores["cabrito_scorer"].value in ("C", "I")
    assert sample.metadata["agent"] == "reader"
    assert "problem statement" in sample.input
    dumped = subprocess.run([str(INSPECT), "log", "dump", str(path)], capture_output=True, text=True, env=env_for_inspect(), timeout=300)
    assert dumped.returncode == 0, dumped.stderr
    assert json.loads(dumped.stdout)["samples"][0]["id"] == sample.id


class _FakeModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat-completions server on the loopback that answers every task with
    its reference solution (looked up by the starter code in the prompt)."""

    answers: dict[str, str] = {}

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        prompt = body["messages"][-1]["content"]
        answer = next((sol for starter, sol in self.answers.items() if starter in prompt), "no idea")
        reply = {
            "id": "x", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": f"<solution>\n# === solution.py ===\n{answer}\n</solution>"}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def test_a_solve_run_becomes_an_inspect_log_with_the_graders_scores(cli, tmp_path):
    tasks = tmp_path / "tasks"
    run_cli(cli, "grid", "--out", str(tasks), "--axes", "search", "--kinds", "add_parameter", "--domains", "math", "--sizes", "5", "--samples", "2")
    records = json.loads(next((tasks / "tasks").rglob("*.json")).read_text())
    _FakeModel.answers = {r["starter_code"]: r["solution_code"] for r in records}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        run = tmp_path / "run"
        run_cli(cli, "solve", "--endpoint", f"http://127.0.0.1:{server.server_port}/v1", "--model", "fake", "--tasks", str(tasks), "--out", str(run), "--concurrency", "1", timeout=600)
    finally:
        server.shutdown()
        thread.join()
    graded = tmp_path / "graded"
    run_cli(cli, "grade", "--tasks", str(tasks), "--responses", str(run), "--out", str(graded), "--trials", "3")
    [path] = write_eval_logs(run, tmp_path / "logs", tasks=tasks, results=graded, format="eval")
    log = read_eval_log(str(path))
    assert len(log.samples) == 2
    assert all(s.scores["cabrito_scorer"].value == "C" for s in log.samples)
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    with pytest.raises(cabrito.SpecError):
        write_eval_logs(tmp_path / "nowhere", tmp_path / "logs2")
    assert shutil.which("inspect", path=str(INSPECT.parent))
