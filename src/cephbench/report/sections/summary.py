"""The Summary section: per compared run, how many cells are better, worse, the same or
inconclusive; the comparison's warnings; the chart of every difference to the baseline."""

from __future__ import annotations

from typing import Any

from cephbench.analysis.compare import Comparison
from cephbench.analysis.equivalence import SAME_WITHIN, VERDICTS
from cephbench.report import charts
from cephbench.report.markdown import comparison_notes
from cephbench.report.sections import TEMPLATES, ReportData


class SummarySection:
    name = "summary"
    order = 20
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> dict[str, Any] | None:
        if data.probes_only and len(data.cmp.columns) < 2:
            return None  # a diagnosis: its findings open the report, nothing to compare
        cmp = data.cmp
        return {
            "lines": summary(cmp),
            "notes": comparison_notes(cmp),
            "diff_chart": data.chart(charts.diff_chart(cmp, exclude=data.swept), "diff"),
        }


def summary(cmp: Comparison) -> list[str]:
    """One line per compared run: how many cells are better, worse, the same, inconclusive,
    untested (:mod:`cephbench.analysis.equivalence`)."""
    if len(cmp.columns) < 2:
        return [f"One configuration ({cmp.baseline.name}): nothing to compare; its figures follow."]
    band = f"±{SAME_WITHIN:g} %"
    lines = []
    for col in cmp.columns[1:]:
        counts = dict.fromkeys(VERDICTS, 0)
        for row in cmp.rows:
            counts[row.verdict(col.key)] += 1
        parts = [
            f"{counts['better']} significantly better",
            f"{counts['worse']} significantly worse",
            f"{counts['same']} the same (95 % CI within {band})",
        ]
        if counts["inconclusive"]:
            parts.append(
                f"{counts['inconclusive']} inconclusive (not significant, but the CI reaches "
                f"past {band})"
            )
        if counts["unknown"]:
            parts.append(f"{counts['unknown']} untested (1 sample: significance unknown)")
        if counts["missing"]:
            parts.append(f"{counts['missing']} without a figure on one side")
        lines.append(
            f"{col.name} vs {cmp.baseline.name}: "
            + ", ".join(parts)
            + f" of {len(cmp.rows)} cells."
        )
    return lines
