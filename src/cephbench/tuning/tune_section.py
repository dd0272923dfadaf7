"""The tune's section of a report (``cephbench report --tune N``).

A tune is the write-up's "attempts" made exactly, and its section is what the write-up would
have shown: the attempts table ``cephbench tune`` prints (each attempt's IOPS per workload,
the difference to the previous attempt and to the first with their CIs, kept or reverted),
the changes left in place with what undoes them, and one chart per workload of its IOPS
across the attempts. The kept attempts join into one line, the configuration carried from
attempt to attempt; a reverted attempt is a hollow point off that line, joined to the
attempt it was measured against. The report's other sections compare the rounds of the tune's
final experiment (the final configuration against the first), or of its first attempt when
it kept nothing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from cephbench.report.charts import PALETTE, short
from cephbench.report.sections import ChartSink, ReportData
from cephbench.tables.table import fmt_change
from cephbench.tuning.tune_report import attempts_table, kept_lines


class TuneSection:
    name = "tune"
    order = 12
    scope = "report"
    templates = Path(__file__).parent / "templates"

    def build(self, data: ReportData) -> dict[str, Any] | None:
        return tune_section(data.tune, data.chart) if data.tune else None


def tune_section(doc: dict[str, Any], chart: ChartSink) -> dict[str, Any]:
    """The section's context from a tune's ``cephbench.tuning/1`` document."""
    return {
        "title": f"The attempts of tune {doc['tune']}",
        "summary": summary(doc),
        "status": doc.get("status", ""),
        "table": replace(attempts_table(doc, " "), title=None),  # the section's title says it
        "lines": kept_lines(doc) + [f"stopped: {doc['stopped']}"] * bool(doc.get("stopped")),
        "chart": chart(attempts_chart(doc), "tune-attempts"),
        "compared": compared(doc),
    }


def shown_suite(doc: dict[str, Any]) -> str:
    """The suite as a title names it: a suite file by its name, not its whole path."""
    return PurePath(doc["suite"]).name if "/" in doc["suite"] else doc["suite"]


def summary(doc: dict[str, Any]) -> str:
    """One sentence: what was tried, what was kept, and the final against the first."""
    tried = [a for a in doc.get("attempts", []) if a["remedy"] and not a["final"]]
    kept = [a["remedy"] for a in tried if a["kept"]]
    text = f"{len(tried)} change{'s' * (len(tried) != 1)} tried"
    text += f", {len(kept)} kept ({', '.join(kept)})" if kept else ", none kept"
    final = next((a for a in doc.get("attempts", []) if a["final"]), None)
    if final is not None:
        moves = [
            f"{c['workload']} {fmt_change(c['to_first']['pct'], c['to_first']['ci95'], ' ')}"
            for c in final["cells"]
            if c["to_first"]
        ]
        text += f"; the final against the first: {final['verdict']}"
        text += f" ({'; '.join(moves)})" if moves else ""
    return text + "."


def reported_experiment(doc: dict[str, Any]) -> int | None:
    """The experiment whose rounds the report compares: the final configuration's against
    the first, else (nothing kept) the first attempt's; None when none ran."""
    attempts = doc.get("attempts", [])
    final = next((a for a in attempts if a["final"]), None)
    tried = [a for a in attempts if a["experiment"] is not None]
    return final["experiment"] if final else (tried[0]["experiment"] if tried else None)


def compared(doc: dict[str, Any]) -> str | None:
    """What the report's other sections compare, in words (see :func:`reported_experiment`)."""
    exp = reported_experiment(doc)
    if exp is None:
        return None
    final = any(a["final"] for a in doc.get("attempts", []))
    what = "the final configuration against the first" if final else "the first attempt's"
    return f"{exp} ({what})"


def attempts_chart(doc: dict[str, Any]) -> Figure | None:
    """One panel per workload: its IOPS at each attempt; kept attempts (and the first) on
    one line, reverted ones hollow, joined by a dashed line to the attempt before them."""
    attempts = [a for a in doc.get("attempts", []) if not a["final"]]
    workloads = list(dict.fromkeys(c["workload"] for a in attempts for c in a["cells"]))
    if len(attempts) < 2 or not workloads:
        return None
    final = next((a for a in doc.get("attempts", []) if a["final"]), None)
    final_moves = {
        c["workload"]: fmt_change(c["to_first"]["pct"], c["to_first"]["ci95"])
        for c in (final["cells"] if final else [])
        if c["to_first"]
    }
    fig, axes = plt.subplots(
        len(workloads),
        1,
        figsize=(7.5, 1.9 * len(workloads) + 0.6),
        layout="constrained",
        squeeze=False,
    )
    for ax, workload in zip(axes[:, 0], workloads, strict=True):
        points = [
            (a["attempt"], c["iops"], a)
            for a in attempts
            for c in a["cells"]
            if c["workload"] == workload and c["iops"] is not None
        ]
        carried = None  # the configuration each attempt was measured against
        path = []
        for x, y, a in points:
            if a["kept"] is False:
                if carried is not None:
                    ax.plot([carried[0], x], [carried[1], y], color=PALETTE[1], ls="--", lw=1)
                ax.scatter([x], [y], facecolors="white", edgecolors=PALETTE[1], zorder=3)
            else:
                carried = (x, y)
                path.append(carried)
        if path:
            xs, ys = zip(*path, strict=True)
            ax.plot(xs, ys, color=PALETTE[0], marker="o", zorder=2)
        moved = final_moves.get(workload)
        ax.set_title(
            short(workload, 40) + (f": final against first {moved}" if moved else ""), loc="left"
        )
        ax.set_ylabel("IOPS")
        ax.set_xticks([a["attempt"] for a in attempts])
        ax.set_xticklabels(
            [f"{a['attempt']}\n{short(a['remedy'] or 'as found', 16)}" for a in attempts],
            fontsize=8,
        )
    axes[0, 0].plot([], [], color=PALETTE[0], marker="o", label="as found, then kept")
    axes[0, 0].scatter([], [], facecolors="white", edgecolors=PALETTE[1], label="reverted")
    axes[0, 0].legend(loc="lower right", fontsize=8)
    axes[-1, 0].set_xlabel("attempt")
    return fig
