"""A diagnosis in ``cephbench report``: its findings, budget, ceilings and checks as tables,
and the evidence drawn (each OSD's figures beside its peers', each host pair's throughput):
inside a diagnose run's block; or, in a report of diagnoses alone, first (the report opens
with the findings: :class:`DiagnosisFirstSection`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cephbench.diagnose.render import tables
from cephbench.diagnose.rules.osd import osd_figures
from cephbench.diagnose.tool import DIAGNOSIS_TOOL, EVIDENCE_TOOL
from cephbench.report.sections import ChartSink, ReportData

DRAWN = (
    ("device_ms", "BlueStore device wait (kv sync + aio), ms"),
    ("queued_ms", "queued before processing, ms"),
    ("subop_w_ms", "replica write (subop), ms"),
)


class DiagnosisSection:
    name = "diagnosis"
    order = 120
    scope = "run"
    templates = Path(__file__).parent / "templates"

    def build(self, data: ReportData) -> dict[str, Any] | None:
        assert data.run is not None  # a section of scope "run"
        if data.probes_only:
            return None  # shown first instead (DiagnosisFirstSection)
        return section(data.run.id, data.provenance.get(data.run.id, []), data.chart)


class DiagnosisFirstSection:
    """A report of diagnoses alone opens with each one's findings, budget and ceilings."""

    name = "diagnosis_first"
    order = 5
    scope = "report"
    templates = Path(__file__).parent / "templates"

    def build(self, data: ReportData) -> list[dict[str, Any]] | None:
        if not data.probes_only:
            return None
        out = []
        for col in data.cmp.columns:
            for run in col.runs:
                got = section(run.id, data.provenance.get(run.id, []), data.chart)
                if got is not None:
                    out.append({"run": run.id, **got})
        return out or None


def section(run_id: int, outputs: list[dict[str, Any]], chart: ChartSink) -> dict[str, Any] | None:
    """Tables and a chart for a diagnose run's outputs; None for other runs."""
    data = _stdout(outputs, DIAGNOSIS_TOOL)
    if data is None:
        return None
    evidence = _stdout(outputs, EVIDENCE_TOOL) or {}
    return {
        "tables": tables({"run": run_id, **data}, evidence),
        "chart": chart(_figure(evidence), f"diagnosis-{run_id}"),
    }


def _stdout(outputs: list[dict[str, Any]], tool: str) -> dict[str, Any] | None:
    for o in reversed(outputs):
        if o["tool"] == tool and o.get("stdout"):
            return json.loads(o["stdout"])
    return None


def _figure(evidence: dict[str, Any]):
    import matplotlib.pyplot as plt

    figs = osd_figures(evidence)
    pairs = {
        k: v.get("bits_per_second")
        for k, v in evidence.get("network", {}).get("pairs", {}).items()
        if v.get("bits_per_second")
    }
    if not figs and not pairs:
        return None
    n = len(DRAWN) + (1 if pairs else 0)
    fig, axes = plt.subplots(1, n, figsize=(3.2 * n, 3.0), squeeze=False)
    for ax, (key, title) in zip(axes[0], DRAWN, strict=False):
        names = list(figs)
        ax.bar(names, [figs[o].get(key) or 0.0 for o in names])
        ax.set_title(title, fontsize=8)
    if pairs:
        ax = axes[0][-1]
        ax.bar(list(pairs), [v / 1e6 for v in pairs.values()])
        ax.set_title("iperf3 between hosts, Mbit/s", fontsize=8)
        ax.tick_params(axis="x", labelrotation=45, labelsize=6)
    fig.tight_layout()
    return fig
