"""The response curve of a sweep: IOPS (x) against latency (y), the "hockey stick" cbt draws.

Points of rising iodepth are joined (of rising numjobs when iodepth does not vary), a line
per value of the other parameter; p99 dashed beside the mean when a panel has few lines.
Several runs: a panel per value of the other parameter, a line per run, axes shared. The
latency axis is logarithmic when latencies span more than :data:`LOG_SPREAD` times.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from cephbench.report.curves import Style, curve, iops_axis, log_y
from cephbench.report.matrix import Points, ci_note, latency_keys, legend, other, panel_lines
from cephbench.report.sweep_points import Group, Sweep

ABBR = {"iodepth": "qd", "numjobs": "nj"}
WRAP = 4
"""At most this many panels a row."""
P99_LINES = 4
"""p99 (dashed) is drawn too when a panel has at most this many lines."""
LOG_SPREAD = 30


def response_chart(sweep: Sweep, group: Group) -> Figure | None:
    """None when no point has both IOPS and mean latency."""
    along = "iodepth" if len(sweep.values(group, "iodepth")) > 1 else "numjobs"
    by, columns = other(along), sweep.groups[group]
    if not any(
        "lat_mean_us" in p.figures and "iops" in p.figures for pts in columns for p in pts.values()
    ):
        return None
    faceted = len(columns) > 1
    facets = sweep.values(group, by) if faceted else [None]
    ncols = min(len(facets), WRAP)
    nrows = -(-len(facets) // ncols)
    size = (2.9 * ncols + 1.9, 2.5 * nrows + 1.0) if faceted else (6.8, 4.2)
    fig, axes = plt.subplots(
        nrows, ncols, squeeze=False, sharex=True, sharey=True, figsize=size, layout="constrained"
    )
    lines = [panel_lines(sweep, group, by, facet) for facet in facets]
    p99 = max(map(len, lines)) <= P99_LINES and any(
        "lat_p99_us" in p.figures for pts in columns for p in pts.values()
    )
    log = _spread(columns) > LOG_SPREAD
    for ax, facet, panel in zip(axes.flat, facets, lines, strict=False):
        for style, pts, value in panel:
            _response(ax, pts, along, by, value, style, p99)
        ax.set_xlabel("IOPS (IO/s)")
        ax.set_ylabel(f"latency (ms{', log scale' if log else ''})")
        if faceted:
            ax.set_title(f"{by} {facet}", fontsize=8)
            ax.label_outer()
    for k in range(len(facets), axes.size):  # the last row's empty slots: ticks on the panel above
        axes.flat[k].set_visible(False)
        axes.flat[k - ncols].xaxis.set_tick_params(labelbottom=True)
        axes.flat[k - ncols].set_xlabel("IOPS (IO/s)")
    _scales(axes[0, 0], log)  # shared by every panel: set once, every line in
    fig.suptitle(f"{group.title}: response curve, {along} rising along each line{ci_note(columns)}")
    legend(
        fig,
        sweep,
        group,
        by,
        faceted,
        latency_keys(["lat_mean_us", "lat_p99_us"][: 2 if p99 else 1]),
    )
    return fig


def _scales(ax: Axes, log: bool) -> None:
    iops_axis(ax.xaxis)
    ax.set_xlim(left=0)
    if log:
        log_y(ax)
    else:
        ax.set_ylim(bottom=0)


def _response(
    ax: Axes, pts: Points, along: str, by: str, value: int | None, style: Style, p99: bool
) -> None:
    line = sorted(
        (p for p in pts.values() if value is None or getattr(p, by) == value),
        key=lambda p: getattr(p, along),
    )
    for figure, dashed in (("lat_mean_us", False), ("lat_p99_us", True))[: 2 if p99 else 1]:
        have = [p for p in line if figure in p.figures and "iops" in p.figures]
        if not have:
            continue
        curve(
            ax,
            [p.figures["iops"] for p in have],
            [p.figures[figure] for p in have],
            [bool(p.flags) for p in have],
            style,
            yscale=1e-3,
            linestyle="--" if dashed else "-",
            legend=not dashed,
        )
        if not dashed:  # where each line starts and ends
            for p in (have[0], have[-1]) if len(have) > 1 else have[:1]:
                ax.annotate(
                    f"{ABBR[along]}{getattr(p, along)}",
                    (p.figures["iops"].mean, p.figures[figure].mean / 1e3),
                    xytext=(3, 3),
                    textcoords="offset points",
                    fontsize=6,
                    color=style.colour,
                )


def _spread(columns: Sequence[Points]) -> float:
    """Highest over lowest mean latency."""
    lat = [
        p.figures["lat_mean_us"].mean
        for pts in columns
        for p in pts.values()
        if "lat_mean_us" in p.figures
    ]
    return max(lat) / min(lat) if lat and min(lat) > 0 else 1.0
