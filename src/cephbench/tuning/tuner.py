"""Running a tune: the candidates proven one after another through ``ab``'s machinery, the
kept ones carried into the next attempt, the final attempt measured against the first, and
with ``--keep`` the kept changes left in place, each recorded with what restores it.

Every attempt is one A/B experiment (:func:`cephbench.tuning.experiment.run_ab`): A the
previous attempt (the changes kept so far), B the same plus the candidate. ``run_ab`` records
every setting before it changes it and restores everything, verified, however the experiment
ends (an error, Ctrl-C; ``cephbench cleanup`` after a kill): between attempts the cluster is
as found. The decisions are :mod:`cephbench.tuning.attempts`'; the budget (``--max-time``) is
looked at between attempts only, never inside one.

With ``--keep`` the kept changes are applied once more at the end through
:class:`cephbench.tuning.apply.Settings` (recorded in the resource log before each is made,
so a kill while they are applied is undone by ``cleanup``); once each is in place and
verified, what restores it is stored with the tune (``cephbench tune revert TUNE``) and its
resource record closed, so ``cleanup`` leaves it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cephbench.analysis.compare import METRICS
from cephbench.ceph.connection import Connection
from cephbench.model import Result
from cephbench.planning.request import RunRequest
from cephbench.store import ResourceLog, Store, experiments, tunings
from cephbench.tuning import attempts as att
from cephbench.tuning.analyze import value
from cephbench.tuning.apply import Settings
from cephbench.tuning.changes import Change, Side
from cephbench.tuning.experiment import AbPlan, RunFn, played_rounds, run_ab
from cephbench.tuning.owner import owner
from cephbench.tuning.setting import Where

IOPS = next(m for m in METRICS if m.key == "iops")


@dataclass(frozen=True)
class Proposal:
    """A candidate and the changes it makes (parsed), with its remedy's cost."""

    candidate: att.Candidate
    changes: tuple[Change, ...]
    cost: str


@dataclass(frozen=True)
class TuneOptions:
    suite: str
    request: RunRequest
    target_ci: float | None
    """Each attempt's rounds run until every IOPS CI is within it; None: ``rounds``."""
    rounds: int | None
    """A fixed number of rounds per attempt (ab's --rounds)."""
    max_rounds: int
    attempt_max_time: float | None
    """Each attempt's own budget of rounds (ab's --max-time)."""
    max_time: float | None
    """The whole tune's budget: no attempt starts after it."""
    guard: float
    same_within: float
    keep: bool


def label(result: Result) -> str:
    return (
        result.workload
        if result.op in ("read", "write", "")
        else f"{result.workload} ({result.op})"
    )


def measured_of(store: Store, exp_id: int) -> att.Measured:
    """An experiment's rounds as the attempt logic reads them: every round's IOPS per
    workload."""
    played = played_rounds(store, experiments.get(store, exp_id))
    sides, values = "", []
    for rd in played:
        keys = list(dict.fromkeys((r.workload, r.op) for r in rd.results))
        sides += rd.side
        values.append(
            {
                label(next(r for r in rd.results if (r.workload, r.op) == k)): value(
                    rd.results, k[0], k[1], IOPS
                )
                for k in keys
            }
        )
    return att.Measured(sides, tuple(values))


