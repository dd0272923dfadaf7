"""The Per workload section: each workload's figures per run as bars, and its latency
percentiles; sweep workloads are left to the Sweep section."""

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
        workloads = []
        for i, (w, op) in enumerate(cmp.workloads()):
            if (w, op) in data.swept:
                continue
            workloads.append(
                {
                    "name": w,
                    "op": op,
                    "bars": chart(charts.metric_bars(cmp, w, op), f"{i:02d}-bars"),
                    "percentiles": chart(
                        charts.percentile_chart(cmp, w, op), f"{i:02d}-percentiles"
                    ),
                }
            )
        return {"workloads": workloads, "swept": len({w for w, _ in data.swept})}
