"""Statistics: known inputs against scipy, and simulations of the false-positive rate (A/A)
and of the power to detect a 10 % change."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sst

from cephbench.analysis import stats
from cephbench.analysis.compare import compare, regressions
from cephbench.model import Result, Run

A = [1428.0, 1401.5, 1460.2, 1437.9, 1419.0]
B = [1510.3, 1550.0, 1498.7, 1602.4]


def test_summary_matches_scipy_t_interval():
    s = stats.summarize(A)
    assert s.mean == pytest.approx(np.mean(A))
    assert s.sd == pytest.approx(np.std(A, ddof=1))
    lo, hi = sst.t.interval(0.95, len(A) - 1, loc=np.mean(A), scale=sst.sem(A))
    assert s.ci95 == pytest.approx((lo, hi))
    assert s.cv == pytest.approx(np.std(A, ddof=1) / np.mean(A))


def test_single_sample_has_no_interval_and_no_test():
    assert stats.summarize([5.0]) == stats.Summary(1, 5.0, None, None)
    assert stats.welch([5.0], B) is None and stats.welch(A, [1.0]) is None


def test_welch_matches_scipy():
    ours = stats.welch(A, B)
    ref = sst.ttest_ind(B, A, equal_var=False)
    assert ours.p == pytest.approx(ref.pvalue, rel=1e-9)
    ci = ref.confidence_interval(0.95)
    assert ours.diff_ci95 == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_welch_with_constant_samples():
    assert stats.welch([3.0, 3.0], [3.0, 3.0]).p == 1.0
    assert stats.welch([3.0, 3.0], [4.0, 4.0]).p == 0.0


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=40))
def test_benjamini_hochberg_matches_scipy(pvalues):
    ours = stats.benjamini_hochberg(pvalues)
    assert ours == pytest.approx(list(sst.false_discovery_control(pvalues, method="bh")))
    assert all(adj >= p - 1e-12 for adj, p in zip(ours, pvalues, strict=True))


def test_pct_diff():
    assert stats.pct_diff(1428.0, 2280.0) == pytest.approx(59.6638655)
    assert stats.pct_diff(None, 1.0) is None and stats.pct_diff(0.0, 1.0) is None


def test_aa_false_positive_rate_is_near_nominal():
    """2000 A/A pairs (5 repeats each, CV 5 %): a 5 % test says 'significant' ~5 % of the time."""
    rng = np.random.default_rng(6)
    hits = sum(stats.welch(*rng.normal(1000, 50, (2, 5))).p <= 0.05 for _ in range(2000))
    assert 0.035 <= hits / 2000 <= 0.065  # ±3 binomial standard deviations


def test_ten_percent_shift_is_detected_with_six_repeats():
    """CV 5 %, a 10 % shift, 6 repeats a side: Welch detects it ~90 % of the time."""
    rng = np.random.default_rng(7)
    hits = sum(
        stats.welch(rng.normal(1000, 50, 6), rng.normal(1100, 55, 6)).p <= 0.05 for _ in range(1000)
    )
    assert hits / 1000 >= 0.8


def _run(run_id: int, label: str, iops: np.ndarray) -> Run:
    """A run of 4 workloads x len(iops) repeats; latency from Little's law (qd 16)."""
    results = tuple(
        Result(
            workload=f"w{w}",
            repeat=rep,
            op="read",
            bs=4096,
            iops=float(v),
            bw_bytes_per_s=float(v) * 4096,
            lat_mean_us=16e6 / v,
            lat_p99_us=48e6 / v,
        )
        for rep, row in enumerate(iops)
        for w, v in enumerate(row)
    )
    return Run(
        run_id, label, "quick", "file:/x", "complete", "2024-01-01T00:00:00+00:00", results=results
    )


def test_whole_comparison_aa_family_wise_rate_and_power():
    """Through compare(): 16 correlated cells per comparison, Benjamini–Hochberg across them.

    A/A: the share of comparisons with *any* significant cell stays near 5 %.
    A 10 % IOPS gain on every workload (6 repeats, CV 5 %): found in ~80 % of the cells.
    """
    rng = np.random.default_rng(8)
    any_fp = detected = 0
    trials = 200
    for _ in range(trials):
        a, b = (_run(i, n, rng.normal(1000, 50, (6, 4))) for i, n in ((1, "a"), (2, "b")))
        any_fp += any(r.diffs["2"].significant for r in compare([a, b]).rows)
        c = _run(3, "c", rng.normal(1100, 55, (6, 4)))
        rows = compare([a, c]).rows
        iops = [r for r in rows if r.metric.key == "iops"]
        detected += sum(r.verdict("3") == "better" for r in iops)
    assert any_fp / trials <= 0.08
    assert detected / (4 * trials) >= 0.75


def test_gate_on_a_shift_uses_direction():
    rng = np.random.default_rng(9)
    a = _run(1, "a", rng.normal(1000, 20, (6, 4)))
    slower = _run(2, "b", rng.normal(850, 17, (6, 4)))
    cmp = compare([a, slower])
    worse = {(r.workload, r.metric.key) for r, _ in regressions(cmp, 5.0)}
    assert worse == {
        (f"w{w}", m)
        for w in range(4)
        for m in ("iops", "bw_bytes_per_s", "lat_mean_us", "lat_p99_us")
    }
    assert regressions(compare([slower, a]), 5.0) == []