def run_tune(
    store: Store,
    tune_id: int,
    proposals: Sequence[Proposal],
    workloads: int,
    opts: TuneOptions,
    run_round: RunFn,
    conn: Connection | None,
    lab_dir: str | None,
    doc: dict[str, Any],
    note: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Prove each proposal in turn; the tune's document (saved after every attempt)."""
    plan = att.Plan(
        len(proposals),
        workloads,
        guard=opts.guard,
        same_within=opts.same_within,
        sequential=opts.rounds is None,
    )
    doc["correction"] = {
        "method": "bonferroni",
        "tests": plan.tests,
        "alpha": plan.alpha,
        "level": plan.level,
    }
    kept: list[Change] = []
    measured: list[att.Measured] = []
    exps: list[int | None] = []
    tried: list[att.Candidate] = []
    rows: list[att.Attempt] = []
    t0 = time.monotonic()
    doc["stopped"] = None
    for i, p in enumerate(proposals):
        if opts.max_time is not None and time.monotonic() - t0 > opts.max_time:
            doc["stopped"] = f"max_time: {len(proposals) - i} candidate(s) not tried"
            note(f"--max-time reached: {len(proposals) - i} candidate(s) not tried")
            break
        number = i + 2
        note(f"attempt {number}: {p.candidate.name}: " + "; ".join(c.text for c in p.changes))
        a = Side(f"attempt {number - 1}", tuple(kept))
        b = Side(f"attempt {number}", (*kept, *p.changes))
        exp_id = run_ab(store, _ab_plan(opts, a, b), run_round, conn, lab_dir, note)
        measured.append(measured_of(store, exp_id))
        exps.append(exp_id)
        tried.append(p.candidate)
        rows = att.tune(tried, measured, plan, exps)
        last = rows[-1]
        note(
            f"attempt {number}: {last.verdict}, {'kept' if last.kept else 'reverted'} ({last.reason})"
        )
        if last.kept:
            kept.extend(p.changes)
        doc["attempts"] = [att.attempt_json(r) for r in rows]
        tunings.save(store, tune_id, doc)
    kept_rows = [i for i, r in enumerate(rows[1:]) if r.kept]  # rows[0] is the first
    if len(kept_rows) == 1:
        # One change kept: the final configuration is that attempt's, and the configuration it
        # was measured against had nothing kept: the first. That experiment is final against
        # first already; measuring it again would spend as long for the same comparison.
        i = kept_rows[0]
        note("final against first: the experiment of the one attempt kept")
        rows = att.tune(tried, measured, plan, exps, measured[i], exps[i])
    elif kept_rows:
        note("final against first: " + "; ".join(c.text for c in kept))
        exp_id = run_ab(
            store,
            _ab_plan(opts, Side("first"), Side("final", tuple(kept))),
            run_round,
            conn,
            lab_dir,
            note,
        )
        rows = att.tune(tried, measured, plan, exps, measured_of(store, exp_id), exp_id)
    doc["attempts"] = [att.attempt_json(r) for r in rows]
    doc["kept_changes"] = [c.text for c in kept]
    tunings.save(store, tune_id, doc)
    if opts.keep and kept:
        doc["kept"] = keep(store, tune_id, kept, conn, lab_dir)
        tunings.save(store, tune_id, doc)
    return doc


def _ab_plan(opts: TuneOptions, a: Side, b: Side) -> AbPlan:
    return AbPlan(
        opts.suite,
        a,
        b,
        opts.request,
        rounds=opts.rounds,
        target_ci=None if opts.rounds else opts.target_ci,
        max_rounds=opts.max_rounds,
        max_time=None if opts.rounds else opts.attempt_max_time,
        same_within=opts.same_within,
    )


def keep(
    store: Store,
    tune_id: int,
    changes: Sequence[Change],
    conn: Connection | None,
    lab_dir: str | None,
) -> list[dict[str, Any]]:
    """Apply ``changes`` and leave them: each recorded before it is made (``cleanup`` undoes
    a kill meanwhile), then stored with the tune with what restores it, and its resource
    record closed. Returns what ``tune revert`` reads."""
    log = ResourceLog(store, None)
    settings = Settings(conn, log, {**owner(0), "experiment": f"of tune {tune_id}"}, lab_dir)
    side = Side("kept", tuple(changes))
    settings.check((Side("found"), side))
    try:
        settings.switch(side)
    except BaseException:
        settings.restore()
        raise
    out = []
    for change in changes:
        slot = settings.slots[change.slot]
        detail = slot.setting.detail(settings.where, {"tune": tune_id})
        out.append(
            {
                "change": change.text,
                "revert": f"cephbench tune revert {tune_id}",
                "setting": detail,
                "reverted": False,
            }
        )
    tunings.save_kept(store, tune_id, out)
    for slot in settings.slots.values():
        for rid in slot.resources:
            log.removed(rid)
        slot.resources = []
    settings.close()
    return out


def revert(store: Store, tune_id: int, note: Callable[[str], None] = lambda _: None) -> list[str]:
    """Put back every change ``--keep`` left (verified), newest first; the settings restored."""
    from cephbench.tuning.settings import kind

    t = tunings.get(store, tune_id)
    kept = t.kept
    done = []
    for entry in reversed(kept):
        if entry.get("reverted"):
            continue
        d = entry["setting"]
        conn = Connection.from_json(d["conn"]) if d.get("conn") else None
        setting = kind(d["family"]).from_detail(d)
        setting.clean_up(Where(conn, d.get("lab_dir")))
        entry["reverted"] = True
        tunings.save_kept(store, tune_id, kept)
        done.append(entry["change"])
        note(f"reverted: {entry['change']} ({setting.name} back to {setting.shown_original()!r})")
    return done
