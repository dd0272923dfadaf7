"""Time series of the report's runs, per workload: their stalls, and which to chart. Pure.

A *stall* is an interval in which nothing completed: zero throughput, or a hole in the log
of a logging interval or more (a tool that logs nothing while nothing completes; samples are
a multiple of the interval apart, so a gap over :data:`GAP` intervals is a hole).
A matrix has hundreds of workloads; charting all of them would bury the one that matters,
so at most :data:`MAX_CHARTS` are charted: those that stalled first (longest stall first),
then those whose throughput varies most over time (coefficient of variation of the
intervals); a note says how many were left out and how steady they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cephbench.model import Series

MAX_CHARTS = 8
GAP = 1.5
THROUGHPUT = ("iops", "bw_bytes_per_s")
"""Preferred first: rados bench logs no IOPS, so its bandwidth stands in."""


@dataclass(frozen=True)
class Trace:
    """One series of a run: who it belongs to, and its colour index (the report's run order)."""

    run: str
    colour: int
    series: Series


@dataclass(frozen=True)
class Timeline:
    workload: str
    op: str
    traces: tuple[Trace, ...]

    @property
    def title(self) -> str:
        return f"{self.workload} ({self.op})" if self.op else self.workload

    @property
    def throughput(self) -> str | None:
        """The throughput metric charted: iops when logged, else bandwidth."""
        return next((m for m in THROUGHPUT if any(t.series.metric == m for t in self.traces)), None)

    def of(self, metric: str) -> list[Trace]:
        return [t for t in self.traces if t.series.metric == metric]

    def stall_seconds(self) -> float:
        """Stalled seconds, summed over the throughput traces."""
        return sum(e - s for t in self._rates() for s, e in stalls(t.series.t_s, t.series.values))

    def variability(self) -> float:
        """The highest coefficient of variation of a throughput trace (0 without one)."""
        return max(
            (_cv(np.asarray(t.series.values, dtype=float)) for t in self._rates()), default=0.0
        )

    def _rates(self) -> list[Trace]:
        return self.of(self.throughput) if self.throughput else []


def timelines(runs: Sequence[tuple[str, int, Sequence[Series]]]) -> list[Timeline]:
    """Per (workload, op), in first-seen order, the traces of every run: ``runs`` are
    (run name, colour index, its series)."""
    out: dict[tuple[str, str], list[Trace]] = {}
    for name, colour, series in runs:
        for s in series:
            if len(s.t_s):
                out.setdefault((s.workload, s.op), []).append(Trace(name, colour, s))
    return [Timeline(w, op, tuple(traces)) for (w, op), traces in out.items()]


def select(items: Sequence[Timeline], limit: int = MAX_CHARTS) -> tuple[list[Timeline], str | None]:
    """The timelines to chart (in their own order) and a note on those left out (or None)."""
    if len(items) <= limit:
        return list(items), None
    ranked = sorted(
        range(len(items)),
        key=lambda i: (items[i].stall_seconds(), items[i].variability()),
        reverse=True,
    )
    chosen, left = sorted(ranked[:limit]), [items[i] for i in ranked[limit:]]
    stalled = sum(tl.stall_seconds() > 0 for tl in left)
    note = (
        f"{len(items)} workloads have time series: charted are the {limit} that stalled longest "
        f"or whose throughput varies most over time. The other {len(left)} are left out; their "
        f"throughput varies by at most {max(tl.variability() for tl in left):.1%} (coefficient of "
        f"variation over the logging intervals)"
    )
    note += f", and {stalled} of them stalled too." if stalled else " and none stalled."
    return [items[i] for i in chosen], note


def stalls(t_s: Sequence[float], values: Sequence[float]) -> list[tuple[float, float]]:
    """(start, end) seconds of the intervals with no throughput, merged; ``t_s`` are the ends
    of the logging intervals."""
    t, v = np.asarray(t_s, dtype=float), np.asarray(values, dtype=float)
    if not len(t):
        return []
    step = interval(t)
    steps = np.diff(t, prepend=t[0] - step)
    spans = [(t[i] - steps[i], t[i]) for i in np.flatnonzero(v <= 0)]
    spans += [(t[i] - steps[i], t[i] - step) for i in np.flatnonzero(steps > GAP * step)]
    merged: list[tuple[float, float]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1] + 1e-9:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((float(s), float(e)))
    return merged


def interval(t: np.ndarray) -> float:
    """The logging interval: the usual distance between samples (the first time for one)."""
    return float(np.median(np.diff(t))) if len(t) > 1 else float(t[0])


def _cv(v: np.ndarray) -> float:
    v = v[np.isfinite(v)]
    if len(v) < 2 or v.mean() <= 0:
        return 0.0
    return float(v.std(ddof=1) / v.mean())
