"""The trends of the report's "Over time" section: a configuration's figures run after run,
with the change points found (``cephbench.analysis.changepoint``) marked.

``cephbench report --label nightly --since 30d`` pools every nightly run into one column of
the comparison; this section unpools them again in time order: per workload and direction,
one panel per compared metric, one point per run (the mean of its repeats), the level of each
segment drawn through the points, a dashed line where a new level starts. Runs are placed in
order, evenly (runs imported together share one start time); the axis names each run by its
id and start date. A configuration needs :data:`MIN_RUNS` runs for a trend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from cephbench.analysis.changepoint import ChangePoint, Segment, between, segments
from cephbench.analysis.compare import METRICS, Column, Comparison, Metric
from cephbench.model import StoredRun
from cephbench.report.charts import PALETTE, WORSE, short
from cephbench.tables.table import Table

MIN_RUNS = 3
MAX_CHARTS = 24
"""At most this many workload charts; the change table still covers every workload."""
MAX_TICKS = 6


@dataclass(frozen=True)
class Trend:
    """One metric of one workload and direction, run after run, in one configuration."""

    column: str
    workload: str
    op: str
    metric: Metric
    runs: tuple[StoredRun, ...]
    """Runs with the figure, in time order."""
    values: tuple[float, ...]
    """Per run, the mean over its repeats (raw units: the metric's key says them)."""

    @cached_property
    def levels(self) -> list[Segment]:
        """The segments of the series, each at one level."""
        return segments(self.values)

    @property
    def changes(self) -> list[ChangePoint]:
        return between(self.levels)


def in_time_order(runs: Sequence[StoredRun]) -> list[StoredRun]:
    return sorted(runs, key=lambda r: (r.started_at, r.id))


def trends(cmp: Comparison) -> list[Trend]:
    """Every trend of the configurations with :data:`MIN_RUNS` runs or more."""
    out = []
    for col in cmp.columns:
        if len(col.runs) < MIN_RUNS:
            continue
        ordered = in_time_order(col.runs)
        for workload, op in _workloads(col):
            for metric in METRICS:
                points = [(run, _mean(run, workload, op, metric)) for run in ordered]
                kept = [(run, v) for run, v in points if v is not None]
                if len(kept) >= MIN_RUNS:
                    out.append(
                        Trend(
                            col.name,
                            workload,
                            op,
                            metric,
                            tuple(r for r, _ in kept),
                            tuple(v for _, v in kept),
                        )
                    )
    return out


def change_table(found: Sequence[Trend]) -> Table | None:
    """Every change point, workload by workload: where, from which level to which."""
    rows = []
    multi = len({t.column for t in found}) > 1
    for t in found:
        m = t.metric
        for c in t.changes:
            run = t.runs[c.index]
            rows.append(
                (
                    *((t.column,) if multi else ()),
                    f"{t.workload} ({t.op})",
                    m.title,
                    f"#{run.id} ({run.started_at[:10]})",
                    f"{c.before * m.scale:,.4g} {m.unit}",
                    f"{c.after * m.scale:,.4g} {m.unit}",
                    "" if c.pct is None else f"{c.pct:+.1f}%",
                    _verdict(c, m),
                )
            )
    if not rows:
        return None
    head = ("Workload", "Metric", "From run", "Level before", "Level after", "Change", "")
    return Table(
        (*(("Configuration",) if multi else ()), *head),
        tuple(rows),
        title="Change points",
        align=(*(("l",) if multi else ()), "l", "l", "l", "r", "r", "r", "l"),
    )


def trend_chart(group: Sequence[Trend]) -> Figure | None:
    """One panel per metric of one workload and direction: the runs' figures as points, each
    segment's level as a line, change points as dashed verticals labelled with the shift."""
    if not group:
        return None
    fig, axes = plt.subplots(
        1, len(group), figsize=(2.6 * len(group) + 0.8, 3.0), layout="constrained", squeeze=False
    )
    for ax, t in zip(axes[0], group, strict=True):
        m = t.metric
        xs = range(len(t.values))
        ax.plot(xs, [v * m.scale for v in t.values], "o", color=PALETTE[0], markersize=3.5)
        for seg in t.levels:
            ax.hlines(seg.mean * m.scale, seg.start - 0.4, seg.end - 0.6, color=PALETTE[1], lw=2)
        for c in t.changes:
            ax.axvline(c.index - 0.5, color=WORSE, linestyle="--", linewidth=1)
            if c.pct is not None:
                ax.annotate(
                    f" {c.pct:+.1f}%",
                    (c.index - 0.5, 0.03),
                    xycoords=("data", "axes fraction"),
                    ha="left",
                    va="bottom",
                    fontsize=7,
                    color=WORSE,
                )
        ax.set_title(f"{m.title}\n({'higher' if m.higher_is_better else 'lower'} is better)")
        ax.set_ylabel(f"{m.title} ({m.unit})")
        step = max(1, -(-len(t.runs) // MAX_TICKS))
        ticks = list(range(0, len(t.runs), step))
        ax.set_xticks(ticks, [f"#{t.runs[i].id}\n{t.runs[i].started_at[5:10]}" for i in ticks])
        ax.tick_params(axis="x", labelsize=6)
        ax.set_ylim(bottom=0)
    first = group[0]
    fig.suptitle(f"{short(first.column)}: {short(first.workload)} ({first.op}), run by run")
    return fig


def _workloads(col: Column) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r.workload, r.op) for run in col.runs for r in run.results))


def _mean(run: StoredRun, workload: str, op: str, metric: Metric) -> float | None:
    values = [
        v
        for r in run.results
        if r.workload == workload and r.op == op
        for v in (metric.value(r),)
        if v is not None
    ]
    return sum(values) / len(values) if values else None


def _verdict(c: ChangePoint, m: Metric) -> str:
    if c.after == c.before:
        return ""
    return "better" if (c.after > c.before) == m.higher_is_better else "worse"
