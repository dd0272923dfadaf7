"""The Environment differences section: what the compared runs recorded differently (host,
kernel, tools, cluster, suite, target, parameters)."""

from __future__ import annotations

from typing import Any

from cephbench.report.markdown import env_table
from cephbench.report.sections import TEMPLATES, ReportData


class EnvironmentSection:
    name = "environment"
    order = 90
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> dict[str, Any] | None:
        if sum(len(c.runs) for c in data.cmp.columns) < 2:
            return None  # one run: nothing to differ from (its parameters have their own table)
        return {"table": env_table(data.cmp)}  # None: nothing differs, which the section says
