"""The Validity flags section: every flagged result, by run: the reasons to trust a figure
less."""

from __future__ import annotations

from cephbench.analysis.compare import Comparison
from cephbench.report.markdown import run_header
from cephbench.report.sections import TEMPLATES, ReportData
from cephbench.tables.run_table import note_text


class ValiditySection:
    name = "validity"
    order = 100
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> list[str]:
        return validity(data.cmp)


def validity(cmp: Comparison) -> list[str]:
    """Each run's flags, once per workload, direction and flag."""
    out = []
    for col in cmp.columns:
        for run in col.runs:
            seen = dict.fromkeys((r.workload, r.op, f) for r in run.results for f in r.flags)
            out += [f"{run_header(run)}: {w} ({op}): {note_text(f)}" for w, op, f in seen]
    return out
