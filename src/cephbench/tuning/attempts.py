"""Tune's attempts: which change is kept, which reverted, and the attempts table. Pure.

Attempt 1 is the cluster as found. Each next attempt adds one candidate (a remedy's changes)
on top of the changes kept so far and is measured against the previous attempt by one
interleaved A/B experiment (``ab``'s rounds, A the previous attempt, B this one, run until
``ab``'s CI target). This module takes each experiment's rounds (the sides in the order run
and every round's figure per workload, of one metric: IOPS) and decides:

- **kept** when the candidate is significantly better on its own metric (on at least one of
  the workloads it should move, in the direction it should move them) and no workload of the
  suite is significantly worse by more than the guard (``--guard``, default 5 %: the point
  estimate farther than the guard on the worse side *and* the CI excluding 0 there);
- **reverted** otherwise: worse, the same, or inconclusive. An inconclusive change is
  reverted: tune keeps only what it proved.

**The correction for many comparisons: Bonferroni.** Every interval in the table is taken at
level ``1 - alpha / m``, ``m`` the number of tests the tune makes: (candidates + 1 for the
final row) x workloads. Bonferroni rather than Holm-Bonferroni because the decisions are
sequential: attempt k is decided, and the configuration changed or not, before attempt k+1
is measured, and attempt k+1 is measured on what attempt k left. Holm's step-down orders all
p-values before deciding any, which a sequential procedure cannot wait for, and a later
p-value cannot change an earlier decision the cluster was already tuned on. Bonferroni with
``m`` fixed by the plan before the first round holds the family-wise error at ``alpha`` over
every keep the tune makes, whatever the order and whatever was kept. It is conservative, so a
real improvement needs to be clear to be kept; that is the point of the tool.

Each experiment's own tests are ``ab``'s (:func:`cephbench.tuning.verdict.paired`: the
paired t-test on per-block log ratios, as a confidence sequence, since ``ab`` stopped on its
CI target after looking at every block), at the corrected level.

**To the first** (attempt k against attempt 1) is chained: the sum of the log ratios of the
kept attempts up to k (and k's own), their variances summed, the interval a t with the
Welch-Satterthwaite degrees of freedom at the corrected level. The experiments are
independent, so the variances add; the chain is an estimate from separate experiments, and
the last row of the table (the final attempt against the first, one more interleaved
experiment; with one change kept, that change's own experiment, whose A side was the first) is
the direct measurement of what the tune achieved.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cephbench.analysis.equivalence import SAME_WITHIN
from cephbench.analysis.equivalence import verdict as equivalence_verdict
from cephbench.analysis.stats import ALPHA
from cephbench.tuning import rounds as order
from cephbench.tuning import verdict as paired_test

DEFAULT_GUARD = 5.0
"""Percent: a workload worse by more than this (significantly) reverts a change."""


@dataclass(frozen=True)
class Measured:
    """One A/B experiment's rounds of one metric: the sides in the order run and every
    round's figure per workload (None: the workload failed in that round)."""

    sides: str
    values: tuple[dict[str, float | None], ...]

    def __post_init__(self) -> None:
        if len(self.sides) != len(self.values):
            raise ValueError(f"{len(self.sides)} sides for {len(self.values)} rounds")

    def workloads(self) -> list[str]:
        return list(dict.fromkeys(w for v in self.values for w in v))

    def log_ratios(self, workload: str) -> list[float]:
        """``ln(B/A)`` of every complete block with both figures."""
        pairs = order.blocks(self.sides[: len(self.sides) // 2 * 2])
        ab = [(self.values[a].get(workload), self.values[b].get(workload)) for a, b in pairs]
        return paired_test.log_ratios([(x, y) for x, y in ab if x is not None and y is not None])

    def mean(self, side: str, workload: str) -> float | None:
        xs = [
            v[workload]
            for s, v in zip(self.sides, self.values, strict=True)
            if s == side and v.get(workload) is not None
        ]
        return math.fsum(xs) / len(xs) if xs else None  # type: ignore[arg-type]


@dataclass(frozen=True)
class Candidate:
    """One attempt's change: a remedy's name, its change lines, the workloads it should
    move and the direction."""

    name: str
    changes: tuple[str, ...]
    workloads: tuple[str, ...]
    higher_is_better: bool = True


@dataclass(frozen=True)
class Diff:
    """A relative difference in percent with its CI (at the corrected level)."""

    pct: float
    ci: tuple[float, float] | None
    mean_log: float
    se_log: float | None
    df: float | None

    @property
    def significant(self) -> bool | None:
        return None if self.ci is None else not (self.ci[0] <= 0 <= self.ci[1])


@dataclass(frozen=True)
class Cell:
    workload: str
    value: float | None
    """This attempt's figure (the mean of its rounds)."""
    to_previous: Diff | None = None
    to_first: Diff | None = None
    verdict: str | None = None
    """better, worse, same, inconclusive, unknown (one block) against the previous attempt."""


@dataclass(frozen=True)
class Attempt:
    number: int
    candidate: Candidate | None
    """None: attempt 1 (the cluster as found) or the final row."""
    cells: tuple[Cell, ...]
    verdict: str | None = None
    kept: bool | None = None
    reason: str = ""
    final: bool = False
    """The last row: the final attempt against the first, measured directly."""
    experiment: int | None = None


@dataclass
class Plan:
    """What the tune tests and at which level."""

    candidates: int
    workloads: int
    alpha: float = ALPHA
    guard: float = DEFAULT_GUARD
    same_within: float = SAME_WITHIN
    sequential: bool = True
    """The experiments ran until a CI target (a confidence sequence); False: a fixed number
    of rounds (``--rounds``), the fixed-design t interval."""
    _level: float = field(init=False)

    def __post_init__(self) -> None:
        self._level = self.alpha / self.tests

    @property
    def tests(self) -> int:
        """Bonferroni's m: (candidates + the final row) x workloads."""
        return max(1, (self.candidates + 1) * max(1, self.workloads))

    @property
    def level(self) -> float:
        """The corrected alpha every interval of the table is taken at."""
        return self._level


def diff(r: Sequence[float], level: float, sequential: bool = True) -> Diff | None:
    """The paired test of one workload's log ratios at ``level``: as a confidence sequence
    (the rounds ran until a CI target) or, ``sequential`` False, the fixed-design interval."""
    t = paired_test.paired(r, sequential=sequential, alpha=level)
    if t is None:
        return None
    se = None if t.sd_log is None else t.sd_log / math.sqrt(t.n)
    return Diff(t.pct, t.ci95, t.mean_log, se, None if t.n < 2 else float(t.n - 1))


def chained(parts: Sequence[Diff], level: float) -> Diff | None:
    """Diffs of independent experiments added on the log scale (Welch-Satterthwaite df)."""
    if not parts:
        return None
    m = math.fsum(p.mean_log for p in parts)
    if any(p.se_log is None or p.df is None for p in parts):
        return Diff(math.expm1(m) * 100, None, m, None, None)
    var = math.fsum(p.se_log**2 for p in parts)  # type: ignore[operator]
    if var == 0:
        return Diff(math.expm1(m) * 100, (math.expm1(m) * 100,) * 2, m, 0.0, None)
    df = var**2 / math.fsum(p.se_log**4 / p.df for p in parts)  # type: ignore[operator]
    from scipy import stats

    half = float(stats.t.ppf(1 - level / 2, df)) * math.sqrt(var)
    return Diff(
        math.expm1(m) * 100,
        (math.expm1(m - half) * 100, math.expm1(m + half) * 100),
        m,
        math.sqrt(var),
        df,
    )


def cell_verdict(d: Diff | None, higher_is_better: bool, band: float) -> str:
    return equivalence_verdict(
        None if d is None else d.pct,
        None if d is None else d.ci,
        None if d is None else d.significant,
        higher_is_better,
        band,
    )


def first(measured: Measured) -> Attempt:
    """Attempt 1, the cluster as found: side A's figures of the first experiment."""
    return Attempt(
        1,
        None,
        tuple(Cell(w, measured.mean("A", w)) for w in measured.workloads()),
        kept=None,
        reason="the cluster as found",
    )


def judge(
    number: int,
    candidate: Candidate,
    measured: Measured,
    plan: Plan,
    kept_so_far: dict[str, list[Diff]],
    experiment: int | None = None,
) -> Attempt:
    """Attempt ``number``: ``candidate`` on top of the kept changes, against the previous
    attempt (``measured``: A the previous, B this one). ``kept_so_far``: per workload the
    diffs of the attempts kept before it (for the chained difference to the first)."""
    cells = []
    for w in measured.workloads():
        d = diff(measured.log_ratios(w), plan.level, plan.sequential)
        to_first = chained([*kept_so_far.get(w, []), *([d] if d else [])], plan.level)
        cells.append(
            Cell(
                w,
                measured.mean("B", w),
                d,
                to_first,
                cell_verdict(d, candidate.higher_is_better, plan.same_within),
            )
        )
    own = [c for c in cells if c.workload in candidate.workloads] or cells
    harmed = [c for c in cells if _worse_beyond(c.to_previous, plan.guard, candidate)]
    better = [c for c in own if c.verdict == "better"]
    if harmed:
        names = ", ".join(
            f"{c.workload} {c.to_previous.pct:+.1f} %" for c in harmed if c.to_previous
        )
        kept, overall, why = False, "worse", f"worse beyond the ±{plan.guard:g} % guard: {names}"
    elif better:
        kept, overall = True, "better"
        why = "better on " + ", ".join(
            f"{c.workload} {c.to_previous.pct:+.1f} %" for c in better if c.to_previous
        )
    else:
        verdicts = {c.verdict for c in own}
        overall = (
            "worse" if "worse" in verdicts else "same" if verdicts == {"same"} else "inconclusive"
        )
        kept = False
        why = {
            "worse": "worse on its own workloads",
            "same": f"the same within ±{plan.same_within:g} % on its own workloads",
        }.get(overall, "not shown better on its own workloads (inconclusive)")
    return Attempt(number, candidate, tuple(cells), overall, kept, why, experiment=experiment)


def _worse_beyond(d: Diff | None, guard: float, candidate: Candidate) -> bool:
    """Significantly worse, and by more than ``guard`` percent (in IOPS: lower)."""
    if d is None or not d.significant:
        return False
    return d.pct < -guard if candidate.higher_is_better else d.pct > guard


def final_row(number: int, measured: Measured, plan: Plan, experiment: int | None) -> Attempt:
    """The last row: the final attempt (every kept change) against the first, measured."""
    cells = []
    for w in measured.workloads():
        d = diff(measured.log_ratios(w), plan.level, plan.sequential)
        cells.append(Cell(w, measured.mean("B", w), d, d, cell_verdict(d, True, plan.same_within)))
    verdicts = {c.verdict for c in cells}
    overall = (
        "better"
        if "better" in verdicts and "worse" not in verdicts
        else "worse"
        if "worse" in verdicts and "better" not in verdicts
        else "same"
        if verdicts == {"same"}
        else "inconclusive"
    )
    return Attempt(
        number, None, tuple(cells), overall, None, "final against first", True, experiment
    )


def tune(
    candidates: Sequence[Candidate],
    measured: Sequence[Measured],
    plan: Plan,
    experiments: Sequence[int | None] = (),
    final: Measured | None = None,
    final_experiment: int | None = None,
) -> list[Attempt]:
    """The attempts table of measured candidates (``measured[i]``: candidate i's experiment,
    A the attempt before it with every change kept so far), plus the final row when given."""
    if not measured:
        return []
    rows = [first(measured[0])]
    kept: dict[str, list[Diff]] = {}
    exps = list(experiments) + [None] * len(measured)
    for i, (cand, m) in enumerate(zip(candidates, measured, strict=False)):
        row = judge(i + 2, cand, m, plan, kept, exps[i])
        rows.append(row)
        if row.kept:
            for c in row.cells:
                if c.to_previous is not None:
                    kept.setdefault(c.workload, []).append(c.to_previous)
    if final is not None:
        rows.append(final_row(len(rows) + 1, final, plan, final_experiment))
    return rows


def kept_changes(rows: Sequence[Attempt]) -> list[str]:
    """The change lines of every kept attempt, in the order kept."""
    return [c for r in rows if r.kept and r.candidate for c in r.candidate.changes]


def diff_json(d: Diff | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "pct": round(d.pct, 2),
        "ci95": None if d.ci is None else [round(d.ci[0], 2), round(d.ci[1], 2)],
        "significant": d.significant,
    }


def attempt_json(a: Attempt) -> dict[str, Any]:
    return {
        "attempt": a.number,
        "final": a.final,
        "remedy": a.candidate.name if a.candidate else None,
        "changes": list(a.candidate.changes) if a.candidate else [],
        "workloads": list(a.candidate.workloads) if a.candidate else [],
        "experiment": a.experiment,
        "verdict": a.verdict,
        "kept": a.kept,
        "reason": a.reason,
        "cells": [
            {
                "workload": c.workload,
                "iops": None if c.value is None else round(c.value, 1),
                "to_previous": diff_json(c.to_previous),
                "to_first": diff_json(c.to_first),
                "verdict": c.verdict,
            }
            for c in a.cells
        ],
    }
