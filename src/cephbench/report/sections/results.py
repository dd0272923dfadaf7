"""The Results section: every compared metric as a table, a row per workload."""

from __future__ import annotations

from cephbench.report.markdown import result_tables
from cephbench.report.sections import TEMPLATES, ReportData
from cephbench.tables.table import Table


class ResultsSection:
    name = "results"
    order = 50
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> list[Table]:
        return result_tables(data.cmp)
