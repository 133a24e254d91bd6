"""Cabrito from Python: Cabra's refactoring tasks, generated, checked and graded by the same Rust core
as the ``cabrito`` CLI, the worker and the browser playground (the same spec gives the same bytes
and the same response the same verdict everywhere).

>>> import cabrito
>>> task = cabrito.generate(kind="dead_code", domain="math", axis="traversal", n=5, seed=1)
>>> cabrito.check(task, task["solution_code"])["passed"]
True

Integrations, each importing its library only when used: :func:`export_hf` (Hugging Face
``datasets``), :mod:`cabrito.inspect` (Inspect tasks and eval logs) and :func:`load_environment`
(a ``verifiers`` environment).
"""

from __future__ import annotations

import json
import math
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Union

from . import _core
from ._core import (
    CabritoError,
    GradeUnavailable,
    ResponseError,
    SpecError,
    TaskError,
)

__all__ = [
    "CabritoError",
    "Dataset",
    "GradeUnavailable",
    "Grid",
    "ResponseError",
    "SpecError",
    "TaskError",
    "check",
    "compare_paired",
    "create_dataset",
    "export_hf",
    "frontier",
    "generate",
    "generate_json",
    "grade",
    "grid",
    "link",
    "load_environment",
    "mcnemar",
    "score_answer",
]

__version__: str = _core.version()
#: The generator version this build writes (``v`` of a spec).
GENERATOR_VERSION: int = _core.generator_version()
#: Trials per function by default (the paper's 50).
DEFAULT_TRIALS: int = _core.DEFAULT_TRIALS
#: Every knob of a spec, in order: ``(key, help, allowed values, default)``.
KNOBS: tuple[tuple[str, str, str, str | None], ...] = tuple(_core.knobs())
_INT_KNOBS = frozenset(_core.int_knobs())
#: The kinds, domains and axes, in the registry's order.
KINDS: tuple[str, ...] = tuple(_core.choices("kind"))
DOMAINS: tuple[str, ...] = tuple(_core.choices("domain"))
AXES: tuple[str, ...] = tuple(_core.choices("axis"))

Task = dict[str, Any]
#: What the task-taking functions accept: a task record (``generate``'s dict or a reference record),
#: its JSON text, a row of :func:`export_hf`'s dataset, or an entry of :func:`create_dataset`.
TaskLike = Union[Mapping[str, Any], str]
Response = Union[str, bytes]


# ------------------------------------------------------------------------------------------------
# Specs and generation


