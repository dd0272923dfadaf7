"""Sweep charts: IOPS and latency against iodepth and against numjobs (the response curve is
in :mod:`.response`, the heatmap in :mod:`.heatmap`).

One run: a panel per figure (IOPS, mean latency, p99 latency), a line per value of the other
parameter, as fio-plot draws them. Several runs (a comparison, the baseline first): small
multiples, a column of panels per value of the other parameter, a line per run in the
report's run colours, so the runs' curves of the same points are overlaid; IOPS above, then
each run's IOPS as a percentage of the baseline's at every point, latency below (mean solid,
p99 dashed). Runs about an order of magnitude apart (:data:`~.curves.APART`) get a log IOPS
axis, so the slower is not a flat line at zero. Means of the repeats with 95 % CI whiskers; hollow
markers where a point never reached steady state or its repeats stopped before the CI target.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from cephbench.report.charts import PALETTE, short
from cephbench.report.curves import (
    AXIS,
    FIGURES,
    Style,
    apart,
    curve,
    from_zero,
    iops_axis,
    line_style,
    log2_axis,
    log_y,
    unsettled_handle,
)
from cephbench.report.sweep_points import PARAMS, Group, Point, PointKey, Sweep

Points = dict[PointKey, Point]
RELATIVE = "relative"
"""The row of a comparison's chart with each run's IOPS as a percentage of the baseline's."""
ANNOTATED = 8
"""A relative line's points are labelled with their percentage up to this many points."""


def scaling_chart(sweep: Sweep, group: Group, x: str) -> Figure | None:
    """IOPS and latency against ``x`` (iodepth or numjobs); None unless ``x`` varies."""
    xs, by, columns = sweep.values(group, x), other(x), sweep.groups[group]
    have = [f for f in FIGURES if any(f in p.figures for pts in columns for p in pts.values())]
    if len(xs) < 2 or not have:
        return None
    faceted = len(columns) > 1
    facets = sweep.values(group, by) if faceted else [None]
    if faceted:  # rows: IOPS, relative to the baseline, then latency (mean and p99 together)
        iops = [f for f in have if f == "iops"]
        rows = [
            p for p in (iops, [RELATIVE] if iops else [], [f for f in have if f != "iops"]) if p
        ]
        shape, size = (
            (len(rows), len(facets)),
            (min(2.1 * len(facets) + 1.9, 14.0), 2.2 * len(rows) + 1.1),
        )
    else:  # one row: a panel per figure
        rows = [[f] for f in have]
        shape, size = (1, len(rows)), (3.0 * len(rows) + 1.7, 3.3)
    fig, axes = plt.subplots(
        *shape,
        squeeze=False,
        sharex=True,
        sharey="row" if faceted else False,
        figsize=size,
        layout="constrained",
    )
    for r, panel in enumerate(rows):
        for c, facet in enumerate(facets):
            ax = axes[r, c] if faceted else axes[0, r]
            if panel == [RELATIVE]:
                relative_lines(ax, columns[0], panel_lines(sweep, group, by, facet)[1:], x, by)
                continue
            for style, pts, value in panel_lines(sweep, group, by, facet):
                for k, figure in enumerate(panel):
                    xv, yv, hollow = _along(pts, x, by, value, figure)
                    if xv:
                        curve(
                            ax,
                            xv,
                            yv,
                            hollow,
                            style,
                            yscale=FIGURES[figure][2],
                            linestyle="--" if k else "-",
                            legend=not k,
                        )
            if faceted:
                ax.set_title(f"{by} {facet}" if r == 0 else "", fontsize=8)
    # once every line is in; shared axes share scales and ticks, so set them once (it is slow)
    log = apart(_peak(pts) for pts in columns)
    for r, panel in enumerate(rows):
        _y_axis(axes[r, 0] if faceted else axes[0, r], panel, log, sweep.names[0])
    log2_axis(axes[0, 0], xs)
    for ax in axes.flat:
        ax.set_xlabel("" if faceted else AXIS[x])
        if faceted:
            ax.label_outer()
    if faceted:
        fig.supxlabel(AXIS[x], fontsize=9)
    how = f"one line per run, a panel per {by}" if faceted else f"one line per {by}"
    fig.suptitle(f"{group.title}: against {x}, {how}{ci_note(columns)}")
    legend(
        fig,
        sweep,
        group,
        by,
        faceted,
        latency_keys([f for f in have if f != "iops"]) if faceted else [],
    )
    return fig


def latency_keys(figures: Sequence[str]) -> list[Line2D]:
    """Legend keys of latency drawn solid (the first figure) and dashed (the second)."""
    styles: tuple[Literal["-", "--"], ...] = ("-", "--")
    return [
        Line2D([], [], color="#333333", linestyle=style, linewidth=width, label=FIGURES[f][0])
        for f, style, width in zip(figures, styles, (1.4, 0.9), strict=False)
    ]


