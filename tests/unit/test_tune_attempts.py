"""Tune's attempt logic on hand-made rounds (edge cases): kept, reverted, the guard, the
Bonferroni correction, the chained difference to the first, the final row."""

from __future__ import annotations

import math

import pytest

from cephbench.tuning import rounds
from cephbench.tuning.attempts import Candidate, Measured, Plan, chained, diff, kept_changes, tune

WORKLOADS = ("rand_rd", "rand_wr")


def measured(blocks: list[dict[str, float]], base: float = 1000.0) -> Measured:
    """Rounds A B | B A ... where each block's B/A ratio per workload is given."""
    sides = rounds.order(2 * len(blocks))
    values = []
    for i, s in enumerate(sides):
        ratio = blocks[i // 2]
        values.append({w: base * (ratio[w] if s == "B" else 1.0) for w in ratio})
    return Measured(sides, tuple(values))


def blocks(n: int, **ratios: list[float] | float) -> list[dict[str, float]]:
    out = []
    for i in range(n):
        out.append({w: (r[i % len(r)] if isinstance(r, list) else r) for w, r in ratios.items()})
    return out


DEBUG = Candidate("osd-debug-off", ("ceph config rm osd debug_osd",), ("rand_wr",))
CACHE = Candidate("rbd-cache-on", ("ceph config set client rbd_cache true",), ("rand_wr",))


def test_a_clear_improvement_is_kept_and_the_final_row_measures_it():
    m = measured(blocks(6, rand_wr=[1.95, 2.05, 2.0], rand_rd=[0.99, 1.01, 1.0]))
    rows = tune([DEBUG], [m], Plan(1, 2), final=m)
    assert [r.number for r in rows] == [1, 2, 3]
    assert rows[0].cells[0].value == 1000.0
    assert rows[1].kept is True and rows[1].verdict == "better"
    wr = next(c for c in rows[1].cells if c.workload == "rand_wr")
    assert 95 < wr.to_previous.pct < 105 and wr.to_previous.ci[0] > 0
    assert wr.to_first.pct == pytest.approx(wr.to_previous.pct)
    assert rows[2].final and rows[2].verdict == "better"
    assert kept_changes(rows) == ["ceph config rm osd debug_osd"]


def test_an_improvement_that_costs_another_workload_beyond_the_guard_is_reverted():
    m = measured(blocks(6, rand_wr=[1.5, 1.55, 1.45], rand_rd=[0.88, 0.9, 0.89]))
    row = tune([CACHE], [m], Plan(1, 2, guard=5.0))[1]
    assert row.kept is False and row.verdict == "worse"
    assert "rand_rd" in row.reason and "guard" in row.reason
    # a looser guard lets it through: the cost is within what the user accepts
    assert tune([CACHE], [m], Plan(1, 2, guard=15.0))[1].kept is True


def test_a_change_lost_in_noise_is_inconclusive_and_reverted():
    m = measured(blocks(6, rand_wr=[1.3, 0.8, 1.1, 0.85, 1.2, 0.9], rand_rd=1.0))
    row = tune([CACHE], [m], Plan(1, 2))[1]
    assert row.verdict == "inconclusive" and row.kept is False


def test_no_change_is_same_and_reverted():
    m = measured(blocks(6, rand_wr=[1.001, 0.999, 1.0], rand_rd=[1.0, 1.002, 0.998]))
    row = tune([CACHE], [m], Plan(1, 2))[1]
    assert row.verdict == "same" and row.kept is False


def test_bonferroni_more_candidates_need_a_clearer_effect():
    """The same rounds: kept when it is the only test, not when it is one of many (the
    interval is taken at alpha / m, m = (candidates + 1) x workloads)."""
    m = measured(blocks(8, rand_wr=[1.05, 1.11, 1.08, 1.12, 1.04, 1.08, 1.10, 1.06], rand_rd=1.0))
    assert Plan(1, 2).level == pytest.approx(0.05 / 4)
    assert Plan(9, 2).level == pytest.approx(0.05 / 20)
    alone = tune([CACHE], [m], Plan(1, 1, same_within=1.0))[1]
    many = tune([CACHE], [m], Plan(40, 2, same_within=1.0))[1]
    wide = next(c for c in many.cells if c.workload == "rand_wr").to_previous
    narrow = next(c for c in alone.cells if c.workload == "rand_wr").to_previous
    assert wide.ci[1] - wide.ci[0] > narrow.ci[1] - narrow.ci[0]
    assert alone.kept is True and many.kept is False


def test_a_reverted_attempt_does_not_enter_the_chain_to_the_first():
    keep = measured(blocks(6, rand_wr=[1.95, 2.05, 2.0], rand_rd=1.0))
    noise = measured(blocks(6, rand_wr=[1.3, 0.8, 1.1, 0.85, 1.2, 0.9], rand_rd=1.0))
    also = measured(blocks(6, rand_wr=[1.45, 1.55, 1.5], rand_rd=1.0))
    third = Candidate("third", ("ceph config set osd x 1",), ("rand_wr",))
    rows = tune([DEBUG, CACHE, third], [keep, noise, also], Plan(3, 2))
    assert [r.kept for r in rows] == [None, True, False, True]
    last = next(c for c in rows[3].cells if c.workload == "rand_wr")
    # 2.0 x 1.5 = 3.0: +200 %, the reverted attempt's x ~1 left out
    assert last.to_first.pct == pytest.approx(200, abs=3)
    assert kept_changes(rows) == ["ceph config rm osd debug_osd", "ceph config set osd x 1"]


def test_chained_variances_add():
    a = diff([math.log(2.0), math.log(2.1), math.log(1.9)], 0.05)
    b = diff([math.log(1.5), math.log(1.6), math.log(1.4)], 0.05)
    both = chained([a, b], 0.05)
    assert both.mean_log == pytest.approx(a.mean_log + b.mean_log)
    assert both.se_log == pytest.approx(math.hypot(a.se_log, b.se_log))
    assert both.ci[0] < both.pct < both.ci[1]


def test_one_block_is_unknown_and_not_kept():
    m = measured(blocks(1, rand_wr=2.0, rand_rd=1.0))
    row = tune([DEBUG], [m], Plan(1, 2))[1]
    assert row.kept is False
    assert {c.verdict for c in row.cells} == {"unknown"}


def test_fixed_rounds_use_the_fixed_design_interval_narrower_than_the_sequence():
    """--rounds N: the experiment did not stop on its CI, so the fixed-design interval holds;
    the confidence sequence (rounds until a CI target) is wider at the same blocks."""
    m = measured(blocks(4, rand_wr=[1.9, 2.1, 2.0, 2.05], rand_rd=1.0))
    fixed = tune([DEBUG], [m], Plan(1, 2, sequential=False))[1].cells[0].to_previous
    seq = tune([DEBUG], [m], Plan(1, 2))[1].cells[0].to_previous
    assert fixed.pct == pytest.approx(seq.pct)
    assert fixed.ci[1] - fixed.ci[0] < seq.ci[1] - seq.ci[0]
