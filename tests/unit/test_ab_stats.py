"""A/B rounds and verdicts (pure): the balanced order, paired statistics against scipy and
published power tables, the confidence sequence's coverage under monitoring, the summary."""

from __future__ import annotations

import math
import random
import re

import pytest
from scipy import stats as sps

from cephbench.errors import UsageError
from cephbench.model import Result
from cephbench.tuning import rounds, verdict
from cephbench.tuning.analyze import Round, analyze, summary_line


def test_the_order_is_abba_and_every_block_has_one_round_of_each_side():
    assert rounds.order(8) == "ABBAABBA"
    assert rounds.order(6) == "ABBAAB"
    assert rounds.blocks("ABBAAB") == [(0, 1), (3, 2), (4, 5)]
    with pytest.raises(ValueError):
        rounds.blocks("AABB")


@pytest.mark.parametrize("n", [4, 8, 12, 16])
def test_a_linear_drift_cancels_exactly_every_four_rounds(n):
    assert rounds.drift_weight(rounds.order(n)) == 0
    # and within a plain A B A B order it never would: every block carries +1 round of drift
    assert rounds.drift_weight("AB" * (n // 2)) == 1


def test_linear_drift_does_not_reach_the_paired_difference():
    def mean_diff(sides: str) -> float:
        values = [1000 + 20 * i + (100 if s == "B" else 0) for i, s in enumerate(sides)]
        pairs = rounds.blocks(sides)
        return sum(values[b] - values[a] for a, b in pairs) / len(pairs)

    assert mean_diff(rounds.order(8)) == 100
    assert mean_diff("AB" * 4) == 120  # A B A B: the drift poses as part of the effect


@pytest.mark.parametrize("bad", [2, 3, 5, 7])
def test_rounds_must_be_even_and_at_least_four(bad):
    with pytest.raises(UsageError, match="even number of at least 4"):
        rounds.check_rounds(bad)


def test_the_paired_test_is_scipys_ttest_rel_on_logs():
    a = [100, 110, 95, 105, 98]
    b = [108, 121, 99, 117, 104]
    t = verdict.paired(verdict.log_ratios(list(zip(a, b, strict=True))))
    ref = sps.ttest_rel(list(map(math.log, b)), list(map(math.log, a)))
    assert t is not None and t.p == pytest.approx(ref.pvalue, rel=1e-9)
    assert t.p == pytest.approx(0.0031749826808171937, rel=1e-9)  # recorded from scipy 1.x
    lo, hi = ref.confidence_interval(0.95)
    assert t.ci95 == pytest.approx((math.expm1(lo) * 100, math.expm1(hi) * 100))
    assert t.pct == pytest.approx(
        math.expm1(sum(map(math.log, b)) / 5 - sum(map(math.log, a)) / 5) * 100
    )


def test_sequential_intervals_are_wider_and_spend_alpha_over_n_n_minus_1():
    r = [0.1, 0.2, 0.15]
    fixed = verdict.paired(r)
    seq = verdict.paired(r, sequential=True)
    assert fixed is not None and seq is not None and fixed.ci95 and seq.ci95
    assert seq.ci95[0] < fixed.ci95[0] and seq.ci95[1] > fixed.ci95[1]
    assert verdict.spend(2) + verdict.spend(3) == pytest.approx(0.05 * (1 / 2 + 1 / 6))
    last = sps.ttest_1samp(r, 0).confidence_interval(1 - 0.05 / 6)
    assert seq.ci95[1] <= math.expm1(last.high) * 100 + 1e-9


def test_the_confidence_sequence_keeps_its_coverage_when_checked_after_every_block():
    rng = random.Random(7)
    misses_seq = misses_fixed = 0
    trials = 300
    for _ in range(trials):
        r = [rng.gauss(0, 0.05) for _ in range(20)]
        looks = [verdict.paired(r[:n]) for n in range(2, 21)]
        misses_fixed += any(t is not None and t.p is not None and t.p <= 0.05 for t in looks)
        anytime = verdict.paired(r, sequential=True)  # its p is the minimum over every look
        assert anytime is not None and anytime.p is not None
        misses_seq += anytime.p <= 0.05
    # peeking at a fixed-sample test 19 times makes "significant" far likelier than 5 %
    assert misses_fixed / trials > 0.15
    assert misses_seq / trials <= 0.05


@pytest.mark.parametrize(("d", "n"), [(1.0, 10), (0.5, 34)])
def test_blocks_needed_matches_the_paired_t_power_tables(d, n):
    # G*Power / R pwr.t.test(d, power = 0.8, type = "paired"): 10 pairs at d = 1, 34 at d = 0.5
    assert verdict.blocks_needed(d * 0.1, 0.1) == n


def test_more_rounds_counts_two_rounds_per_missing_block():
    t = verdict.paired([0.05, -0.02, 0.04, 0.01])
    assert t is not None and t.sd_log is not None
    need = verdict.blocks_needed(t.mean_log, t.sd_log)
    assert need is not None and verdict.more_rounds(t) == max(1, need - 4) * 2
    assert verdict.more_rounds(verdict.paired([0.0, 0.0])) is None  # type: ignore[arg-type]


def _result(workload: str, iops: float) -> Result:
    return Result(
        workload=workload,
        repeat=0,
        op="read",
        bs=4096,
        iodepth=1,
        numjobs=1,
        runtime_s=1.0,
        iops=iops,
        bw_bytes_per_s=iops * 4096,
        lat_mean_us=1e6 / iops,
    )


def test_analysis_pairs_blocks_corrects_across_cells_and_says_it_in_one_line():
    rng = random.Random(3)
    played = []
    for i, side in enumerate(rounds.order(12)):
        drift = 1 + 0.01 * i
        seq = 1000 * drift * (1.12 if side == "B" else 1.0) * rng.uniform(0.99, 1.01)
        rnd = 500 * drift * rng.uniform(0.9, 1.1)
        played.append(Round(i, side, i + 1, (_result("seq_rd", seq), _result("rand_wr", rnd))))
    rows = analyze(played)
    iops = {r.workload: r for r in rows if r.metric.key == "iops"}
    assert iops["seq_rd"].verdict() == "better"
    assert iops["seq_rd"].test is not None and 10 < iops["seq_rd"].test.pct < 14
    # ±10 % noise, no effect, 6 blocks: not significant, and the CI is wider than ±5 %
    assert iops["rand_wr"].verdict() == "inconclusive" and iops["rand_wr"].more_rounds
    lat = next(r for r in rows if r.workload == "seq_rd" and r.metric.key == "lat_mean_us")
    assert lat.verdict() == "better"  # lower latency is better
    line = summary_line(rows, "tuned")
    assert re.match(r"tuned is better on 1 of 2 workloads \(\+1[0-4] % seq_rd ±\d %\)", line)
    assert re.search(r"inconclusive on rand_wr \(resolves ±\d+ %\); about \d+ more rounds", line)


def test_the_report_shows_verdicts_points_per_round_changes_and_the_summary():
    from cephbench.tuning.analyze import row_json
    from cephbench.tuning.report import tables

    played = [
        Round(i, side, i + 1, (_result("rand_rd", 1000 + 10 * i + (50 if side == "B" else 0)),))
        for i, side in enumerate(rounds.order(4))
    ]
    rows = analyze(played)
    doc = {
        "columns": [{"key": "a", "name": "A"}, {"key": "b", "name": "nocache"}],
        "rows": [row_json(r) for r in rows],
        "rounds": [{"round": i + 1, "side": s, "run_id": i + 1} for i, s in enumerate("ABBA")],
        "changes": {"a": [], "b": ["ceph config set client rbd_cache false"]},
        "reverted": [{"setting": "config client rbd_cache", "value": "true", "verified": True}],
        "order": "ABBA",
        "test": "paired",
        "sequential": None,
        "summary": summary_line(rows, "nocache"),
    }
    found, lines = tables(doc)
    assert [t.title.split(" (")[0] for t in found][-1] == "IOPS per round"
    assert [r[:3] for r in found[-1].rows] == [
        ("1", "A", "#1"),
        ("2", "nocache", "#2"),
        ("3", "nocache", "#3"),
        ("4", "A", "#4"),
    ]
    assert found[-1].rows[1][3] == "1060"  # round 2's own point, as measured (as show prints it)
    assert "restored config client rbd_cache = true (verified)" in lines
    assert lines[-1] == doc["summary"] and lines[0] == "A: (the configuration as found)"
    assert not any(line.startswith("Note:") for line in lines)  # ABBA: a drift cancels
    six = {**doc, "order": "ABBAAB"}
    note = next(line for line in tables(six)[1] if line.startswith("Note:"))
    assert note.startswith("Note: with 3 blocks a steady drift does not cancel: 0.33 of one")
