"""The Runs section: per run, what it ran on, its parameters (a table) and schedule, its cluster, the
commands and job files it ran; and inside each run's block the sections of scope ``"run"``
(a diagnosis), in their order."""

from __future__ import annotations

import shlex
from typing import Any

from cephbench.report.markdown import cluster_table, run_header
from cephbench.report.params import params_table
from cephbench.report.sections import TEMPLATES, ReportData, Section, sections
from cephbench.tables.run_table import schedule_notes


class RunsSection:
    name = "runs"
    order = 110
    scope = "report"
    templates = TEMPLATES

    def build(self, data: ReportData) -> list[dict[str, Any]]:
        per_run = sections("run")
        return [
            {
                "header": run_header(run),
                "run": run,
                "params": params_table(run),
                "schedule": schedule_notes(run),
                "sections": _shown(per_run, data.for_run(run)),
                "cluster": cluster_table(run, data.cmp.clusters.get(run.id)),
                "outputs": _dedupe(_outputs(data.provenance.get(run.id, []))),
            }
            for col in data.cmp.columns
            for run in col.runs
        ]


def _shown(per_run: list[Section], data: ReportData) -> list[tuple[str, Any]]:
    """(name, context) of the run's sections with something to show."""
    built = ((s.name, s.build(data)) for s in per_run)
    return [(name, ctx) for name, ctx in built if ctx is not None]


def _outputs(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "repeat": o["repeat"],
            "tool": o["tool"],
            "command": shlex.join(o["argv"]),
            "input": o["input_text"],
        }
        for o in outputs
    ]


def _dedupe(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Repeats usually run the same command and job file: show it once, with its repeats."""
    seen: dict[tuple, dict[str, Any]] = {}
    for o in outputs:
        key = (o["tool"], o["command"], o["input"])
        if key in seen:
            seen[key]["repeats"].append(o["repeat"] + 1)
        else:
            seen[key] = {**o, "repeats": [o["repeat"] + 1]}
    return list(seen.values())
