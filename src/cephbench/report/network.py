"""The report's Network section: for each run of the network suite, its N×N matrix of
Gbit/s (sender row, receiver column) as an annotated heatmap, and the pairs far below the
others named (median/MAD, :mod:`cephbench.tools.iperf3.matrix`).

Colour runs from 0 to the run's fastest pair, so a slow pair is a dark cell whatever the
links' speed; the diagonal (a host to itself) and pairs without a figure are grey, outliers
are outlined in red and marked "!".
"""

from __future__ import annotations

from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from cephbench.analysis.compare import Comparison
from cephbench.report.charts import WORSE
from cephbench.report.heatmap import CMAP
from cephbench.tools.iperf3.matrix import Matrix, matrix, outliers
from cephbench.tools.iperf3.table import outlier_notes

ChartSink = Callable[[Figure | None, str], str | None]


def network_heatmap(mx: Matrix, title: str) -> Figure | None:
    """Gbit/s of every directed pair; None without a figure."""
    if not mx.cells:
        return None
    n = len(mx.hosts)
    values = np.ma.masked_invalid(
        np.array([[np.nan if v is None else v / 1e9 for v in row] for row in mx.rows()])
    )
    bad = {o.pair for o in outliers(mx.cells)}
    norm = Normalize(0, float(values.max()) or 1.0)
    side = min(9.0, 1.2 + 0.75 * n)
    fig, ax = plt.subplots(figsize=(side + 1.4, side), layout="constrained")
    image = ax.imshow(values, cmap=CMAP, norm=norm, aspect="equal")
    fontsize = 8 if n <= 8 else 6
    for (i, j), v in np.ndenumerate(values.filled(np.nan)):
        a, b = mx.hosts[i], mx.hosts[j]
        if np.isnan(v):
            text, ink = ("—" if a == b else "n/a"), "#555555"
        else:
            r, g, bl, _ = CMAP(norm(v))
            ink = "black" if 0.299 * r + 0.587 * g + 0.114 * bl > 0.5 else "white"
            text = f"{v:.2f}" + ("!" if (a, b) in bad else "")
        ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, color=ink)
        if (a, b) in bad:
            ax.add_patch(
                Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=WORSE, linewidth=2)
            )
    ax.set_xticks(
        range(n), mx.hosts, rotation=45 if n > 4 else 0, ha="right" if n > 4 else "center"
    )
    ax.set_yticks(range(n), mx.hosts)
    ax.set_xlabel("receiver")
    ax.set_ylabel("sender")
    ax.grid(False)
    fig.colorbar(image, ax=ax, label="Gbit/s received", shrink=0.85)
    ax.set_title(title, fontsize=9)
    return fig


def network_section(cmp: Comparison, chart: ChartSink) -> list[dict]:
    """Per run with host pairs: title, heatmap, notes (the outliers)."""
    out = []
    for col in cmp.columns:
        for run in col.runs:
            mx = matrix(run.results)
            if not mx.cells:
                continue
            title = f"{col.name}: iperf3 Gbit/s, sender → receiver (mean of the repeats)"
            out.append(
                {
                    "title": title,
                    "chart": chart(network_heatmap(mx, title), f"network-{run.id or 0}"),
                    "notes": outlier_notes(outliers(mx.cells)),
                }
            )
    return out
