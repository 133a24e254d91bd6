"""Typed stubs of the native module (crates/py/src/lib.rs). Values cross as JSON text; the package
(`cabrito/__init__.py`) parses them."""

from collections.abc import Iterator
from os import PathLike

class CabritoError(Exception):
    """Every error of the cabrito package."""

class SpecError(CabritoError):
    """A spec, knob or grid that cannot be generated (the CLI's usage errors)."""

class TaskError(CabritoError):
    """A task record that cannot be read (missing fields, unknown kind)."""

class ResponseError(CabritoError):
    """A response that cannot be read (too large, undecodable bytes)."""

class GradeUnavailable(CabritoError):
    """Grading cannot run here (no python3 with numpy on PATH)."""

DEFAULT_TRIALS: int
MAX_TRIALS: int
DEFAULT_CALL_TIMEOUT_SECONDS: float

def version() -> str: ...
def generator_version() -> int: ...
def knobs() -> list[tuple[str, str, str, str | None]]: ...
def int_knobs() -> list[str]: ...
def choices(key: str) -> list[str]: ...
def generate_json(pairs: list[tuple[str, str]], pretty: bool = True) -> str: ...
def link(pairs: list[tuple[str, str]]) -> str: ...
def llm_prompt(statement: str, starter_code: str) -> str: ...

class Grid:
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def __next__(self) -> str: ...
    @property
    def skipped(self) -> list[str]: ...
    def links(self) -> list[str]: ...

def grid(
    axes: str | None = None,
    kinds: str | None = None,
    domains: str | None = None,
    sizes: str | None = None,
    samples: int | None = None,
    seed: int = 0,
    shard: str | None = None,
) -> Grid: ...
def export_hf(
    out: str | PathLike[str],
    axes: str | None = None,
    kinds: str | None = None,
    domains: str | None = None,
    sizes: str | None = None,
    samples: int | None = None,
    seed: int = 0,
    shard: str | None = None,
) -> int: ...
def check_json(
    task_json: str,
    response: str | bytes,
    kind: str | None = None,
    domain: str | None = None,
    axis: str | None = None,
) -> str: ...
def grade_json(
    task_json: str,
    response: str | bytes,
    trials: int = 50,
    call_timeout: float = 2.0,
    kind: str | None = None,
    domain: str | None = None,
    axis: str | None = None,
) -> str: ...
def paired_json(outcomes: list[tuple[bool, bool]], resamples: int = 10000, seed: int = 0) -> str: ...
def mcnemar(b: int, c: int) -> float: ...
def frontier_json(groups: list[tuple[float, int, int]]) -> str: ...
