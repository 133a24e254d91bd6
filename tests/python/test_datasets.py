"""`cabrito export --format hf` and `cabrito.export_hf` write the same Hugging Face dataset folder,
whole or not at all, and `datasets.load_dataset` reads it with what scoring needs."""

from __future__ import annotations

import json

import datasets
import pytest

import cabrito
from conftest import run_cli

GRID = dict(axes="traversal,instructions,merge", kinds="add_parameter,merge_codebases", domains="math,array", sizes="5,10", samples=2, seed=5)


def flags(args: dict) -> list[str]:
    return [a for k, v in args.items() for a in (f"--{k}", str(v))]


def test_the_cli_and_python_write_the_same_dataset(cli, tmp_path):
    run_cli(cli, "export", "--format", "hf", "--out", str(tmp_path / "cli"), *flags(GRID))
    rows = cabrito.export_hf(tmp_path / "py", **GRID)
    for name in ("README.md", "data/test.jsonl"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes(), name
    lines = (tmp_path / "py" / "data" / "test.jsonl").read_text().splitlines()
    assert rows == len(lines) == len(cabrito.grid(**GRID)) > 0
    # The rows are the grid's tasks, in its order.
    assert [json.loads(json.loads(line)["record"]) for line in lines] == list(cabrito.grid(**GRID))


def test_load_dataset_reads_it_and_a_row_can_be_graded(tmp_path):
    out = tmp_path / "ds"
    n = cabrito.export_hf(out, **GRID)
    ds = datasets.load_dataset(str(out), split="test")
    assert len(ds) == n
    assert set(ds.column_names) >= {"id", "kind", "domain", "axis", "n", "seed", "question", "starter_code", "solution_code", "record"}
    assert ds.features["n"].dtype == "int64"
    card = (out / "README.md").read_text()
    for needed in ("license: mit", "generator version", "| samples | 2 |", "`record`"):
        assert needed in card
    kinds = set(ds["kind"])
    assert kinds == {"add_parameter", "merge_codebases"}
    for kind in kinds:
        row = next(r for r in ds if r["kind"] == kind)
        assert cabrito.grade(row, row["solution_code"], trials=3)["score"] == 1
        assert cabrito.grade(row, row["starter_code"], trials=3)["score"] == 0
        assert cabrito.check(row, row["solution_code"])["passed"]


def test_an_export_is_whole_or_not_at_all(cli, tmp_path):
    # Bad knobs: nothing is written.
    out = tmp_path / "bad"
    with pytest.raises(cabrito.SpecError):
        cabrito.export_hf(out, axes="sideways")
    r = run_cli(cli, "export", "--format", "hf", "--out", str(out), "--sizes", "5,x", check=False)
    assert r.returncode == 2 and not out.exists()
    assert list(tmp_path.iterdir()) == []
    # An existing folder with something in it is never overwritten.
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    with pytest.raises(cabrito.SpecError, match="exists"):
        cabrito.export_hf(full, axes="search", kinds="dead_code", domains="math", sizes="5", samples=1)
    assert [p.name for p in full.iterdir()] == ["keep.txt"]
    # An empty one is filled.
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cabrito.export_hf(empty, axes="search", kinds="dead_code", domains="math", sizes="5", samples=1) == 1
    # A seed Arrow cannot hold is refused before anything is written.
    with pytest.raises(cabrito.SpecError, match="int64"):
        cabrito.export_hf(tmp_path / "big", axes="search", kinds="dead_code", sizes="5", samples=1, seed=2**63)
    assert not (tmp_path / "big").exists()
    r = run_cli(cli, "export", "--format", "parquet", "--out", str(tmp_path / "pq"), check=False)
    assert r.returncode == 2 and "allowed: hf" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "full"], "no partial folder is left behind"
