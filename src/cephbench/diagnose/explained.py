"""The "Explained" section of ``cephbench report``: inside a Ceph run's block, each workload
beside its ceiling, the efficiency and the limiting part (``cephbench explain``). The report
command adds the explanation to the run's outputs (tool ``explanation``, not stored) when a
diagnosis of the run's cluster is stored; the section shows it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cephbench.report.sections import ReportData

TOOL = "explanation"
"""The tool name of the explanation among a run's outputs in a report (never stored)."""


class ExplainedSection:
    name = "explained"
    order = 125
    scope = "run"
    templates = Path(__file__).parent / "templates"

    def build(self, data: ReportData) -> dict[str, Any] | None:
        from cephbench.diagnose.explain import tables

        assert data.run is not None  # a section of scope "run"
        for o in reversed(data.provenance.get(data.run.id, [])):
            if o["tool"] == TOOL and o.get("stdout"):
                return {"tables": tables(json.loads(o["stdout"]))}
        return None


def explanation_output(doc: dict[str, Any]) -> dict[str, Any]:
    """An explanation as a run's output the report reads (not stored); the Runs section
    lists it as the command that prints it."""
    return {
        "tool": TOOL,
        "stdout": json.dumps(doc),
        "argv": ["cephbench", "explain", str(doc["run"]), "--diagnosis", str(doc["diagnosis_run"])],
        "input_text": None,
        "stderr": "",
        "repeat": 0,
        "id": None,
    }
