"""The verifiers environment's reward is the grader's verdict: 1.0 on reference completions, 0.0 on
starter ones, offline (no model is called)."""

from __future__ import annotations

import asyncio
import json

import verifiers as vf

import cabrito


def test_load_environment_rewards_the_reference_and_not_the_starter():
    env = vf.load_environment("cabrito", kind="dead_code", axis="search", n=5, size=3, seed=2)
    assert isinstance(env, vf.SingleTurnEnv)
    rows = env.get_dataset() if hasattr(env, "get_dataset") else env.dataset
    assert len(rows) == 3
    rubrics = getattr(env.rubric, "rubrics", [env.rubric])
    [reward] = [f for r in rubrics for f in r.funcs if f.__name__ == "cabrito_verdict"]
    for row in rows:
        record = json.loads(row["info"]["record"])
        assert row["answer"] == record["solution_code"]
        assert row["prompt"][0]["role"] == "user" and record["starter_code"] in row["prompt"][0]["content"]
        good = [{"role": "assistant", "content": f"<solution>\n# === solution.py ===\n{row['answer']}\n</solution>"}]
        bad = [{"role": "assistant", "content": record["starter_code"]}]
        assert reward(completion=good, info=row["info"]) == 1.0
        assert reward(completion=bad, info=row["info"]) == 0.0
        assert reward(completion=[], info=row["info"]) == 0.0


def test_the_rubric_scores_a_rollout_state():
    env = cabrito.load_environment(kind="cache_function", axis="traversal", n=5, size=1, seed=1, domain="math")
    row = env.get_dataset()[0] if hasattr(env, "get_dataset") else env.dataset[0]
    rewards = []
    for answer in (row["answer"], json.loads(row["info"]["record"])["starter_code"]):
        state = vf.State(
            input={"prompt": row["prompt"], "answer": row["answer"], "info": row["info"], "example_id": 0, "task": row["task"]},
        )
        state["prompt"] = row["prompt"]
        state["completion"] = [{"role": "assistant", "content": answer}]
        asyncio.run(env.rubric.score_rollout(state))
        rewards.append(state["reward"])
    assert rewards == [1.0, 0.0]
