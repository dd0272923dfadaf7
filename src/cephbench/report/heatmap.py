"""The IOPS heatmap of a sweep: iodepth × numjobs, a panel per block size (a row per run
when several are compared), every cell annotated; instead of fio-plot's 3D bars.

Colour runs from 0 to the highest IOPS of the block size (all runs share it, so the same
colour is the same IOPS across a column of panels); a point without a figure (not run, or
failed) is a grey "n/a" cell, one that did not settle is marked "*".
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from cephbench.report.charts import short
from cephbench.report.curves import UNSETTLED_TEXT
from cephbench.report.sweep_points import Point, PointKey, Sweep, bs_label, family_title

CMAP = plt.get_cmap("cividis").with_extremes(bad="#E8E8E8")
"""Perceptually uniform and readable with colour-blindness and in greyscale."""


def heatmap_chart(sweep: Sweep, family: tuple[str, int | None, str]) -> Figure | None:
    """IOPS over iodepth × numjobs for every block size of ``family`` (rw, rwmixread, op);
    None unless some block size varies both."""
    groups = [
        g
        for g in sweep.groups
        if g.family == family
        and len(sweep.values(g, "iodepth")) > 1
        and len(sweep.values(g, "numjobs")) > 1
    ]
    if not groups:
        return None
    rows = len(sweep.names)
    fig, axes = plt.subplots(
        rows,
        len(groups),
        squeeze=False,
        layout="constrained",
        figsize=(3.6 * len(groups) + 0.8, 2.9 * rows + 0.7),
    )
    flagged = []
    for c, group in enumerate(groups):
        qds, njs = sweep.values(group, "iodepth"), sweep.values(group, "numjobs")
        cells = [iops_grid(pts, qds, njs) for pts in sweep.groups[group]]
        top = max((float(v.max()) for v, _ in cells if v.count()), default=1.0)
        norm = Normalize(0, top or 1.0)
        for r, (values, unsettled) in enumerate(cells):
            ax = axes[r, c]
            image = ax.imshow(values, cmap=CMAP, norm=norm, origin="lower", aspect="auto")
            _annotate(ax, values, unsettled, norm)
            ax.set_xticks(range(len(qds)), [str(q) for q in qds])
            ax.set_yticks(range(len(njs)), [str(n) for n in njs])
            ax.set_xlabel("iodepth (I/Os in flight per job)")
            ax.set_ylabel("numjobs (jobs)")
            ax.grid(False)
            who = f" — {short(sweep.names[r])}" if rows > 1 else ""
            ax.set_title(f"bs {bs_label(group.bs)}{who}", fontsize=9)
        fig.colorbar(
            image, ax=axes[:, c], label=f"IOPS (IO/s), bs {bs_label(group.bs)}", shrink=0.9
        )
        flagged += [f for pts in sweep.groups[group] for p in pts.values() for f in p.flags]
    note = ""
    if flagged:
        note = "\n* " + " or ".join(UNSETTLED_TEXT.get(f, f) for f in dict.fromkeys(flagged))
    title = f"{family_title(family)}: IOPS over iodepth × numjobs (mean of the repeats); grey n/a: no figure"
    fig.suptitle(
        "\n".join(textwrap.wrap(title, width=max(40, int(fig.get_figwidth() * 11)))) + note,
        fontsize=9,
    )
    return fig


def iops_grid(
    points: dict[PointKey, Point], qds: list[int], njs: list[int]
) -> tuple[np.ma.MaskedArray, np.ndarray]:
    """Mean IOPS as a (numjobs × iodepth) masked array (masked: no figure), and which cells
    did not settle."""
    values = np.ma.masked_all((len(njs), len(qds)))
    unsettled = np.zeros((len(njs), len(qds)), dtype=bool)
    for (qd, nj), p in points.items():
        if "iops" in p.figures:
            values[njs.index(nj), qds.index(qd)] = p.figures["iops"].mean
            unsettled[njs.index(nj), qds.index(qd)] = bool(p.flags)
    return values, unsettled


def fmt_iops(v: float) -> str:
    """Short enough for a cell: 950, 9500, 95.0k, 950k, 9.50M."""
    if v < 10_000:
        return f"{v:.0f}"
    if v < 100_000:
        return f"{v / 1e3:.1f}k"
    return f"{v / 1e3:.0f}k" if v < 1e6 else f"{v / 1e6:.2f}M"


def _annotate(ax, values: np.ma.MaskedArray, unsettled: np.ndarray, norm: Normalize) -> None:
    fontsize = 7 if values.shape[1] <= 7 else 5.5
    for (i, j), v in np.ndenumerate(values.filled(np.nan)):
        if np.isnan(v):
            ax.text(j, i, "n/a", ha="center", va="center", fontsize=fontsize, color="#555555")
            continue
        r, g, b, _ = CMAP(norm(v))
        ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
        ax.text(
            j,
            i,
            fmt_iops(v) + ("*" if unsettled[i, j] else ""),
            ha="center",
            va="center",
            fontsize=fontsize,
            color=ink,
        )
