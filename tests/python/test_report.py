"""`cabrito report` shows the paired comparison and the capability frontier: on synthetic results with
a known answer its tables agree with scipy, and the frontier is drawn on the accuracy plot."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from conftest import run_cli

SIZES = [5, 10, 25, 50, 100, 200]


def write_results(cli, root: Path) -> dict[str, dict[tuple[str, str], bool]]:
    """Tasks of the traversal axis at the paper's sizes (8 per size), and two models' results on
    them: A's success falls with n along a logistic with n50 ≈ 28, B is A plus a fixed set of wins."""
    tasks = root / "tasks"
    run_cli(cli, "grid", "--out", str(tasks), "--axes", "traversal", "--kinds", "add_parameter", "--domains", "math", "--samples", "8")
    rng = np.random.default_rng(3)
    outcomes: dict[str, dict[tuple[str, str], bool]] = {"A": {}, "B": {}}
    for f in sorted((tasks / "tasks").rglob("*.json")):
        place = f.relative_to(tasks / "tasks").with_suffix("")
        run = place.parts[0]
        n = next(s for s in SIZES if f"_en=({s},{s})" in run)
        p = 1 / (1 + math.exp(-(4.0 - 1.2 * math.log(n))))
        for model in ("A", "B"):
            d = root / "results" / "results" / place / "code"
            d.mkdir(parents=True, exist_ok=True)
        lines = {"A": [], "B": []}
        for i, rec in enumerate(json.loads(f.read_text())):
            a = bool(rng.random() < p)
            b = a or bool(rng.random() < 0.3)
            if a and rng.random() < 0.1:
                b = False
            for model, ok in (("A", a), ("B", b)):
                outcomes[model][(rec["name"], str(n))] = ok
                lines[model].append(json.dumps({"name": rec["name"], "dag_id": rec["dag_id"], "parsed_ok": True, "score": int(ok), "summary": {}, "results": []}))
        for model in ("A", "B"):
            (root / "results" / "results" / place / "code" / f"{model}.jsonl").write_text("\n".join(lines[model]) + "\n")
    return outcomes


def test_report_tables_agree_with_scipy(cli, tmp_path):
    outcomes = write_results(cli, tmp_path)
    out = tmp_path / "report"
    run_cli(cli, "report", "--results", str(tmp_path / "results"), "--out", str(out), "--compare", "code/A,code/B")
    keys = sorted(outcomes["A"])
    a = [outcomes["A"][k] for k in keys]
    b = [outcomes["B"][k] for k in keys]
    [row] = list(csv.DictReader((out / "tables" / "paired.csv").open()))
    only_a = sum(x and not y for x, y in zip(a, b))
    only_b = sum(y and not x for x, y in zip(a, b))
    assert int(row["tasks"]) == len(keys) == 48
    assert (int(row["only_a"]), int(row["only_b"])) == (only_a, only_b)
    assert float(row["diff"]) == pytest.approx((sum(b) - sum(a)) / len(keys), abs=1e-4)
    assert float(row["mcnemar_p"]) == pytest.approx(stats.binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue, rel=1e-3)
    assert float(row["ci_low"]) < float(row["diff"]) < float(row["ci_high"])
    per_task = list(csv.DictReader((out / "tables" / "paired_tasks.csv").open()))
    assert len(per_task) == 48 and {r["solved_by"] for r in per_task} <= {"both", "a only", "b only", "neither"}

    frontier = {r["model"]: r for r in csv.DictReader((out / "tables" / "frontier.csv").open())}
    x = np.array([math.log(float(n)) for _, n in keys])
    y = np.array(a, dtype=float)
    res = optimize.minimize(lambda t: np.sum(np.logaddexp(0, t[0] + t[1] * x) - y * (t[0] + t[1] * x)), [0.0, 0.0], method="BFGS", options={"gtol": 1e-10})
    ia, sb = res.x
    assert float(frontier["code/A"]["intercept"]) == pytest.approx(ia, abs=2e-3)
    assert float(frontier["code/A"]["slope"]) == pytest.approx(sb, abs=2e-3)
    if frontier["code/A"]["n50"]:
        assert float(frontier["code/A"]["n50"]) == pytest.approx(math.exp(-ia / sb), rel=2e-3)
    else:
        assert "never crosses" in frontier["code/A"]["status"]

    page = (out / "index.html").read_text()
    assert "Capability frontier" in page and "Paired comparison" in page and "McNemar" in page
    svg = (out / "figures" / "accuracy.svg").read_text()
    assert svg.count('class="fit"') == 2, "one fitted curve per model on the traversal panel"
