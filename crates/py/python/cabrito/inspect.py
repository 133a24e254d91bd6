"""Cabrito in Inspect (``inspect-ai``): tasks whose dataset is the generator and whose scorer is the
grader, and Cabrito's own runs (``cabrito solve``, ``cabrito agent``) written as Inspect eval logs.

``inspect eval cabrito/traversal_dead_code --model mockllm/model -T n=5 -T size=3`` runs one of the
tasks registered per axis and kind (see :mod:`cabrito._inspect_registry`); :func:`cabrito_task`
builds any other. ``python -m cabrito.inspect log --run OUT --tasks TASKS --out LOGS`` converts a run.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState, generate

import cabrito

__all__ = ["cabrito_scorer", "cabrito_task", "eval_log", "samples", "write_eval_logs"]


def samples(
    kind: str,
    axis: str | None,
    n: int,
    size: int,
    seed: int = 0,
    domain: str | None = None,
    **knobs: object,
) -> list[Sample]:
    """``size`` samples of one cell (seeds ``seed`` … ``seed + size − 1``); a domain of ``None`` cycles
    through the kind's domains. Each sample's metadata holds its whole task record."""
    spec: dict[str, object] = {"kind": kind, "axis": axis, "n": n, **knobs}
    if domain is not None:
        spec["domain"] = domain
        data = cabrito.create_dataset(spec, size=size, seed=seed)
    else:
        data = _mixed_domains(spec, size, seed)
    out = []
    for entry in data:
        record = entry["metadata"]["record"]
        out.append(
            Sample(
                id=record["name"],
                input=entry["question"],
                target=record["solution_code"],
                metadata={
                    "kind": entry["metadata"]["kind"],
                    "domain": entry["metadata"]["domain"],
                    "axis": entry["metadata"]["axis"],
                    "n": entry["metadata"]["n"],
                    "seed": entry["metadata"]["seed"],
                    "link": entry["metadata"]["link"],
                    "record": record,
                },
            )
        )
    return out


def _mixed_domains(spec: dict[str, object], size: int, seed: int) -> list[dict[str, Any]]:
    """Entries cycling through every domain the kind takes (one domain when the knob does not apply)."""
    try:
        per = [cabrito.create_dataset({**spec, "domain": d}, size=size, seed=seed) for d in ("math", "string", "array")]
    except cabrito.SpecError:
        per = [cabrito.create_dataset(spec, size=size, seed=seed)]
    return [per[i % len(per)][i // len(per)] for i in range(size)]


@scorer(metrics=[accuracy(), stderr()])
def cabrito_scorer(trials: int = cabrito.DEFAULT_TRIALS) -> Any:
    """The grader as a scorer: CORRECT when the completion passes every required check (the same
    sandbox as ``cabrito grade``). The score's metadata holds each check's outcome and the static
    rubric's items with their reasons."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.metadata.get("record")
        if not isinstance(record, Mapping):
            raise cabrito.TaskError("the sample has no Cabrito task record in its metadata")
        answer = state.output.completion if state.output else ""
        verdict = await anyio.to_thread.run_sync(lambda: cabrito.grade(record, answer, trials))
        rubric = await anyio.to_thread.run_sync(lambda: cabrito.check(record, answer))
        return Score(
            value=CORRECT if verdict.get("score") == 1 else INCORRECT,
            answer=answer,
            explanation=verdict.get("message") or verdict.get("error"),
            metadata={
                "checks": verdict.get("results", []),
                "rubric": rubric.get("items", []),
                "rubric_passed": rubric.get("passed", False),
                "response": rubric.get("response"),
                "format": verdict.get("format"),
            },
        )

    return score


