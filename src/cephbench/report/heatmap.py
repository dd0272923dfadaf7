"""The IOPS heatmap of a sweep: iodepth × numjobs, a panel per block size (a row per run
when several are compared), every cell annotated; instead of fio-plot's 3D bars.

Colour runs from 0 to the highest IOPS of the block size (all runs share it, so the same
colour is the same IOPS across a column of panels), unless the runs' highest IOPS are
:data:`~.curves.APART` times apart or more: then each run has its own scale and colour bar,
or the slower run would be one dark block. A comparison adds a row per compared run of its
IOPS as a percentage of the baseline's at every point. A point without a figure (not run, or
failed) is a grey "n/a" cell, one that did not settle is marked "*".
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import Normalize, TwoSlopeNorm
from matplotlib.figure import Figure

from cephbench.report.charts import short, wrap_label
from cephbench.report.curves import UNSETTLED_TEXT, apart
from cephbench.report.sweep_points import Point, PointKey, Sweep, bs_label, family_title

CMAP = plt.get_cmap("cividis").with_extremes(bad="#E8E8E8")
"""Perceptually uniform and readable with colour-blindness and in greyscale."""
RATIO_CMAP = plt.get_cmap("PuOr").with_extremes(bad="#E8E8E8")
"""Percent of the baseline: orange below 100 %, purple above (colour-blind safe)."""


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
    runs = len(sweep.names)
    rows = 2 * runs - 1  # each run's IOPS, then each compared run relative to the baseline
    fig, axes = plt.subplots(
        rows,
        len(groups),
        squeeze=False,
        layout="constrained",
        figsize=(3.6 * len(groups) + 1.2, 2.9 * rows + 0.7),
    )
    flagged = []
    for c, group in enumerate(groups):
        qds, njs = sweep.values(group, "iodepth"), sweep.values(group, "numjobs")
        cells = [iops_grid(pts, qds, njs) for pts in sweep.groups[group]]
        tops = [float(v.max()) if v.count() else 0.0 for v, _ in cells]
        own = apart(tops)
        for r, (values, unsettled) in enumerate(cells):
            norm = Normalize(0, (tops[r] if own else max(tops)) or 1.0)
            who = f", {short(sweep.names[r])}" if own else ""
            image = _panel(axes[r, c], values, unsettled, qds, njs, norm, CMAP, fmt_iops)
            _title(axes[r, c], f"bs {bs_label(group.bs)}", sweep.names[r] if runs > 1 else "")
            if own or r == runs - 1:
                fig.colorbar(
                    image,
                    ax=axes[r, c] if own else axes[:runs, c],
                    label=f"IOPS (IO/s), bs {bs_label(group.bs)}{who}",
                    shrink=0.9,
                )
        for r, (values, unsettled) in enumerate(cells[1:], start=1):
            ratio = 100 * values / cells[0][0]
            ax = axes[runs + r - 1, c]
            norm = _ratio_norm(ratio)
            image = _panel(ax, ratio, unsettled | cells[0][1], qds, njs, norm, RATIO_CMAP, _pct)
            _title(ax, f"bs {bs_label(group.bs)}", f"{sweep.names[r]} as % of {sweep.names[0]}")
            fig.colorbar(image, ax=ax, label=f"% of {short(sweep.names[0])} IOPS", shrink=0.9)
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


def _panel(ax, values, unsettled, qds, njs, norm, cmap, fmt):
    """One annotated iodepth × numjobs panel; returns its image (for a colour bar)."""
    image = ax.imshow(values, cmap=cmap, norm=norm, origin="lower", aspect="auto")
    _annotate(ax, values, unsettled, norm, cmap, fmt)
    ax.set_xticks(range(len(qds)), [str(q) for q in qds])
    ax.set_yticks(range(len(njs)), [str(n) for n in njs])
    ax.set_xlabel("iodepth (I/Os in flight per job)")
    ax.set_ylabel("numjobs (jobs)")
    ax.grid(False)
    return image


def _title(ax, head: str, who: str) -> None:
    """A panel's title, the run's name wrapped so neighbouring titles do not run together."""
    ax.set_title(head + (f" — {wrap_label(who, 34, 2)}" if who else ""), fontsize=9)


def _ratio_norm(ratio: np.ma.MaskedArray) -> Normalize:
    """Centred on 100 % (the baseline), reaching the furthest cell on either side."""
    lo = float(ratio.min()) if ratio.count() else 100.0
    hi = float(ratio.max()) if ratio.count() else 100.0
    return TwoSlopeNorm(100, min(lo, 99.0), max(hi, 101.0))


def _pct(v: float) -> str:
    return f"{v:.0f} %" if v >= 1 else f"{v:.1f} %"


def _annotate(
    ax, values: np.ma.MaskedArray, unsettled: np.ndarray, norm: Normalize, cmap, fmt
) -> None:
    fontsize = 7 if values.shape[1] <= 7 else 5.5
    for (i, j), v in np.ndenumerate(values.filled(np.nan)):
        if np.isnan(v):
            ax.text(j, i, "n/a", ha="center", va="center", fontsize=fontsize, color="#555555")
            continue
        r, g, b, _ = cmap(norm(v))
        ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
        ax.text(
            j,
            i,
            fmt(v) + ("*" if unsettled[i, j] else ""),
            ha="center",
            va="center",
            fontsize=fontsize,
            color=ink,
        )
