"""The paired comparison and the capability frontier against values computed independently (scipy
and hand-worked examples) on synthetic results with a known answer."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import optimize, stats

import cabrito


@pytest.mark.parametrize("b, c", [(0, 0), (1, 6), (6, 1), (5, 5), (0, 12), (13, 40), (120, 95), (0, 1500), (700, 800)])
def test_mcnemar_is_scipys_exact_binomial_test(b, c):
    expected = 1.0 if b + c == 0 else stats.binomtest(min(b, c), b + c, 0.5).pvalue
    assert cabrito.mcnemar(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def synthetic_pairs(seed: int, tasks: int, pa: float, pb: float) -> tuple[list[bool], list[bool]]:
    rng = random.Random(seed)
    a = [rng.random() < pa for _ in range(tasks)]
    # B solves what A solves most of the time, plus more: correlated, as two models on one task set are.
    b = [(x and rng.random() < 0.9) or (not x and rng.random() < (pb - 0.9 * pa) / (1 - pa)) for x in a]
    return a, b


def test_paired_counts_difference_and_p_value():
    a, b = synthetic_pairs(1, 400, 0.5, 0.65)
    out = cabrito.compare_paired(a, b, resamples=4000, seed=3)
    both = sum(x and y for x, y in zip(a, b))
    only_a = sum(x and not y for x, y in zip(a, b))
    only_b = sum(y and not x for x, y in zip(a, b))
    assert (out["tasks"], out["both"], out["only_a"], out["only_b"]) == (400, both, only_a, only_b)
    assert out["neither"] == 400 - both - only_a - only_b
    assert out["diff"] == pytest.approx((sum(b) - sum(a)) / 400)
    assert out["p_value"] == pytest.approx(stats.binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue, rel=1e-9)
    assert len(out["per_task"]) == 400 and out["per_task"][0] == {"task": 0, "a": a[0], "b": b[0]}
    # The same seed, the same interval; another seed, close to it.
    assert cabrito.compare_paired(a, b, resamples=4000, seed=3)["interval"] == out["interval"]


def test_the_paired_bootstrap_interval_matches_scipys():
    a, b = synthetic_pairs(2, 300, 0.4, 0.55)
    out = cabrito.compare_paired(a, b, resamples=20000, seed=1)
    x, y = np.array(a, dtype=float), np.array(b, dtype=float)
    ref = stats.bootstrap(
        (x, y), lambda u, v, axis=-1: np.mean(v, axis=axis) - np.mean(u, axis=axis), paired=True,
        vectorized=True, n_resamples=20000, method="percentile", random_state=np.random.default_rng(5),
    ).confidence_interval
    lo, hi = out["interval"]
    # Two Monte Carlo estimates of the same percentiles (different random streams): within 0.01.
    assert lo == pytest.approx(ref.low, abs=0.01) and hi == pytest.approx(ref.high, abs=0.01)
    # And the normal approximation of a paired difference agrees roughly too.
    d = y - x
    se = d.std(ddof=1) / math.sqrt(len(d))
    assert lo == pytest.approx(d.mean() - 1.96 * se, abs=0.015) and hi == pytest.approx(d.mean() + 1.96 * se, abs=0.015)


def test_paired_by_task_key_uses_only_shared_tasks():
    a = {"t1": True, "t2": False, "t3": True, "only-a": True}
    b = {"t1": True, "t2": True, "t3": False, "only-b": False}
    out = cabrito.compare_paired(a, b, resamples=100)
    assert (out["tasks"], out["both"], out["only_a"], out["only_b"]) == (3, 1, 1, 1)
    assert [t["task"] for t in out["per_task"]] == ["t1", "t2", "t3"]
    with pytest.raises(cabrito.SpecError):
        cabrito.compare_paired([True], [True, False])
    with pytest.raises(TypeError):
        cabrito.compare_paired("ab", "ab")


def logistic_data(a: float, b: float, sizes, per: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for n in sizes:
        p = 1 / (1 + math.exp(-(a + b * math.log(n))))
        out += [(n, bool(s)) for s in rng.random(per) < p]
    return out


def scipy_fit(data):
    x = np.array([math.log(n) for n, _ in data])
    y = np.array([float(s) for _, s in data])

    def nll(theta):
        t = theta[0] + theta[1] * x
        return np.sum(np.logaddexp(0, t) - y * t)

    res = optimize.minimize(nll, x0=[0.0, 0.0], method="BFGS", options={"gtol": 1e-10})
    a, b = res.x
    p = 1 / (1 + np.exp(-(a + b * x)))
    w = p * (1 - p)
    info = np.array([[w.sum(), (w * x).sum()], [(w * x).sum(), (w * x * x).sum()]])
    return a, b, np.linalg.inv(info)


def test_the_frontier_is_the_maximum_likelihood_fit():
    # Success falls from about 90% at n = 5 to about 10% at n = 200; the true n50 is exp(4 / 1.2) ≈ 28.
    data = logistic_data(4.0, -1.2, [5, 10, 25, 50, 100, 200], 60, seed=9)
    out = cabrito.frontier(data)
    a, b, cov = scipy_fit(data)
    fit = out["fit"]
    assert fit["intercept"] == pytest.approx(a, abs=1e-4) and fit["slope"] == pytest.approx(b, abs=1e-4)
    assert fit["var_intercept"] == pytest.approx(cov[0, 0], rel=1e-3)
    assert fit["var_slope"] == pytest.approx(cov[1, 1], rel=1e-3)
    assert fit["cov"] == pytest.approx(cov[0, 1], rel=1e-3)
    assert out["status"] == "crosses"
    n50 = math.exp(-a / b)
    assert out["n50"] == pytest.approx(n50, rel=1e-4)
    # The delta method on ln n50, computed here from scipy's fit.
    g = np.array([-1 / b, a / b**2])
    se = math.sqrt(g @ cov @ g)
    lo, hi = out["interval"]
    assert lo == pytest.approx(math.exp(math.log(n50) - 1.959964 * se), rel=1e-3)
    assert hi == pytest.approx(math.exp(math.log(n50) + 1.959964 * se), rel=1e-3)
    assert lo < math.exp(4 / 1.2) < hi, "the interval covers the true n50 on this data"
    # Counts give the same fit as per-task outcomes.
    counts = {}
    for n, s in data:
        c = counts.setdefault(n, [0, 0])
        c[0] += s
        c[1] += 1
    assert cabrito.frontier({n: tuple(c) for n, c in counts.items()})["n50"] == pytest.approx(out["n50"], rel=1e-9)


def test_a_hand_worked_frontier():
    # 3 of 4 at n = 10, 1 of 4 at n = 100: the fit passes through both, so n50 = sqrt(10 · 100).
    out = cabrito.frontier({10: (3, 4), 100: (1, 4)})
    assert out["n50"] == pytest.approx(10**1.5, rel=1e-9)
    assert out["fit"]["slope"] == pytest.approx(-2 * math.log(3) / math.log(10), rel=1e-9)


@pytest.mark.parametrize(
    "results, status",
    [
        ({5: (10, 10), 10: (10, 10), 25: (10, 10)}, "above"),
        ({5: (20, 20), 25: (19, 20), 200: (16, 20)}, "above"),
        ({5: (0, 10), 10: (0, 10)}, "below"),
        ({5: (2, 10), 50: (8, 10)}, "no_decline"),
        ({5: (10, 10), 10: (10, 10), 25: (0, 10), 50: (0, 10)}, "step"),
        ({5: (3, 10)}, "too_few_sizes"),
        ({}, "too_few_sizes"),
    ],
)
def test_curves_that_never_cross_say_so(results, status):
    out = cabrito.frontier(results)
    assert out["status"] == status
    assert out["n50"] is None and out["describe"]
    if status == "step":
        assert out["step"] == [10.0, 25.0]


def test_frontier_refuses_nonsense():
    with pytest.raises(cabrito.SpecError):
        cabrito.frontier({5: (3, 2), 10: (1, 2)})
    with pytest.raises(cabrito.SpecError):
        cabrito.frontier({0: (1, 2), 10: (1, 2)})
    with pytest.raises(cabrito.SpecError):
        cabrito.frontier({float("nan"): (1, 2), 10: (1, 2)})
