"""An A/B experiment's rows: per workload and metric, both sides' values, the paired verdict
(:mod:`verdict`), the smallest change it could detect, the rounds it would take to resolve,
and every round's point. Pure: it takes the rounds (side, run id) in the order they ran and
each run's results.

The JSON rows are ``compare``'s (``values``, ``n``, ``ci95``, ``pct_diff``, ``pct_diff_ci95``,
``p_adjusted``, ``significant``, keyed by column ``a`` and ``b``), plus ``blocks``,
``more_rounds``, ``mde_pct``, ``verdict`` and ``points``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cephbench.analysis import equivalence, stats
from cephbench.analysis.compare import METRICS, Metric
from cephbench.model import Result
from cephbench.tuning import rounds as order
from cephbench.tuning import verdict
from cephbench.tuning.verdict import Paired

PRIMARY = "iops"
"""The metric the summary line and ``--target-ci`` judge a workload by (as ``run --target-ci``)."""


@dataclass(frozen=True)
class Round:
    index: int
    side: str
    run_id: int
    results: tuple[Result, ...]


@dataclass(frozen=True)
class AbRow:
    workload: str
    op: str
    metric: Metric
    points: tuple[tuple[int, str, int, float | None], ...]
    """(round, side, run id, value) of every round."""
    test: Paired | None
    p_adjusted: float | None = None
    significant: bool | None = None
    more_rounds: int | None = None
    samples: dict[str, tuple[float, ...]] = field(default_factory=dict)
    same_within: float = equivalence.SAME_WITHIN
    """The equivalence band, in percent: ``same`` needs the whole CI within it."""

    @property
    def label(self) -> str:
        return self.workload if self.op in ("read", "write", "") else f"{self.workload} ({self.op})"

    @property
    def mde(self) -> float | None:
        """The smallest detectable change, in percent: the CI's half-width (:mod:`verdict`)."""
        return None if self.test is None else self.test.half_width

    def verdict(self) -> str:
        """better, worse (significant), same (the CI within the band), inconclusive (neither),
        unknown (one block) or missing: :func:`cephbench.analysis.equivalence.verdict`."""
        t = self.test
        return equivalence.verdict(
            None if t is None else t.pct,
            None if t is None else t.ci95,
            self.significant,
            self.metric.higher_is_better,
            self.same_within,
        )


def value(results: Sequence[Result], workload: str, op: str, metric: Metric) -> float | None:
    """A run's figure for one cell: the mean over its repeats."""
    xs = [v for r in results if r.workload == workload and r.op == op if (v := metric.value(r))]
    return math.fsum(xs) / len(xs) if xs else None


def analyze(
    played: Sequence[Round],
    sequential: bool = False,
    alpha: float = stats.ALPHA,
    same_within: float = equivalence.SAME_WITHIN,
) -> list[AbRow]:
    """Every cell of the experiment, tested and corrected across cells; ``same_within``: the
    equivalence band of its verdicts, in percent."""
    keys = list(dict.fromkeys((r.workload, r.op) for rd in played for r in rd.results))
    sides = "".join(rd.side for rd in played)
    pairs = order.blocks(sides[: len(sides) // 2 * 2])
    rows = []
    for w, op in keys:
        for m in METRICS:
            pts = tuple(
                (rd.index, rd.side, rd.run_id, value(rd.results, w, op, m)) for rd in played
            )
            ab = [(pts[a][3], pts[b][3]) for a, b in pairs]
            ratios = verdict.log_ratios([(x, y) for x, y in ab if x is not None and y is not None])
            test = verdict.paired(ratios, sequential, alpha)
            samples = {
                s: tuple(v for _, side, _, v in pts if side == s and v is not None) for s in "AB"
            }
            rows.append(AbRow(w, op, m, pts, test, samples=samples))
    tests = [r.test for r in rows]
    sig = verdict.adjust(tests, alpha)
    padj = verdict.adjusted_p(tests)
    out = []
    for row, s, p in zip(rows, sig, padj, strict=True):
        more = verdict.more_rounds(row.test, alpha) if row.test is not None and s is False else None
        out.append(
            AbRow(
                row.workload,
                row.op,
                row.metric,
                row.points,
                row.test,
                p,
                s,
                more,
                row.samples,
                same_within,
            )
        )
    return out


def primary(rows: Sequence[AbRow]) -> list[AbRow]:
    return [r for r in rows if r.metric.key == PRIMARY]


def summary_line(rows: Sequence[AbRow], b_label: str) -> str:
    """One line: "B is better on 2 of 4 workloads (+12 % seq_rd ±3 %, ...), the same within
    ±5 % on seq_wr, inconclusive on rand_wr (resolves ±14 %)", judged by each workload's
    IOPS."""
    cells = [r for r in primary(rows) if r.test is not None]
    if not cells:
        return "no workload has figures on both sides"
    by: dict[str, list[AbRow]] = {}
    for r in cells:
        by.setdefault(r.verdict(), []).append(r)

    def listed(rs: list[AbRow]) -> str:
        return ", ".join(
            f"{r.test.pct:+.0f} % {r.label}"
            + (f" ±{r.test.half_width:.0f} %" if r.test.half_width else "")
            for r in rs
            if r.test is not None
        )

    n = len(cells)
    parts = []
    if by.get("better"):
        parts.append(f"better on {len(by['better'])} of {n} workloads ({listed(by['better'])})")
    if by.get("worse"):
        parts.append(f"worse on {len(by['worse'])} of {n} workloads ({listed(by['worse'])})")
    tail = []
    if by.get("same"):
        band = f"±{cells[0].same_within:g} %"
        tail.append(f"the same within {band} on {', '.join(r.label for r in by['same'])}")
    if by.get("inconclusive"):
        vague = by["inconclusive"]
        more = [r.more_rounds for r in vague if r.more_rounds is not None]
        note = (
            f"; about {max(more)} more rounds would resolve a difference the size seen"
            if more
            else ""
        )
        resolves = ", ".join(
            r.label if r.mde is None else f"{r.label} (resolves ±{r.mde:.0f} %)" for r in vague
        )
        tail.append(f"inconclusive on {resolves}{note}")
    if by.get("unknown"):
        tail.append(f"too few blocks to tell on {', '.join(r.label for r in by['unknown'])}")
    if parts:
        return f"{b_label} is " + ", ".join([*parts, *tail])
    return f"{b_label}: " + ", ".join(tail)


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def row_json(row: AbRow) -> dict[str, Any]:
    s = {k: stats.summarize(v) if v else None for k, v in row.samples.items()}
    keys = {"A": "a", "B": "b"}
    t = row.test
    return {
        "workload": row.workload,
        "op": row.op,
        "metric": row.metric.key,
        "higher_is_better": row.metric.higher_is_better,
        "values": {keys[k]: v.mean if v else None for k, v in s.items()},
        "n": {keys[k]: v.n if v else 0 for k, v in s.items()},
        "ci95": {keys[k]: list(v.ci95) if v and v.ci95 else None for k, v in s.items()},
        "pct_diff": {"b": _r(t.pct) if t else None},
        "pct_diff_ci95": {"b": [_r(x) for x in t.ci95] if t and t.ci95 else None},
        "p_adjusted": {"b": row.p_adjusted},
        "significant": {"b": row.significant},
        "blocks": t.n if t else 0,
        "more_rounds": row.more_rounds,
        "mde_pct": _r(row.mde),
        "verdict": row.verdict(),
        "points": [
            {"round": i + 1, "side": side, "run_id": run, "value": v}
            for i, side, run, v in row.points
        ],
    }
