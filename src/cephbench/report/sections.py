"""The report's Sweep and Time series sections: which charts, in which order, with which
notes. Rendering goes through the report's chart sink (inline SVG, or PNG files).

Sweep, per pattern (rw, rwmixread, direction): the IOPS heatmap with a panel per block size,
then per block size IOPS and latency against iodepth, against numjobs, and the response
curve: at most 3 figures per block size and one per pattern, whatever the number of points
(a 3 bs × 7 iodepth × 7 numjobs × 2 rw matrix: 20 figures).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from matplotlib.figure import Figure

from cephbench.analysis.compare import Comparison
from cephbench.model import Series
from cephbench.report.heatmap import heatmap_chart
from cephbench.report.matrix import scaling_chart
from cephbench.report.response import response_chart
from cephbench.report.stalls import select, timelines
from cephbench.report.sweep_points import Sweep, family_title
from cephbench.report.timeline import timeline_chart

ChartSink = Callable[[Figure | None, str], str | None]


def sweep_section(sweep: Sweep, chart: ChartSink) -> dict | None:
    """Blocks of charts (title, charts as (alt text, embedded)) and notes; None without a sweep."""
    if not sweep.groups and not sweep.notes:
        return None
    blocks = []
    families = list(dict.fromkeys(g.family for g in sweep.groups))
    for f, family in enumerate(families):
        heat = chart(heatmap_chart(sweep, family), f"sweep-{f:02d}-heatmap")
        if heat:
            blocks.append(
                _block(
                    f"{family_title(family)}: IOPS heatmap",
                    [(f"{family_title(family)}: IOPS over iodepth and numjobs", heat)],
                )
            )
        for g, group in enumerate(x for x in sweep.groups if x.family == family):
            name = f"sweep-{f:02d}-{g:02d}"
            blocks.append(
                _block(
                    group.title,
                    [
                        (
                            f"{group.title}: IOPS and latency against iodepth",
                            chart(scaling_chart(sweep, group, "iodepth"), f"{name}-iodepth"),
                        ),
                        (
                            f"{group.title}: IOPS and latency against numjobs",
                            chart(scaling_chart(sweep, group, "numjobs"), f"{name}-numjobs"),
                        ),
                        (
                            f"{group.title}: response curve",
                            chart(response_chart(sweep, group), f"{name}-response"),
                        ),
                    ],
                )
            )
    points = len({(g, key) for g, cols in sweep.groups.items() for pts in cols for key in pts})
    n = len(sweep.groups)
    intro = (
        (
            f"{points} sweep points in {n} group{'s' if n != 1 else ''} (rw, block size, direction); "
            "each point is the mean of its repeats, whiskers are 95 % confidence intervals."
        )
        if n
        else ""
    )
    return {
        "intro": intro,
        "blocks": [b for b in blocks if b["charts"]],
        "notes": list(sweep.notes),
    }


def timeseries_section(
    cmp: Comparison, series: Mapping[int, Sequence[Series]], chart: ChartSink
) -> dict | None:
    """Charts (title, embedded) of the workloads' time series and a note on any left out;
    None when no run has a series. ``series``: run id -> its workloads' ``Store.series``."""
    runs = [
        (col.name, i, series.get(run.id, ()))
        for i, col in enumerate(cmp.columns)
        for run in col.runs
    ]
    chosen, note = select(timelines(runs))
    if not chosen:
        return None
    charts = [(tl.title, chart(timeline_chart(tl), f"time-{i:02d}")) for i, tl in enumerate(chosen)]
    return {"charts": [c for c in charts if c[1]], "note": note}


def _block(title: str, charts: list[tuple[str, str | None]]) -> dict:
    return {"title": title, "charts": [(alt, src) for alt, src in charts if src]}
