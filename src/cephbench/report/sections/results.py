"""The Results section: every compared metric as a table, a row per workload; a report of one
configuration shows its runs' own tables instead (those ``show`` prints), as a comparison's
one-column tables say nothing a run's table does not."""

from __future__ import annotations

from cephbench import tools
from cephbench.analysis.compare import Comparison
from cephbench.report.markdown import result_tables
from cephbench.report.sections import TEMPLATES, ReportData
from cephbench.tables.table import Table


class ResultsSection:
    name = "results"
    order = 50
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> list[Table]:
        return results(data.cmp)


def results(cmp: Comparison) -> list[Table]:
    if len(cmp.columns) > 1:
        return result_tables(cmp)
    return [t for run in cmp.baseline.runs for t in tools.of_run(run).tables(run)]