def cabrito_task(
    kind: str = "add_parameter",
    axis: str | None = "traversal",
    n: int = 25,
    size: int = 20,
    seed: int = 0,
    domain: str | None = None,
    trials: int = cabrito.DEFAULT_TRIALS,
    **knobs: object,
) -> Task:
    """An Inspect task over one cell of the grid: the generator as dataset, one model answer per
    task (``generate()``), the grader as scorer."""
    return Task(
        dataset=MemoryDataset(samples(kind, axis, n, size, seed, domain, **knobs), name=f"cabrito-{kind}-{axis}-{n}"),
        solver=generate(),
        scorer=cabrito_scorer(trials),
        metadata={"kind": kind, "axis": axis, "n": n, "generator_version": cabrito.GENERATOR_VERSION},
    )


# ------------------------------------------------------------------------------------------------
# Cabrito's runs as Inspect eval logs


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _task_records(tasks: Path | None, place: tuple[str, str, str]) -> dict[str, dict[str, Any]]:
    """The task records of one place (run, task set, task type), by name and by dag_id."""
    if tasks is None:
        return {}
    root = tasks / "tasks" if (tasks / "tasks").is_dir() else tasks
    path = root.joinpath(*place).with_suffix(".json")
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    records = data if isinstance(data, list) else [data]
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        if isinstance(r, dict):
            for key in ("name", "dag_id"):
                if isinstance(r.get(key), str):
                    out.setdefault(r[key], r)
    return out


def eval_log(
    responses: Path,
    place: tuple[str, str, str],
    model: str,
    tasks: Path | None = None,
    results: Path | None = None,
    grade: bool = False,
    trials: int = cabrito.DEFAULT_TRIALS,
) -> EvalLog:
    """One response file of a run (``responses/<run>/<task_set>/<task_type>/<model>.jsonl``) as an
    Inspect eval log: a sample per answer, its prompt from the task record when ``tasks`` is given,
    its score from ``cabrito grade``'s result file when ``results`` is given, or graded now when
    ``grade`` is set."""
    records = _task_records(tasks, place)
    result_of: dict[str, dict[str, Any]] = {}
    if results is not None:
        root = results / "results" if (results / "results").is_dir() else results
        rpath = root.joinpath(*place, model + ".jsonl")
        if rpath.is_file():
            for r in _read_jsonl(rpath):
                result_of[r.get("name") or r.get("dag_id") or ""] = r
    eval_samples = []
    scored = 0
    correct = 0
    for i, resp in enumerate(_read_jsonl(responses)):
        name = resp.get("name") or resp.get("dag_id") or f"answer-{i + 1}"
        record = records.get(name) or records.get(resp.get("dag_id") or "")
        output = resp.get("output") if isinstance(resp.get("output"), str) else ""
        prompt = (
            cabrito._core.llm_prompt(record.get("prompt", ""), record.get("starter_code", ""))
            if record and isinstance(record.get("starter_code"), str)
            else name
        )
        verdict = result_of.get(name)
        if verdict is None and grade and record is not None:
            verdict = cabrito.grade(record, output, trials) if output else None
        scores = None
        if verdict is not None:
            scored += 1
            ok = verdict.get("score") == 1
            correct += int(ok)
            scores = {
                "cabrito_scorer": Score(
                    value=CORRECT if ok else INCORRECT,
                    answer=output,
                    explanation=verdict.get("message") or verdict.get("error"),
                    metadata={"checks": verdict.get("results", [])},
                )
            }
        meta = resp.get("metadata") if isinstance(resp.get("metadata"), dict) else {}
        eval_samples.append(
            EvalSample(
                id=name,
                epoch=1,
                input=prompt,
                target=(record or {}).get("solution_code", ""),
                messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=output, model=model)],
                output=ModelOutput.from_content(model=model, content=output),
                scores=scores,
                metadata={**meta, "dag_id": resp.get("dag_id"), **({"error": resp["error"]} if "error" in resp else {})},
            )
        )
    run, task_set, task_type = place
    now = datetime.now(timezone.utc).isoformat()
    results_block = None
    if scored:
        acc = correct / scored
        var = acc * (1 - acc) / max(scored - 1, 1)
        results_block = EvalResults(
            total_samples=len(eval_samples),
            completed_samples=len(eval_samples),
            scores=[
                EvalScore(
                    name="cabrito_scorer",
                    scorer="cabrito_scorer",
                    scored_samples=scored,
                    metrics={
                        "accuracy": EvalMetric(name="accuracy", value=acc),
                        "stderr": EvalMetric(name="stderr", value=var**0.5),
                    },
                )
            ],
        )
    return EvalLog(
        status="success",
        eval=EvalSpec(
            created=now,
            task=f"cabrito/{task_type}",
            task_id=uuid.uuid5(uuid.NAMESPACE_URL, f"cabrito:{run}/{task_set}/{task_type}").hex,
            run_id=uuid.uuid4().hex,
            eval_id=uuid.uuid4().hex,
            task_attribs={"run": run, "task_set": task_set, "task_type": task_type},
            dataset=EvalDataset(name=f"{run}/{task_set}", samples=len(eval_samples)),
            model=model,
            config=EvalConfig(),
            packages={"cabrito": cabrito.__version__},
            metadata={"source": str(responses), "written_by": "cabrito.inspect"},
        ),
        plan=EvalPlan(name="cabrito", steps=[EvalPlanStep(solver=model.split("/")[0])]),
        results=results_block,
        stats=EvalStats(started_at=now, completed_at=now),
        samples=eval_samples,
    )


