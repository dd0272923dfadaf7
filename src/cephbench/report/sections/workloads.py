"""The Per workload section: each workload's figures per run as bars, and its latency
percentiles; sweep workloads are left to the Sweep section. A report of one configuration
has nothing to set side by side: one chart has every workload's figures (a bar each), and
each workload its percentiles."""

from __future__ import annotations

from typing import Any

from cephbench.report import charts
from cephbench.report.sections import TEMPLATES, ReportData


class WorkloadsSection:
    name = "workloads"
    order = 60
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> dict[str, Any]:
        cmp, chart = data.cmp, data.chart
        one = len(cmp.columns) == 1
        workloads = []
        for i, (w, op) in enumerate(cmp.workloads()):
            if (w, op) in data.swept:
                continue
            workloads.append(
                {
                    "name": w,
                    "op": op,
                    "bars": None if one else chart(charts.metric_bars(cmp, w, op), f"{i:02d}-bars"),
                    "percentiles": chart(
                        charts.percentile_chart(cmp, w, op), f"{i:02d}-percentiles"
                    ),
                }
            )
        overview = chart(charts.run_bars(cmp, exclude=data.swept), "bars") if one else None
        return {
            "overview": overview,
            "workloads": workloads,
            "swept": len({w for w, _ in data.swept}),
        }
