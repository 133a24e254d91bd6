"""Shared by the Python package's tests: the `cabrito` CLI they compare against, the reference
fixtures, and a guard that skips locally but fails under CI when something a test needs is missing
(as tests/guard does for the Rust tests)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def under_ci() -> bool:
    return os.environ.get("CI", "") not in ("", "0", "false")


def cannot_run(why: str) -> None:
    if under_ci():
        pytest.fail(f"{why} (CI is set, so this fails instead of skipping)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `cabrito` binary of this tree (CABRITO_BIN, else target/debug/cabrito, built if missing)."""
    given = os.environ.get("CABRITO_BIN")
    path = Path(given) if given else ROOT / "target" / "debug" / "cabrito"
    if not path.exists():
        subprocess.run(["cargo", "build", "--quiet", "--bin", "cabrito"], cwd=ROOT, check=True)
    return path


def run_cli(cli: Path, *args: str, check: bool = True, **kw) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([str(cli), *args], capture_output=True, text=True, **kw)
    if check and out.returncode != 0:
        raise AssertionError(f"cabrito {' '.join(args)} exited {out.returncode}: {out.stderr}")
    return out


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The reference's fixtures (../shared/fixtures/cabra-reference, or CABRITO_FIXTURES)."""
    given = os.environ.get("CABRITO_FIXTURES")
    path = Path(given) if given else ROOT.parent / "shared" / "fixtures" / "cabra-reference"
    if not path.is_dir():
        cannot_run(f"these tests need the reference fixtures, and {path} is missing")
    return path


def gunzip_json(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def layout(fixtures: Path, bucket: str, root: Path, limit: int | None = None) -> list[tuple[Path, dict, dict]]:
    """Lay a fixture bucket out in the reference's layout under `root` (tasks/<run>/<set>/<type>.json
    and responses/<run>/<set>/<type>/code/{solution,starter}.jsonl). Returns (task file, record,
    response) for each response kept (at most `limit` tasks)."""
    manifest = json.loads((fixtures / "manifest.json").read_text())
    run = manifest[bucket]["run_name"]
    records: dict[str, tuple[Path, dict]] = {}
    for set_dir in sorted((fixtures / bucket / "tasks").iterdir()):
        for f in sorted(set_dir.iterdir()):
            task_type = f.name.split(".")[0]
            dest = root / "tasks" / run / set_dir.name / f"{task_type}.json"
            dest.parent.mkdir(parents=True, exist_ok=True)
            recs = gunzip_json(f)
            dest.write_text(json.dumps(recs))
            for r in recs:
                records[r["name"]] = (dest, r)
    keep = sorted(records)[:limit] if limit else sorted(records)
    out = []
    for which in ("solution", "starter"):
        with gzip.open(fixtures / bucket / "responses" / f"{which}.jsonl.gz", "rt", encoding="utf-8") as f:
            for line in f:
                resp = json.loads(line)
                if resp["name"] not in keep:
                    continue
                d = root / "responses" / run / resp["task_set"] / resp["task_type"] / "code"
                d.mkdir(parents=True, exist_ok=True)
                with open(d / f"{which}.jsonl", "a", encoding="utf-8") as w:
                    w.write(json.dumps(resp) + "\n")
                path, rec = records[resp["name"]]
                out.append((path, rec, {**resp, "which": which}))
    return out


@pytest.fixture
def no_python3_path(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds no python3 (for the 'cannot grade here' error)."""
    env = dict(os.environ)
    env["PATH"] = str(tmp_path / "empty-bin")
    (tmp_path / "empty-bin").mkdir()
    assert shutil.which("python3", path=env["PATH"]) is None
    return env
