"""Running an A/B experiment: changes checked, rounds run in the balanced order (each a full
run of the suite through the ordinary runner, stored under its side's label), settings
switched between blocks, and everything put back, verified, however it ends.

Before the first round every change of side B and then of side A is applied once and checked
to take effect: a change that cannot be made fails before any benchmark runs.

How many rounds: a fixed number (``--rounds``), or blocks until every workload's IOPS CI is
within a target, by default (:mod:`rounds`); :func:`stop_reason` decides after each round.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from cephbench.analysis.equivalence import SAME_WITHIN
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError
from cephbench.hosts.inventory import Inventory
from cephbench.planning.request import RunRequest
from cephbench.store import ResourceLog, Store, experiments
from cephbench.tuning import rounds, verdict
from cephbench.tuning.analyze import Round, analyze, primary
from cephbench.tuning.apply import Settings
from cephbench.tuning.changes import Side
from cephbench.tuning.host_sysctl import HostSysctls
from cephbench.tuning.owner import owner
from cephbench.tuning.rounds import DEFAULT_MAX_ROUNDS

RunFn = Callable[[Store, RunRequest], int]
"""Runs one round (a RunRequest with the side's label) and returns its run id."""


@dataclass(frozen=True)
class AbPlan:
    suite: str
    a: Side
    b: Side
    request: RunRequest
    rounds: int | None = None
    """A fixed number of rounds; None: sequential, until ``target_ci``."""
    target_ci: float | None = None
    """Percentage points: stop when every workload's IOPS CI half-width is within it."""
    max_rounds: int = DEFAULT_MAX_ROUNDS
    max_time: float | None = None
    same_within: float = SAME_WITHIN
    """The verdicts' equivalence band, in percent."""

    def spec(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "sides": {
                "a": {"label": self.a.label, "changes": [c.to_json() for c in self.a.changes]},
                "b": {"label": self.b.label, "changes": [c.to_json() for c in self.b.changes]},
            },
            "rounds": self.rounds,
            "target_ci_pct": self.target_ci,
            "max_rounds": self.max_rounds,
            "max_time_s": self.max_time,
            "same_within_pct": self.same_within,
            "request": self.request.to_json(),
        }


def played_rounds(store: Store, exp: experiments.Experiment) -> list[Round]:
    return [
        Round(r["round"] - 1, r["side"], r["run_id"], store.get_run(r["run_id"]).results)
        for r in exp.rounds
    ]


def run_ab(
    store: Store,
    plan: AbPlan,
    run_round: RunFn,
    conn: Connection | None,
    lab_dir: str | None,
    note: Callable[[str], None] = lambda _: None,
    hosts: Inventory | None = None,
) -> int:
    """Run the experiment; returns its id (stored however it ends). ``hosts``: where sysctl
    changes are made, over ssh (None: this machine)."""
    log = ResourceLog(store, None)
    settings = Settings(conn, log, {}, lab_dir, HostSysctls(hosts, log) if hosts else None)
    try:
        return _run(store, plan, settings, run_round, note)
    finally:
        settings.close()


def _run(
    store: Store, plan: AbPlan, settings: Settings, run_round: RunFn, note: Callable[[str], None]
) -> int:
    settings.check((plan.a, plan.b))  # nothing is stored or changed when a change is invalid
    exp_id = experiments.start(store, plan.suite, plan.spec())
    settings.owner = owner(exp_id)
    status = "aborted"
    error: str | None = "interrupted"
    stopped: str | None = None
    try:
        for side in (plan.b, plan.a):
            if side.changes:
                note(f"trying {side.label}: " + "; ".join(c.text for c in side.changes))
            settings.switch(side)
        stopped = _rounds(store, plan, exp_id, settings, run_round, note)
        status, error = "complete", None
    except CephbenchError as e:
        status, error = "failed", str(e)
        raise
    finally:
        try:
            settings.restore()
        finally:
            experiments.save_log(
                store,
                exp_id,
                {
                    "applied": settings.applied_log(),
                    "reverted": settings.reverted,
                    "stopped": stopped,
                },
            )
            experiments.finish(store, exp_id, status, error)
    return exp_id


def _rounds(
    store: Store, plan: AbPlan, exp_id: int, settings: Settings, run_round: RunFn, note
) -> str:
    """Play the rounds; why they stopped."""
    played: list[Round] = []
    t0 = time.monotonic()
    while True:
        stopped = stop_reason(plan, played, time.monotonic() - t0)
        if stopped is not None:
            return stopped
        i = len(played)
        side = rounds.side(i)
        chosen = plan.a if side == "A" else plan.b
        settings.switch(chosen)
        note(f"round {i + 1}: {chosen.label}")
        run_id = run_round(store, replace(plan.request, label=chosen.label))
        experiments.add_round(store, exp_id, side, run_id)
        played.append(Round(i, side, run_id, store.get_run(run_id).results))


def stop_reason(plan: AbPlan, played: Sequence[Round], elapsed: float) -> str | None:
    """Why no round follows ``played`` (``target_ci``, ``rounds``, ``max_rounds``,
    ``max_time``), or None to play the next one. The target and the clock are looked at
    between blocks only, so every block is whole; the target from the second block on, with
    the confidence sequence's intervals (valid at every look)."""
    i = len(played)
    between = i % 2 == 0
    if between and i >= rounds.MIN_ROUNDS and plan.target_ci is not None:
        tests = [r.test for r in primary(analyze(played, sequential=True))]
        if verdict.within_target(tests, plan.target_ci):
            return "target_ci"
    if i >= (plan.rounds or plan.max_rounds):
        return "rounds" if plan.rounds else "max_rounds"
    if between and plan.max_time is not None and elapsed > plan.max_time:
        return "max_time"
    return None