def _knob_text(key: str, value: object) -> str:
    """A knob's value as the CLI's flag would carry it."""
    if isinstance(value, bool):
        raise TypeError(f"knob '{key}' takes a number or a name, not a bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if key in _INT_KNOBS:
            raise TypeError(f"knob '{key}' takes an integer, not a float ({value!r})")
        if not math.isfinite(value):
            raise SpecError(f"knob '{key}' takes a finite number, got {value!r}")
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        if not all(isinstance(v, str) for v in items):
            raise TypeError(f"knob '{key}' takes a list of names (str)")
        return ",".join(sorted(items) if isinstance(value, (set, frozenset)) else items)
    raise TypeError(f"knob '{key}' takes a str or an int, not {type(value).__name__}")


def _pairs(knobs: Mapping[str, object]) -> list[tuple[str, str]]:
    out = []
    for key, value in knobs.items():
        if not isinstance(key, str):
            raise TypeError(f"knob names are str, not {type(key).__name__}")
        if value is None:
            continue
        out.append((key, _knob_text(key, value)))
    return out


def generate_json(
    kind: str | None = None,
    domain: str | None = None,
    axis: str | None = None,
    n: int | None = None,
    seed: int | None = None,
    **knobs: object,
) -> str:
    """The task record of a spec as JSON text: byte for byte what ``cabrito generate --json`` prints
    (without its final newline). Knobs left out take their defaults; see :data:`KNOBS`.

    Raises :class:`SpecError` with the CLI's message for an unknown knob or a bad value.
    """
    spec = {"kind": kind, "domain": domain, "axis": axis, "n": n, "seed": seed, **knobs}
    return _core.generate_json(_pairs(spec), True)


def generate(
    kind: str | None = None,
    domain: str | None = None,
    axis: str | None = None,
    n: int | None = None,
    seed: int | None = None,
    **knobs: object,
) -> Task:
    """The task record of a spec (a dict): what ``cabrito generate --json`` prints, parsed.

    ``generate(kind="dead_code", domain="string", axis="search", n=50, seed=3)``; other knobs
    (``n_init``, ``branches``, ``d``, …) as keyword arguments.
    """
    return json.loads(generate_json(kind, domain, axis, n, seed, **knobs))


def link(**knobs: object) -> str:
    """The share-link fragment of a spec (``#/task?v=1&…``), as ``cabrito link`` prints it."""
    return _core.link(_pairs(knobs))


def _list_text(name: str, value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
            raise TypeError(f"{name} takes names or integers")
        return ",".join(str(v) for v in value)
    raise TypeError(f"{name} takes a comma-separated str or a list, not {type(value).__name__}")


def _shard_text(shard: object) -> str | None:
    if shard is None or isinstance(shard, str):
        return shard
    if isinstance(shard, tuple) and len(shard) == 2 and all(isinstance(x, int) for x in shard):
        return f"{shard[0]}/{shard[1]}"
    raise TypeError("shard takes 'K/N' or a (K, N) tuple")


def _int_arg(name: str, value: object, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} takes an integer, not {type(value).__name__}")
    if value < minimum or value > 2**64 - 1:
        raise SpecError(f"{name} must be an integer from {minimum} to {2**64 - 1}, got {value}")
    return value


class Grid:
    """The tasks of a grid, generated one at a time as they are iterated (each a dict, the same as a
    line of ``cabrito grid``'s ``tasks.jsonl``)."""

    def __init__(self, core: Any) -> None:
        self._core = core

    def __len__(self) -> int:
        return len(self._core)

    def __iter__(self) -> Iterator[Task]:
        return self

    def __next__(self) -> Task:
        return json.loads(next(self._core))

    @property
    def skipped(self) -> list[str]:
        """What the grid left out (a kind not built along an axis, …), with why."""
        return list(self._core.skipped)

    def links(self) -> list[str]:
        """Each task's spec, as its share-link fragment."""
        return list(self._core.links())


def grid(
    axes: str | Sequence[str] | None = None,
    kinds: str | Sequence[str] | None = None,
    domains: str | Sequence[str] | None = None,
    sizes: str | Sequence[int] | None = None,
    samples: int | None = None,
    seed: int = 0,
    shard: str | tuple[int, int] | None = None,
) -> Grid:
    """A grid of tasks with ``cabrito grid``'s knobs and order: by default the paper's grid on every
    axis. ``shard=(k, n)`` (or ``"k/n"``) keeps shard k of n of the cells, as ``--shard``.

    Raises :class:`SpecError` with the CLI's message for a bad list, size, sample count or shard.
    """
    if samples is not None:
        samples = _int_arg("samples", samples, 1)
    return Grid(
        _core.grid(
            _list_text("axes", axes),
            _list_text("kinds", kinds),
            _list_text("domains", domains),
            _list_text("sizes", sizes),
            samples,
            _int_arg("seed", seed),
            _shard_text(shard),
        )
    )


def export_hf(
    out: str,
    axes: str | Sequence[str] | None = None,
    kinds: str | Sequence[str] | None = None,
    domains: str | Sequence[str] | None = None,
    sizes: str | Sequence[int] | None = None,
    samples: int | None = None,
    seed: int = 0,
    shard: str | tuple[int, int] | None = None,
) -> int:
    """Write a grid as a Hugging Face dataset folder (``cabrito export --format hf --out DIR``):
    ``data/test.jsonl`` and a dataset card, whole or not at all. ``datasets.load_dataset(out)``
    reads it; every row carries its task record, so ``grade(row, response)`` works on it.
    Returns the number of rows."""
    if samples is not None:
        samples = _int_arg("samples", samples, 1)
    return _core.export_hf(
        str(out),
        _list_text("axes", axes),
        _list_text("kinds", kinds),
        _list_text("domains", domains),
        _list_text("sizes", sizes),
        samples,
        _int_arg("seed", seed),
        _shard_text(shard),
    )


# ------------------------------------------------------------------------------------------------
# Checking and grading


def _task_json(task: TaskLike) -> str:
    """The task record behind any of the forms :data:`TaskLike` names, as JSON text."""
    if isinstance(task, str):
        return task
    if not isinstance(task, Mapping):
        raise TypeError(f"the task must be a task record (a dict) or its JSON text, not {type(task).__name__}")
    record = task.get("record")
    if isinstance(record, str):  # a row of an exported dataset
        return record
    meta = task.get("metadata")
    if isinstance(meta, Mapping) and isinstance(meta.get("record"), Mapping):  # a create_dataset entry
        return json.dumps(meta["record"])
    try:
        return json.dumps(dict(task))
    except (TypeError, ValueError) as e:
        raise TypeError(f"the task record cannot be written as JSON: {e}") from None


def check(
    task: TaskLike,
    response: Response,
    *,
    kind: str | None = None,
    domain: str | None = None,
    axis: str | None = None,
) -> dict[str, Any]:
    """The static rubric of a response, without running it: what ``cabrito check --json`` prints.

    ``response`` may be a ``# === solution.py ===`` file block, a bare Python file or a unified diff
    (``bytes`` are decoded as Python reads a source file). ``kind``, ``domain`` and ``axis`` override
    the record's, as the CLI's flags do. The result's ``passed`` is True when every must-have item
    passes; ``items`` lists each rubric item with its reason.
    """
    return json.loads(_core.check_json(_task_json(task), response, kind, domain, axis))


def grade(
    task: TaskLike,
    response: Response,
    trials: int = DEFAULT_TRIALS,
    *,
    call_timeout: float = 2.0,
    kind: str | None = None,
    domain: str | None = None,
    axis: str | None = None,
) -> dict[str, Any]:
    """Grade a response by running it: the record ``cabrito grade`` writes for it, from the same
    runner and sandbox (a fresh ``python3`` per run, never this interpreter). ``score`` is 1 when
    every required check passes; ``results`` holds each check with its message.

    Raises :class:`GradeUnavailable` when this machine has no ``python3`` with numpy to run code in.
    """
    if isinstance(trials, bool) or not isinstance(trials, int):
        raise TypeError(f"trials takes an integer, not {type(trials).__name__}")
    if isinstance(call_timeout, bool) or not isinstance(call_timeout, (int, float)):
        raise TypeError(f"call_timeout takes a number of seconds, not {type(call_timeout).__name__}")
    return json.loads(
        _core.grade_json(_task_json(task), response, trials, float(call_timeout), kind, domain, axis)
    )


# ------------------------------------------------------------------------------------------------
# reasoning-gym's convention


def _cells_of(preset: str) -> list[list[tuple[str, str]]]:
    """The cells (specs without their seed) a preset names: ``"paper"`` (every axis), an axis,
    a kind, ``"<axis>/<kind>"``, or a kind's own grid (``"merge"``, ``"renaming"``)."""
    axes, kinds = None, None
    if preset == "paper":
        pass
    elif "/" in preset:
        axes, kinds = preset.split("/", 1)
    elif preset in KINDS:
        kinds = preset
    else:
        axes = preset
    try:
        links = _core.grid(axes, kinds, None, None, 1, 0, None).links()
    except SpecError as e:
        raise SpecError(
            f"unknown preset '{preset}': {e}; a preset is 'paper', an axis, a kind, '<axis>/<kind>' or a kind's own grid"
        ) from None
    return [[(k, v) for k, v in urllib.parse.parse_qsl(link.split("?", 1)[1]) if k not in ("seed", "v")] for link in links]


class Dataset(Sequence[dict[str, Any]]):
    """A procedural dataset in reasoning-gym's shape: ``len``, indexing and iteration give entries
    ``{"question", "answer", "metadata"}``; :meth:`score_answer` grades an answer to one.

    Entry ``i`` is cell ``i mod C`` of the preset's ``C`` cells with seed ``seed + i div C`` (a spec
    dict has one cell), so every prefix of the dataset mixes the cells evenly. Entries are generated
    when first read."""

    def __init__(self, cells: list[list[tuple[str, str]]], size: int, seed: int, name: str) -> None:
        self._cells = cells
        self.size = size
        self.seed = seed
        self.name = name
        self._cache: dict[int, dict[str, Any]] = {}

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, Any]:  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]  # type: ignore[return-value]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"dataset indices are integers, not {type(index).__name__}")
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} out of range for a dataset of {self.size}")
        if index not in self._cache:
            cell = self._cells[index % len(self._cells)]
            seed = self.seed + index // len(self._cells)
            pairs = [*cell, ("seed", str(seed))]
            record = json.loads(_core.generate_json(pairs, False))
            spec = record.get("spec", {})
            self._cache[index] = {
                "question": _llm_prompt(record),
                "answer": record["solution_code"],
                "metadata": {
                    "source_dataset": self.name,
                    "source_index": index,
                    "kind": spec.get("kind"),
                    "domain": spec.get("domain"),
                    "axis": spec.get("axis"),
                    "n": spec.get("n"),
                    "seed": seed,
                    "link": _core.link(pairs),
                    "record": record,
                },
            }
        return self._cache[index]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(self.size):
            yield self[i]

    def score_answer(self, answer: str | None, entry: Mapping[str, Any]) -> float:
        """1.0 when the answer passes the grader, else 0.0 (see :func:`score_answer`)."""
        return score_answer(answer, entry)


