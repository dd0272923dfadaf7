"""The A/B experiment's section of a report (``cephbench report --experiment N``).

A report of an experiment's rounds is the ordinary comparison of its A and B runs, which
pools each side and tests them with Welch's test; what the experiment itself concluded is
the paired verdict, and that section comes first: the verdict tables ``cephbench ab`` prints,
the changes applied and reverted, and a chart of every round's IOPS in the order the rounds
ran, A and B marked. A drift over the experiment (the cluster filling, the machine's other
load) shows there as both sides moving together, which the blocks of adjacent rounds cancel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from cephbench.report.charts import PALETTE, short
from cephbench.report.sections import ChartSink, ReportData
from cephbench.tables.table import fmt_pct, fmt_pct_ci
from cephbench.tuning.report import tables

MARKERS = {"A": "o", "B": "^"}


class AbSection:
    name = "ab"
    order = 10
    scope = "report"
    templates = Path(__file__).parent / "templates"

    def build(self, data: ReportData) -> dict[str, Any] | None:
        return ab_section(data.ab, data.chart) if data.ab else None


def ab_section(doc: dict[str, Any], chart: ChartSink) -> dict[str, Any]:
    """The section's context from an experiment's ``cephbench.ab/1`` document."""
    found, lines = tables(doc)
    a, b = (c["name"] for c in doc["columns"])
    return {
        "title": f"A/B experiment {doc['experiment']}: {b} against {a}",
        "summary": doc["summary"],
        "status": doc["status"],
        "tables": found[:-1] if found else [],  # the per-round table is the chart here
        "lines": lines[:-1],  # the summary line is shown first
        "chart": chart(rounds_chart(doc), "ab-rounds"),
    }


def rounds_chart(doc: dict[str, Any]) -> Figure | None:
    """One panel per workload: IOPS per round in the order run, each side its marker."""
    rows = [r for r in doc["rows"] if r["metric"] == "iops" and r["points"]]
    if not rows:
        return None
    names = {"A": doc["columns"][0]["name"], "B": doc["columns"][1]["name"]}
    fig, axes = plt.subplots(
        len(rows), 1, figsize=(7.5, 1.9 * len(rows) + 0.6), layout="constrained", squeeze=False
    )
    for ax, row in zip(axes[:, 0], rows, strict=True):
        xs = [p["round"] for p in row["points"] if p["value"] is not None]
        ys = [p["value"] for p in row["points"] if p["value"] is not None]
        ax.plot(xs, ys, color="#BBBBBB", linewidth=1, zorder=1)
        for k, side in enumerate("AB"):
            pts = [(p["round"], p["value"]) for p in row["points"] if p["side"] == side]
            pts = [(x, y) for x, y in pts if y is not None]
            if pts:
                ax.scatter(
                    *zip(*pts, strict=True),
                    marker=MARKERS[side],
                    color=PALETTE[k],
                    label=short(names[side]),
                    zorder=2,
                )
        pct, ci = row["pct_diff"]["b"], row["pct_diff_ci95"]["b"]
        verdict = "" if pct is None else f": {fmt_pct(pct)}"
        if ci is not None:
            verdict += f" (95 % CI {fmt_pct_ci(ci)}), {row['verdict']}"
        workload = (
            row["workload"]
            if row["op"] in ("read", "write")
            else (f"{row['workload']} ({row['op']})")
        )
        ax.set_title(short(workload, 40) + verdict, loc="left")
        ax.set_ylabel("IOPS")
        ax.set_xticks(xs)
        ax.legend(loc="lower right", fontsize=8)
    axes[-1, 0].set_xlabel("round (in the order run)")
    return fig
