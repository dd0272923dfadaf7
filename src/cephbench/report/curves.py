"""Drawing pieces shared by the sweep charts: one curve (means joined, 95 % CI whiskers,
hollow markers on points that did not settle), the legend entry for those, and the axes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from cephbench.analysis.stats import Summary
from cephbench.report.charts import PALETTE

YELLOW = "#F0E442"
LINE_COLOURS = (*(c for c in PALETTE if c != YELLOW), YELLOW)
"""Okabe–Ito with its yellow last: faint as a thin line on white, used only for an eighth line."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">")
HOLLOW_GID = "unsettled"
AXIS = {
    "iodepth": "iodepth (I/Os in flight per job, log scale)",
    "numjobs": "numjobs (jobs, log scale)",
}
FIGURES = {
    "iops": ("IOPS", "IO/s", 1.0),
    "lat_mean_us": ("mean latency", "ms", 1e-3),
    "lat_p99_us": ("p99 latency", "ms", 1e-3),
}
"""Result attribute -> (title, unit, raw value x scale = shown value)."""
APART = 8.0
"""Runs whose highest IOPS differ about an order of magnitude or more (this many times) do
not share a linear IOPS axis or a colour scale: the slower would lie flat near zero. The
k8s write-up's RAW file at 73k beside Ceph at 8k is 9 times apart."""
UNSETTLED_TEXT = {
    "not_steady": "never reached steady state",
    "ci_not_reached": "stopped before the CI target",
}


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str
    label: str


def line_style(i: int, label: str, colours: Sequence[str] = LINE_COLOURS) -> Style:
    return Style(colours[i % len(colours)], MARKERS[i % len(MARKERS)], label)


def curve(
    ax: Axes,
    xs: Sequence[float | Summary],
    ys: Sequence[float | Summary],
    hollow: Sequence[bool],
    style: Style,
    *,
    yscale: float = 1.0,
    linestyle: str = "-",
    legend: bool = True,
) -> None:
    """Means joined in order (y times ``yscale``); whiskers where a point has a CI (in x too
    when x is a Summary); a hollow marker on every ``hollow`` point."""
    x, xerr = _means(xs, 1.0)
    y, yerr = _means(ys, yscale)
    if xerr is not None or yerr is not None:
        ax.errorbar(
            x,
            y,
            xerr=xerr,
            yerr=yerr,
            fmt="none",
            ecolor=style.colour,
            elinewidth=0.8,
            capsize=0,
            alpha=0.8,
        )
    mask = np.asarray(hollow, dtype=bool)
    dashed = linestyle != "-"
    ax.plot(
        x,
        y,
        color=style.colour,
        linestyle=linestyle,
        linewidth=0.9 if dashed else 1.4,
        marker=style.marker,
        markersize=3 if dashed else 4,
        markevery=list(np.flatnonzero(~mask)),
        label=style.label if legend else "_nolegend_",
    )
    if mask.any():
        ax.plot(
            x[mask],
            y[mask],
            linestyle="",
            marker=style.marker,
            markersize=5.5,
            gid=HOLLOW_GID,
            markerfacecolor="white",
            markeredgecolor=style.colour,
            markeredgewidth=1.3,
            label="_nolegend_",
        )


def unsettled_handle(flags: Iterable[str]) -> Line2D | None:
    """The legend entry explaining hollow markers; None when no point is flagged."""
    texts = [UNSETTLED_TEXT.get(f, f) for f in dict.fromkeys(flags)]
    if not texts:
        return None
    return Line2D(
        [],
        [],
        linestyle="",
        marker="o",
        markerfacecolor="white",
        markeredgecolor="#333333",
        markeredgewidth=1.3,
        label="hollow: " + " or ".join(texts),
    )


def log2_axis(ax: Axes, values: Sequence[int]) -> None:
    """A log2 x axis ticked at the values that ran, labelled as they were given."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(list(values)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())


def log_y(ax: Axes) -> None:
    """Log y axis ticked at 1, 2, 5 × 10^n, as plain numbers (0.5, 2, 10)."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())


def iops_axis(axis) -> None:
    """IOPS ticks as 500, 20k, 1.5M: readable in a narrow panel (the label says IO/s)."""

    def tick(v: float, _pos) -> str:
        for div, suffix in ((1e6, "M"), (1e3, "k")):
            if abs(v) >= div:
                return f"{v / div:g}{suffix}"
        return f"{v:g}"

    axis.set_major_formatter(FuncFormatter(tick))


def apart(peaks: Iterable[float]) -> bool:
    """Whether the highest of ``peaks`` is :data:`APART` times the lowest (or more)."""
    shown = [p for p in peaks if p > 0]
    return len(shown) > 1 and max(shown) >= APART * min(shown)


def from_zero(ax: Axes) -> None:
    """The y axis from 0 to a little above the highest value of ``ax`` and the axes sharing
    its y (call once every line is in)."""
    top = max(a.dataLim.y1 for a in ax.get_shared_y_axes().get_siblings(ax))
    ax.set_ylim(0, top * 1.08 if np.isfinite(top) and top > 0 else 1)


def _means(values: Sequence[float | Summary], scale: float) -> tuple[np.ndarray, np.ndarray | None]:
    """Shown values, and (below, above) whisker lengths when any value has a CI."""
    means = [v.mean if isinstance(v, Summary) else float(v) for v in values]
    cis = [v.ci95 if isinstance(v, Summary) else None for v in values]
    shown = np.array(means, dtype=float) * scale
    if not any(cis):
        return shown, None
    bounds = np.array([ci or (m, m) for ci, m in zip(cis, means, strict=True)], dtype=float) * scale
    return shown, np.vstack([shown - bounds[:, 0], bounds[:, 1] - shown]).clip(min=0)
