"""Change points (analysis/changepoint.py) on reference data, and the report's Over time
section that marks them on a configuration's runs."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from cephbench.analysis.changepoint import change_points, noise_sigma, segments
from tests.helpers import invoke, store_run

DATA = Path(__file__).parents[1] / "data" / "changepoint"


def test_nile_has_the_one_change_of_the_literature():
    values = json.loads((DATA / "nile.json").read_text())["values"]
    expected = json.loads((DATA / "nile.expected.json").read_text())
    assert len(values) == expected["n"] and sum(values) / len(values) == expected["mean"]
    found = change_points(values)
    assert [(c.index, c.before, c.after) for c in found] == [
        (e["index"], e["before"], e["after"]) for e in expected["change_points"]
    ]
    assert 1871 + found[0].index == expected["change_points"][0]["year"]


def _noisy(levels: list[tuple[int, float]], sd: float, seed: int) -> list[float]:
    rnd = random.Random(seed)
    return [level + rnd.gauss(0, sd) for n, level in levels for _ in range(n)]


@pytest.mark.parametrize("seed", range(5))
def test_steps_are_found_where_they_are(seed):
    one = _noisy([(15, 1000), (15, 800)], 20, seed)
    assert [c.index for c in change_points(one)] == [15]
    two = _noisy([(12, 1000), (10, 1150), (12, 900)], 20, seed)
    assert [c.index for c in change_points(two)] == [12, 22]
    flat = _noisy([(40, 1000)], 20, seed)
    assert change_points(flat) == []


def test_one_odd_run_and_a_two_run_blip_are_not_levels():
    series = [1000.0 + (5 if i % 2 else -5) for i in range(20)]
    odd = list(series)
    odd[10] = 1040  # 4 sigma or so, once
    assert change_points(odd) == []
    shifted = [*series, 1100, 1100, 1100]  # a new level, three runs long
    assert [c.index for c in change_points(shifted)] == [20]


def test_degenerate_series():
    assert segments([]) == []
    assert change_points([5.0] * 30) == []  # constant: no noise, no change
    assert change_points([1.0, 2.0, 3.0, 4.0, 5.0]) == []  # too short for two segments
    step = [1.0] * 10 + [2.0] * 10  # noiseless step: sigma from the differences' spread
    assert noise_sigma(step) > 0 and [c.index for c in change_points(step)] == [10]
    assert change_points([1.0] * 10 + [2.0] * 10)[0].pct == 100.0


def _optimal_cost(x: list[float], min_size: int, beta: float) -> float:
    """Optimal partitioning by brute dynamic programming (no pruning): PELT must match it."""
    sigma = noise_sigma(x)
    z = [v / sigma for v in x]

    def cost(a: int, b: int) -> float:
        seg = z[a:b]
        m = sum(seg) / len(seg)
        return sum((v - m) ** 2 for v in seg)

    best = [math.inf] * (len(z) + 1)
    best[0] = -beta
    for t in range(min_size, len(z) + 1):
        best[t] = min(
            best[s] + cost(s, t) + beta
            for s in range(0, t - min_size + 1)
            if s == 0 or s >= min_size
        )
    return best[-1]


@pytest.mark.parametrize("seed", range(4))
def test_pelt_finds_the_optimal_segmentation(seed):
    x = _noisy([(9, 100), (7, 130), (11, 95), (8, 110)], 8, seed)
    beta = 3 * math.log(len(x))
    sigma = noise_sigma(x)
    segs = segments(x)
    found = sum(
        sum((v / sigma - s.mean / sigma) ** 2 for v in x[s.start : s.end]) for s in segs
    ) + beta * (len(segs) - 1)
    assert found == pytest.approx(_optimal_cost(x, 3, beta), rel=1e-9)


def test_report_marks_a_change_over_time(db, tmp_path):
    """Six nightly runs of one workload, the last three 30 % slower: the report's Over time
    section tables the change (one per metric) and charts it."""
    for day, iops in enumerate([1000, 1010, 990, 700, 690, 705], start=1):
        store_run(
            db,
            "nightly",
            [[iops, 1, 1, 1]],
            skip=("seq_rd", "rand_rd", "rand_wr"),
            started_at=f"2024-05-{day:02d}T03:00:00+00:00",
        )
    out = tmp_path / "nightly.md"
    invoke("report", "--label", "nightly", "--since", "2024-05-01", "-o", str(out), db=db)
    text = out.read_text()
    section = text[text.index("## Over time") : text.index("## Results")]
    assert "1 change points" not in section and "4 change points" in section  # one per metric
    assert (
        "| seq_wr (write) | IOPS | #4 (2024-05-04) | 1,000 IO/s | 698.3 IO/s | -30.2% | worse |"
        in (section)
    )
    assert "![nightly: seq\\_wr (write): run by run](nightly_files/trend-00.png)" in section
    assert (tmp_path / "nightly_files" / "trend-00.png").stat().st_size > 10_000
