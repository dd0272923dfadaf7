"""The Network between hosts section: per run with host pairs, the iperf3 matrix as a
heatmap, and the pairs far below the others."""

from __future__ import annotations

from cephbench.analysis.compare import Comparison
from cephbench.report.network import matrix_unit, network_heatmap
from cephbench.report.sections import TEMPLATES, ChartSink, ReportData
from cephbench.tools.iperf3.matrix import matrix, outliers
from cephbench.tools.iperf3.table import outlier_notes


class NetworkSection:
    name = "network"
    order = 80
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> list[dict] | None:
        return network_section(data.cmp, data.chart) or None


def network_section(cmp: Comparison, chart: ChartSink) -> list[dict]:
    """Per run with host pairs: title, heatmap, notes (the outliers)."""
    out = []
    for col in cmp.columns:
        for run in col.runs:
            mx = matrix(run.results)
            if not mx.cells:
                continue
            unit, _ = matrix_unit(mx)
            title = f"{col.name}: iperf3 {unit}, sender → receiver (mean of the repeats)"
            out.append(
                {
                    "title": title,
                    "chart": chart(network_heatmap(mx, title), f"network-{run.id or 0}"),
                    "notes": outlier_notes(outliers(mx.cells)),
                }
            )
    return out
