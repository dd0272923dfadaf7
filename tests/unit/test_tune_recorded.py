"""Tune's attempt logic on rounds recorded from the lab (tests/data/tune/source.md): debug
logging left on in the OSDs, and osd-debug-off's changes as the attempt."""

from __future__ import annotations

import json

import pytest

from cephbench.tuning.attempts import Candidate, Measured, Plan, tune
from tests.helpers import DATA


def recorded(name: str) -> tuple[Candidate, Measured]:
    d = json.loads((DATA / "tune" / f"{name}.rounds.json").read_text())
    changes = tuple(c["text"] for c in d["b"]["changes"])
    return (
        Candidate("osd-debug-off", changes, ("rand_wr", "rand_rd")),
        Measured(d["sides"], tuple(d["iops"])),
    )


def test_three_blocks_of_the_quick_suite_keep_the_remedy_on_random_reads():
    """Fixed design at alpha / 8 (one candidate and the final row, four workloads): random
    reads +184 %, the interval clear of 0; the noisy workloads are inconclusive, none worse."""
    cand, m = recorded("debug-logging-quick")
    assert m.sides == "ABBAAB"
    row = tune([cand], [m], Plan(1, 4, sequential=False))[1]
    assert row.kept is True and row.verdict == "better"
    cells = {c.workload: c for c in row.cells}
    rd = cells["rand_rd"].to_previous
    assert rd.pct == pytest.approx(184.5, abs=0.1) and rd.ci[0] > 0
    assert cells["rand_rd"].verdict == "better"
    assert {cells[w].verdict for w in ("seq_wr", "seq_rd", "rand_wr")} == {"inconclusive"}


def test_the_same_rounds_as_a_confidence_sequence_are_not_yet_enough():
    """The experiment ran to a CI target, so its intervals are a confidence sequence: at 3
    blocks and alpha / 8 far wider, and tune reverts what it has not proven."""
    cand, m = recorded("debug-logging-quick")
    row = tune([cand], [m], Plan(1, 4))[1]
    assert row.kept is False and row.verdict == "inconclusive"


def test_two_blocks_with_a_noisy_workload_prove_nothing():
    """Random writes swung from -54 % to +71 % between the two blocks: inconclusive, and the
    guard does not fire on a difference that is not significant."""
    cand, m = recorded("debug-logging-small")
    row = tune([cand], [m], Plan(1, 2, sequential=False))[1]
    wr = next(c for c in row.cells if c.workload == "rand_wr")
    assert wr.to_previous.pct < 0 and wr.verdict == "inconclusive"
    assert row.kept is False and "guard" not in row.reason
