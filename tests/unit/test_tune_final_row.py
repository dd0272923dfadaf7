"""The tune's last row, final against first: with one change kept, the experiment that kept it
(whose A side was the first) is that comparison, and no second experiment is run; with two
kept, one more experiment measures the final attempt against the first. Rounds recorded from
the lab (tests/data/tune/source.md); the experiments themselves stand in for ``run_ab``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from cephbench.tuning import tuner
from cephbench.tuning.attempts import Candidate
from tests.unit.test_tune_recorded import recorded


@dataclass
class Options:  # what run_tune reads of TuneOptions
    rounds: int | None = 6
    guard: float = 5.0
    same_within: float = 5.0
    max_time: float | None = None
    keep: bool = False


@pytest.fixture
def experiments(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every experiment run_tune starts: each the recorded debug-logging rounds."""
    started: list[Any] = []
    _, measured = recorded("debug-logging-quick")

    def run_ab(store, plan, run_round, conn, lab_dir, note):
        started.append(plan)
        return len(started)

    monkeypatch.setattr(tuner, "run_ab", run_ab)
    monkeypatch.setattr(tuner, "_ab_plan", lambda opts, a, b: (a.label, b.label))
    monkeypatch.setattr(tuner, "measured_of", lambda store, exp_id: measured)
    monkeypatch.setattr(tuner.tunings, "save", lambda store, tune_id, doc: None)
    return started


def proposal(name: str) -> tuner.Proposal:
    cand, _ = recorded("debug-logging-quick")
    return tuner.Proposal(Candidate(name, cand.changes, cand.workloads), (), "online")


def tune(proposals: list[tuner.Proposal], workloads: int = 4) -> dict[str, Any]:
    """``workloads``: how many the correction counts (the recorded rounds hold four)."""
    return tuner.run_tune(None, 1, proposals, workloads, Options(), None, None, None, {})  # type: ignore[arg-type]


def test_one_change_kept_its_own_experiment_is_the_final_row(experiments):
    doc = tune([proposal("osd-debug-off")])
    first, attempt, final = doc["attempts"]
    assert first["attempt"] == 1 and attempt["kept"] is True and final["final"]
    assert final["experiment"] == attempt["experiment"] == 1
    assert len(experiments) == 1  # no second experiment for the same comparison


def test_two_changes_kept_one_more_experiment_measures_final_against_first(experiments):
    # corrected for one workload, the recorded rounds keep both changes
    doc = tune([proposal("osd-debug-off"), proposal("again")], workloads=1)
    assert [a["kept"] for a in doc["attempts"][1:3]] == [True, True]
    assert len(experiments) == 3 and experiments[-1] == ("first", "final")
    assert doc["attempts"][-1]["final"] and doc["attempts"][-1]["experiment"] == 3
