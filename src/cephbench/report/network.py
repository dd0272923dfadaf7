"""The Network section's chart: a run of the network suite's N×N matrix of bits per second
(Gbit/s or Mbit/s by the fastest pair, as ``show`` prints it; sender row, receiver column) as an annotated heatmap, the pairs far below the others
(median/MAD, :mod:`cephbench.tools.iperf3.matrix`) marked.

Colour runs from 0 to the run's fastest pair, so a slow pair is a dark cell whatever the
links' speed; the diagonal (a host to itself) and pairs without a figure are grey, outliers
are outlined in red and marked "!".
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from cephbench.report.charts import WORSE
from cephbench.report.heatmap import CMAP
from cephbench.system.units import bits_unit, format_bits
from cephbench.tools.iperf3.matrix import Matrix, outliers


def network_heatmap(mx: Matrix, title: str) -> Figure | None:
    """Bits per second of every directed pair; None without a figure."""
    if not mx.cells:
        return None
    n = len(mx.hosts)
    unit = matrix_unit(mx)
    values = np.ma.masked_invalid(
        np.array([[np.nan if v is None else v / unit[1] for v in row] for row in mx.rows()])
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
            text = format_bits(v * unit[1], unit) + ("!" if (a, b) in bad else "")
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
    fig.colorbar(image, ax=ax, label=f"{unit[0]} received", shrink=0.85)
    ax.set_title(title, fontsize=9)
    return fig


def matrix_unit(mx: Matrix) -> tuple[str, float]:
    """The matrix's one unit, by its fastest pair (:func:`cephbench.system.units.bits_unit`)."""
    return bits_unit(max((v for row in mx.rows() for v in row if v is not None), default=None))