def _llm_prompt(record: Mapping[str, Any]) -> str:
    """The whole prompt a model is given (the CLI's ``llm_prompt.md``, ``cabrito solve``'s prompt)."""
    return _core.llm_prompt(record["prompt"], record["starter_code"])


def create_dataset(spec: str | Mapping[str, object] = "paper", size: int = 500, seed: int = 0) -> Dataset:
    """reasoning-gym's ``create_dataset``: ``size`` entries ``{question, answer, metadata}``.

    ``spec`` is a preset (``"paper"``, an axis such as ``"traversal"``, a kind such as
    ``"dead_code"``, ``"<axis>/<kind>"``, or ``"merge"``/``"renaming"``) or a dict of knobs without
    a seed (``{"kind": "cache_function", "axis": "search", "n": 50}``). ``answer`` is the reference
    solution; :func:`score_answer` grades any answer."""
    size = _int_arg("size", size, 0)
    seed = _int_arg("seed", seed)
    if isinstance(spec, str):
        cells = _cells_of(spec)
        name = f"cabrito/{spec}"
    elif isinstance(spec, Mapping):
        if "seed" in spec:
            raise SpecError("give the dataset's seed as create_dataset(..., seed=), not in the spec")
        pairs = _pairs(spec)
        _core.link(pairs)  # the spec's knobs are checked now, not at the first entry
        cells = [pairs]
        name = "cabrito"
    else:
        raise TypeError(f"spec takes a preset name or a dict of knobs, not {type(spec).__name__}")
    if seed + (size // max(len(cells), 1)) > 2**64 - 1:
        raise SpecError("seed + size overflows a 64-bit seed")
    return Dataset(cells, size, seed, name)


def score_answer(answer: str | None, entry: Mapping[str, Any]) -> float:
    """reasoning-gym's ``score_answer``: 1.0 when ``answer`` passes the grader on ``entry`` (a
    :func:`create_dataset` entry, a dataset row or a task record), else 0.0. A missing or
    unreadable answer scores 0.0; a machine that cannot grade raises :class:`GradeUnavailable`."""
    if not isinstance(answer, (str, bytes)) or not answer:
        return 0.0
    try:
        verdict = grade(entry, answer)
    except ResponseError:
        return 0.0
    return float(verdict.get("score", 0))


# ------------------------------------------------------------------------------------------------
# Comparisons


def mcnemar(only_a: int, only_b: int) -> float:
    """The two-sided exact McNemar p-value of the tasks solved by one model only."""
    return _core.mcnemar(_int_arg("only_a", only_a), _int_arg("only_b", only_b))


def compare_paired(
    a: Mapping[str, bool] | Sequence[bool],
    b: Mapping[str, bool] | Sequence[bool],
    resamples: int = 10_000,
    seed: int = 0,
) -> dict[str, Any]:
    """Paired comparison of two models on the same tasks (B against A): per task who solved it,
    the counts solved by one only, the exact McNemar p-value, and the accuracy difference B − A
    with a 95% paired bootstrap interval (seeded, so the same inputs give the same interval).

    ``a`` and ``b`` map task keys to solved (only keys in both count), or are equal-length lists."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        keys = [k for k in a if k in b]
        pairs = [(bool(a[k]), bool(b[k])) for k in keys]
    elif isinstance(a, Sequence) and isinstance(b, Sequence) and not isinstance(a, (str, bytes)):
        if len(a) != len(b):
            raise SpecError(f"a and b hold {len(a)} and {len(b)} outcomes; a paired comparison needs the same tasks")
        keys = list(range(len(a)))
        pairs = [(bool(x), bool(y)) for x, y in zip(a, b)]
    else:
        raise TypeError("a and b take two dicts (task -> solved) or two lists of outcomes")
    out = json.loads(_core.paired_json(pairs, _int_arg("resamples", resamples), _int_arg("seed", seed)))
    out["per_task"] = [{"task": k, "a": x, "b": y} for k, (x, y) in zip(keys, pairs)]
    return out


def frontier(results: Mapping[float, tuple[int, int]] | Iterable[tuple[float, bool]]) -> dict[str, Any]:
    """The capability frontier of one model on one axis: a logistic fit of success against ln n
    and ``n50``, the n at which fitted success falls to 50%, with its 95% interval (delta method).

    ``results`` maps n to ``(passed, tasks)`` or lists ``(n, solved)`` per task. ``status`` is
    ``"crosses"`` (with ``n50`` and ``interval``), or says why there is no crossing inside the sizes
    tested: ``"above"``, ``"below"``, ``"no_decline"``, ``"step"`` or ``"too_few_sizes"``."""
    groups: dict[float, list[int]] = {}
    if isinstance(results, Mapping):
        for n, (passed, tasks) in results.items():
            groups[float(n)] = [int(passed), int(tasks)]
    else:
        for n, solved in results:
            g = groups.setdefault(float(n), [0, 0])
            g[0] += int(bool(solved))
            g[1] += 1
    for n, (passed, tasks) in groups.items():
        if not (n > 0 and math.isfinite(n)) or passed < 0 or tasks < 0:
            raise SpecError(f"sizes are positive and counts non-negative, got n = {n}: {passed} of {tasks}")
    return json.loads(_core.frontier_json([(n, p, t) for n, (p, t) in sorted(groups.items())]))


# ------------------------------------------------------------------------------------------------
# verifiers


def load_environment(
    kind: str = "add_parameter",
    axis: str = "traversal",
    n: int = 25,
    size: int = 50,
    seed: int = 0,
    domain: str | None = None,
    **knobs: object,
) -> Any:
    """A ``verifiers`` environment over Cabrito tasks (``verifiers.load_environment("cabrito", …)``
    finds it): single-turn, rows with ``prompt``/``answer``/``info``, reward 1.0 when the grader
    passes the completion and 0.0 otherwise."""
    from .verifiers_env import load_environment as load

    return load(kind=kind, axis=axis, n=n, size=size, seed=seed, domain=domain, **knobs)
