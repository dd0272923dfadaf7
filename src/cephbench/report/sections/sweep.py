"""The Sweep section: which charts of a parameter sweep, in which order, with which notes.

Per pattern (rw, rwmixread, direction): the IOPS heatmap with a panel per block size,
then per block size IOPS and latency against iodepth, against numjobs, and the response
curve: at most 3 figures per block size and one per pattern, whatever the number of points
(a 3 bs × 7 iodepth × 7 numjobs × 2 rw matrix: 20 figures).
"""

from __future__ import annotations

from cephbench.report.heatmap import heatmap_chart
from cephbench.report.matrix import scaling_chart
from cephbench.report.response import response_chart
from cephbench.report.sections import TEMPLATES, ChartSink, ReportData
from cephbench.report.sweep_points import Sweep, family_title


class SweepSection:
    name = "sweep"
    order = 30
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> dict | None:
        if data.probes_only:
            return None  # a diagnosis' probe workloads are a known load, not a sweep
        return sweep_section(data.sweep, data.chart)


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


def _block(title: str, charts: list[tuple[str, str | None]]) -> dict:
    return {"title": title, "charts": [(alt, src) for alt, src in charts if src]}
