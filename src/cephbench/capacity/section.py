"""The capacity searches' section of a report (``cephbench report --capacity N``).

What a search found is a curve, not a figure: the offered load against what the target
achieved, and the latency percentiles climbing towards the target until the knee. The section
shows, for each search, the headline ``cephbench capacity`` prints and its steps; one chart
holds every search's curve, so a healthy search beside one run while the cluster recovered
shows how much of the load the recovery took and where the latency left. Two searches of one
rule and workload are compared as ``capacity --compare`` does (B against A, with its CI).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from cephbench.capacity.output import comparison_line, comparison_table, headline, steps_table
from cephbench.report.charts import PALETTE, decades_y
from cephbench.report.sections import ChartSink, ReportData
from cephbench.tables.table import fmt_ms

PERCENTS = (("p50_us", "p50", "v"), ("p99_us", "p99", "o"), ("p999_us", "p99.9", "^"))
"""The percentiles charted: the step's key, its label, its marker (each search its colour)."""


class CapacitySection:
    name = "capacity"
    order = 15
    scope = "report"
    templates = Path(__file__).parent / "templates"

    def build(self, data: ReportData) -> dict[str, Any] | None:
        if not data.capacity:
            return None
        return capacity_section(
            data.capacity["searches"], data.capacity.get("comparison"), data.chart
        )


def name_of(doc: dict[str, Any]) -> str:
    """A search as its legend and headings name it: its number and what ran beside it."""
    return f"search {doc['capacity']} ({doc['while'] or 'healthy'})"


def capacity_section(
    searches: list[dict[str, Any]], comparison: dict[str, Any] | None, chart: ChartSink
) -> dict[str, Any]:
    """The section's context from ``cephbench.capacity/1`` documents (and, for two of one
    rule and workload, their ``cephbench.capacity-comparison/1``)."""
    return {
        "title": "Capacity: " + ", ".join(name_of(d) for d in searches),
        "chart": chart(curves_chart(searches), "capacity-curves"),
        "searches": [
            {
                "name": f"Capacity {name_of(d)} on {d['target'] or '-'}",
                "lines": headline(d),
                "steps": steps_table(d),
                "notes": d["notes"],
            }
            for d in searches
        ],
        "comparison": (
            {"table": comparison_table(comparison), "line": comparison_line(comparison)}
            if comparison
            else None
        ),
    }


def curves_chart(searches: list[dict[str, Any]]) -> Figure | None:
    """Above, the achieved IOPS against the offered (the diagonal: keeping up); below, the
    latency percentiles against the offered load on a log scale, the target as a line. Each
    search its colour, every step a point (repeats overlap: points, not lines, since a rate
    near the capacity can meet the target in one repeat and miss it in the next), its
    capacity a vertical line."""
    shown = [d for d in searches if d["steps"]]
    if not shown:
        return None
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(7.5, 6.4), layout="constrained", sharex=True, height_ratios=(1, 1.3)
    )
    highest = max(s["offered_iops"] for d in shown for s in d["steps"])
    top.plot([0, highest], [0, highest], color="#BBBBBB", linewidth=1, label="offered")
    for k, doc in enumerate(shown):
        color = PALETTE[k % len(PALETTE)]
        steps = sorted(doc["steps"], key=lambda s: s["offered_iops"])
        xs = [s["offered_iops"] for s in steps]
        top.scatter(
            xs,
            [s["achieved_iops"] for s in steps],
            color=color,
            s=14,
            label=name_of(doc),
            zorder=2,
        )
        for key, _label, marker in PERCENTS:
            pts = [(s["offered_iops"], s[key] / 1000) for s in steps if s.get(key)]
            if pts:
                bottom.scatter(*zip(*pts, strict=True), marker=marker, color=color, s=16)
        capacity = doc["result"]["capacity_iops"]
        if capacity is not None:
            for ax in (top, bottom):
                ax.axvline(capacity, color=color, linewidth=1.2, alpha=0.7)
            ci = doc["result"]["ci95_iops"]
            if ci:
                bottom.axvspan(ci[0], ci[1], color=color, alpha=0.08)
        if doc["knee"]:
            knee = doc["knee"]
            bottom.scatter(
                [knee["offered_iops"]],
                [knee["latency_us"] / 1000],
                marker="D",
                s=60,
                facecolors="none",
                edgecolors=color,
                linewidths=1.5,
                zorder=3,
            )
    rule = shown[0]["rule"]
    bottom.axhline(rule["target_us"] / 1000, color="#D55E00", linewidth=1, linestyle="-.")
    bottom.annotate(
        f"target: p{rule['percentile']:g} {fmt_ms(rule['target_us'])} ms",
        (0.01, rule["target_us"] / 1000),
        xycoords=("axes fraction", "data"),
        fontsize=8,
        color="#D55E00",
        va="bottom",
    )
    top.set_ylabel("achieved IOPS")
    top.set_title(
        "Each step: achieved against offered (vertical lines: the capacities)", loc="left"
    )
    top.legend(loc="upper left", fontsize=8)
    bottom.set_ylabel("latency (ms)")
    bottom.set_xlabel("offered IOPS")
    bottom.set_title("Latency percentiles (diamond: the knee; band: the 95 % CI)", loc="left")
    decades_y(bottom)
    for _key, label, marker in PERCENTS:  # the colours are the searches, named above
        bottom.scatter([], [], marker=marker, color="#555555", s=16, label=label)
    bottom.legend(loc="upper left", fontsize=8)
    return fig
