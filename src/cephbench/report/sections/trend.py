"""The Over time section: a configuration's figures run after run, with the change points
found marked (see ``cephbench.report.trend``), and a table of the changes."""

from __future__ import annotations

from cephbench.analysis.compare import Comparison
from cephbench.report.sections import TEMPLATES, ChartSink, ReportData
from cephbench.report.trend import MAX_CHARTS, Trend, change_table, trend_chart, trends


class TrendSection:
    name = "trend"
    order = 40
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> dict | None:
        return trend_section(data.cmp, data.chart)


def trend_section(cmp: Comparison, chart: ChartSink) -> dict | None:
    """Charts and the change table; None when no configuration has enough runs."""
    found = trends(cmp)
    if not found:
        return None
    groups: dict[tuple[str, str, str], list[Trend]] = {}
    for t in found:
        groups.setdefault((t.column, t.workload, t.op), []).append(t)
    charts = []
    for i, ((column, workload, op), group) in enumerate(list(groups.items())[:MAX_CHARTS]):
        src = chart(trend_chart(group), f"trend-{i:02d}")
        if src:
            charts.append((f"{column}: {workload} ({op})", src))
    columns = sorted({t.column for t in found})
    changes = sum(len(t.changes) for t in found)
    intro = (
        f"{', '.join(columns)}: each point is one run (the mean of its repeats), in the order "
        f"the runs started; the orange lines are the levels found, dashed lines mark where a "
        f"new level starts ({changes} change point{'s' if changes != 1 else ''}; method: "
        "optimal segmentation by PELT, penalty 3 ln n, segments of 3 runs at least)."
    )
    note = (
        f"{len(groups) - MAX_CHARTS} more workloads are not charted; the change points of "
        "every workload are in the table."
        if len(groups) > MAX_CHARTS
        else ""
    )
    return {"intro": intro, "charts": charts, "changes": change_table(found), "note": note}