def panel_lines(
    sweep: Sweep, group: Group, by: str, facet: int | None
) -> list[tuple[Style, Points, int | None]]:
    """(style, points, value of ``by`` or None for all) of each line of a panel: one run, a line
    per value of ``by``; a facet of a comparison, a line per run."""
    columns = sweep.groups[group]
    if facet is None:
        return [
            (line_style(i, f"{by} {v}"), columns[0], v)
            for i, v in enumerate(sweep.values(group, by))
        ]
    return [
        (line_style(i, short(name), PALETTE), pts, facet)
        for i, (name, pts) in enumerate(zip(sweep.names, columns, strict=True))
    ]


def legend(
    fig: Figure, sweep: Sweep, group: Group, by: str, per_run: bool, extra: Sequence[Line2D] = ()
) -> None:
    """Line keys, then ``extra`` keys, then what hollow markers mean (when any point is flagged)."""
    styles = (
        [line_style(i, short(n), PALETTE) for i, n in enumerate(sweep.names)]
        if per_run
        else [line_style(i, f"{by} {v}") for i, v in enumerate(sweep.values(group, by))]
    )
    handles = [
        Line2D([], [], color=s.colour, marker=s.marker, markersize=4, label=s.label) for s in styles
    ]
    hollow = unsettled_handle(
        f for pts in sweep.groups[group] for p in pts.values() for f in p.flags
    )
    handles += [*extra, *([hollow] if hollow else [])]
    fig.legend(handles=handles, loc="outside right center", fontsize=7)


def ci_note(columns: Sequence[Points]) -> str:
    repeats = any(s.ci95 for pts in columns for p in pts.values() for s in p.figures.values())
    return "\nmeans of the repeats, whiskers 95 % CI" if repeats else ""


def other(param: str) -> str:
    return PARAMS[1 - PARAMS.index(param)]


def relative_lines(
    ax, base: Points, lines: Sequence[tuple[Style, Points, int | None]], x: str, by: str
) -> None:
    """Each run's IOPS over the baseline's at the points both have, in percent; a line at 100 %
    is the baseline."""
    ax.axhline(100, color="#333333", linewidth=0.8, linestyle=":")
    for style, pts, value in lines:
        xv, yv, hollow = [], [], []
        for p in sorted(pts.values(), key=lambda p: getattr(p, x)):
            b = base.get((p.iodepth, p.numjobs))
            if getattr(p, by) != value or "iops" not in p.figures or not b:
                continue
            if "iops" in b.figures and b.figures["iops"].mean > 0:
                xv.append(getattr(p, x))
                yv.append(100 * p.figures["iops"].mean / b.figures["iops"].mean)
                hollow.append(bool(p.flags or b.flags))
        if not xv:
            continue
        curve(ax, xv, yv, hollow, style)
        if len(xv) <= ANNOTATED:
            for xx, yy in zip(xv, yv, strict=True):
                ax.annotate(
                    f"{yy:.0f} %",
                    (xx, yy),
                    xytext=(0, 4),
                    textcoords="offset points",
                    ha="center",
                    fontsize=6,
                    color=style.colour,
                )


def _peak(pts: Points) -> float:
    return max((p.figures["iops"].mean for p in pts.values() if "iops" in p.figures), default=0.0)


def _y_axis(ax, panel: list[str], log: bool, baseline: str) -> None:
    """IOPS from 0, or on a log axis when the runs are far apart; the relative row from 0,
    100 % in view; latency on a log axis (it spans decades across a sweep)."""
    if panel == ["iops"]:
        if log:
            log_y(ax)
        else:
            from_zero(ax)
        iops_axis(ax.yaxis)
        ax.set_ylabel(f"IOPS (IO/s{', log scale' if log else ''})")
        return
    if panel == [RELATIVE]:
        from_zero(ax)
        ax.set_ylabel(f"% of {short(baseline, 16)} IOPS")
        return
    log_y(ax)
    title = FIGURES[panel[0]][0] if len(panel) == 1 else "latency"
    ax.set_ylabel(f"{title} (ms, log scale)")


def _along(pts: Points, x: str, by: str, value: int | None, figure: str):
    line = sorted(
        (
            p
            for p in pts.values()
            if figure in p.figures and (value is None or getattr(p, by) == value)
        ),
        key=lambda p: getattr(p, x),
    )
    return (
        [getattr(p, x) for p in line],
        [p.figures[figure] for p in line],
        [bool(p.flags) for p in line],
    )
