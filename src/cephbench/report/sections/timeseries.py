"""The Time series section: throughput and latency over each logging interval of the
workloads, the stalled and the most variable first when there are too many to chart."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cephbench.analysis.compare import Comparison
from cephbench.model import Series
from cephbench.report.sections import TEMPLATES, ChartSink, ReportData
from cephbench.report.stalls import select, timelines
from cephbench.report.timeline import timeline_chart


class TimeseriesSection:
    name = "timeseries"
    order = 70
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> dict | None:
        return timeseries_section(data.cmp, data.series, data.chart)


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