def write_eval_logs(
    run: str | Path,
    out: str | Path,
    tasks: str | Path | None = None,
    results: str | Path | None = None,
    grade: bool = False,
    trials: int = cabrito.DEFAULT_TRIALS,
    format: str = "eval",
) -> list[Path]:
    """Write every response file of a ``cabrito solve`` or ``cabrito agent`` run (its ``responses/``
    folder in the reference layout) as an Inspect eval log in ``out`` (``.eval``, or ``.json`` with
    ``format="json"``). Returns the files written."""
    if format not in ("eval", "json"):
        raise cabrito.SpecError(f"format must be 'eval' or 'json', got '{format}'")
    run = Path(run)
    root = run / "responses" if (run / "responses").is_dir() else run
    if not root.is_dir():
        raise cabrito.SpecError(f"{run} has no responses/ folder (expected the --out folder of cabrito solve or agent)")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(root.rglob("*.jsonl")):
        parts = path.relative_to(root).parts
        if len(parts) < 5:
            continue
        place = (parts[0], parts[1], parts[2])
        model = "/".join(parts[3:])[: -len(".jsonl")]
        log = eval_log(
            path,
            place,
            model,
            tasks=Path(tasks) if tasks else None,
            results=Path(results) if results else None,
            grade=grade,
            trials=trials,
        )
        safe = "_".join([*place, *model.split("/")]).replace("(", "").replace(")", "").replace(",", "-")
        target = out / f"cabrito_{safe}.{format}"
        write_eval_log(log, str(target), format=format)
        written.append(target)
    if not written:
        raise cabrito.SpecError(f"no response files under {root} (responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl)")
    return written


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cabrito.inspect", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    lg = sub.add_parser("log", help="write a cabrito solve/agent run as Inspect eval logs")
    lg.add_argument("--run", required=True, help="the run's --out folder (holding responses/)")
    lg.add_argument("--out", required=True, help="the folder the logs go to")
    lg.add_argument("--tasks", help="the tasks the run answered (for prompts and targets)")
    lg.add_argument("--results", help="cabrito grade's --out folder for these responses (the scores)")
    lg.add_argument("--grade", action="store_true", help="grade the answers now (needs --tasks)")
    lg.add_argument("--trials", type=int, default=cabrito.DEFAULT_TRIALS)
    lg.add_argument("--format", choices=["eval", "json"], default="eval")
    args = p.parse_args(argv)
    try:
        files = write_eval_logs(args.run, args.out, args.tasks, args.results, args.grade, args.trials, args.format)
    except cabrito.CabritoError as e:
        print(f"cabrito: {e}", file=sys.stderr)
        return 2
    for f in files:
        print(f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
