"""Cabrito as a ``verifiers`` environment: single-turn, one row per task (``prompt`` as chat
messages, ``answer`` the reference solution, ``info`` the whole task record), and a rubric whose one
reward is the grader's verdict (1.0 when every required check passes, else 0.0).

``verifiers.load_environment("cabrito", kind="dead_code", axis="search", n=50, size=100)`` imports
:mod:`cabrito` and calls :func:`cabrito.load_environment`, which builds it here.
"""

from __future__ import annotations

import json
from typing import Any

import verifiers as vf
from datasets import Dataset

import cabrito


def _answer_text(completion: Any) -> str:
    """The model's answer: the last assistant message of a chat completion, or the text itself."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        for message in reversed(completion):
            if isinstance(message, dict) and message.get("role") == "assistant":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, list):  # content parts
                    return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def rows(kind: str, axis: str | None, n: int, size: int, seed: int, domain: str | None = None, **knobs: object) -> Dataset:
    """The environment's dataset: ``prompt`` (a user message), ``answer``, ``info`` (the task record
    as JSON text, so every row has the same schema) and ``task`` (the kind)."""
    spec: dict[str, object] = {"kind": kind, "axis": axis, "n": n, **knobs}
    if domain is not None:
        spec["domain"] = domain
    data = cabrito.create_dataset(spec, size=size, seed=seed)
    return Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": e["question"]}],
                "answer": e["answer"],
                "info": {"record": json.dumps(e["metadata"]["record"]), "link": e["metadata"]["link"]},
                "task": f"cabrito-{kind}",
            }
            for e in data
        ]
    )


def cabrito_verdict(completion: Any, info: dict[str, Any], **kwargs: Any) -> float:
    """1.0 when the grader passes the completion on the row's task, else 0.0 (no partial credit:
    a task scores 1 only when every check passes)."""
    answer = _answer_text(completion)
    if not answer:
        return 0.0
    return float(cabrito.grade({"record": info["record"]}, answer).get("score", 0))


def load_environment(
    kind: str = "add_parameter",
    axis: str | None = "traversal",
    n: int = 25,
    size: int = 50,
    seed: int = 0,
    domain: str | None = None,
    **knobs: object,
) -> vf.SingleTurnEnv:
    """A single-turn environment of ``size`` tasks of one cell, seeds ``seed`` on."""
    dataset = rows(kind, axis, n, size, seed, domain, **knobs)
    return vf.SingleTurnEnv(dataset=dataset, eval_dataset=dataset, rubric=vf.Rubric(funcs=[cabrito_verdict]))
