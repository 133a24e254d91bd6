"""The Inspect tasks ``inspect eval cabrito/<axis>_<kind>`` finds (through the ``inspect_ai`` entry
point): one per scaling axis and kind built along it, plus ``cabrito/merge`` and
``cabrito/renaming`` for the kinds with a grid of their own. Task arguments (``-T n=50 -T size=10``):
``n``, ``size``, ``seed``, ``domain``, ``trials``."""

from __future__ import annotations

from typing import Any, Callable

from inspect_ai import Task, task

import cabrito
from cabrito.inspect import cabrito_task


def _cells() -> list[tuple[str, str | None, str]]:
    """(task name, axis, kind) of every registered task: each kind on each axis the grid builds it
    along, then the kinds with a grid of their own."""
    out: list[tuple[str, str | None, str]] = []
    for axis in cabrito.AXES:
        for kind in cabrito.KINDS:
            try:
                cabrito.grid(axes=axis, kinds=kind, sizes=[5], samples=1)
            except cabrito.SpecError:
                continue  # not built along this axis, or a kind with its own grid
            out.append((f"{axis}_{kind}", axis, kind))
    for own, kind in (("merge", "merge_codebases"), ("renaming", "variable_renaming")):
        out.append((own, None, kind))
    return out


def _make(name: str, axis: str | None, kind: str) -> Callable[..., Task]:
    def factory(
        n: int = 25,
        size: int = 20,
        seed: int = 0,
        domain: str | None = None,
        trials: int = cabrito.DEFAULT_TRIALS,
    ) -> Task:
        return cabrito_task(kind=kind, axis=axis, n=n, size=size, seed=seed, domain=domain, trials=trials)

    factory.__name__ = name
    factory.__qualname__ = name
    factory.__doc__ = f"Cabrito: {kind} along the {axis or kind} axis (the grader as scorer)."
    return factory


TASKS: dict[str, Any] = {}
for _name, _axis, _kind in _cells():
    TASKS[_name] = task(name=_name)(_make(_name, _axis, _kind))
    globals()[_name] = TASKS[_name]
