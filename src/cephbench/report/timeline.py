"""Time series chart of one workload: throughput above, latency below, on one time axis.

Throughput is IOPS (bandwidth for tools that log none, as rados bench); latency is the mean
(solid), p99 (dashed) and max (dotted) where logged. Repeats are overlaid, thin when there
are several: coloured by repeat for one run, by run (the report's run colours) when several
runs have the workload. Stalls (see :mod:`.stalls`) are shaded on both panels, so a drop to
zero with a latency spike above it reads as one event. Very long logs are thinned to
:data:`MAX_POINTS` per trace (throughput averaged, latency the highest of each bucket);
stalls are found before thinning.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from cephbench.report.charts import PALETTE, short
from cephbench.report.curves import from_zero, iops_axis, log_y
from cephbench.report.stalls import GAP, Timeline, Trace, interval, stalls

MAX_POINTS = 1500
LATENCY = (("lat_mean_us", "mean", "-"), ("lat_p99_us", "p99", "--"), ("lat_max_us", "max", ":"))
RATE = {"iops": ("IOPS", "IO/s", 1.0), "bw_bytes_per_s": ("bandwidth", "MiB/s", 1 / 2**20)}
STALL = "#D55E00"
STALL_GID = "stall"


def timeline_chart(tl: Timeline) -> Figure | None:
    """None when the workload has neither throughput nor latency series."""
    rate, lats = tl.throughput, [x for x in LATENCY if tl.of(x[0])]
    if rate is None and not lats:
        return None
    rows = int(rate is not None) + int(bool(lats))
    fig, axes = plt.subplots(
        rows, 1, sharex=True, squeeze=False, figsize=(8.5, 2.1 * rows + 1.0), layout="constrained"
    )
    by_run = len({t.run for t in tl.traces}) > 1
    width = 0.8 if len(tl.of(rate or lats[0][0])) > 1 else 1.2
    colour = lambda t: PALETTE[(t.colour if by_run else t.series.repeat) % len(PALETTE)]  # noqa: E731
    thinned = any(len(t.series.t_s) > MAX_POINTS for t in tl.traces)
    spans = [s for t in tl.of(rate or "") for s in stalls(t.series.t_s, t.series.values)]
    if rate:
        ax = axes[0, 0]
        title, unit, scale = RATE[rate]
        for t in tl.of(rate):
            x, y = _thin(t, "mean")
            ax.plot(x, y * scale, drawstyle="steps-pre", color=colour(t), linewidth=width)
        from_zero(ax)
        ax.set_ylabel(f"{title} ({unit})")
        if rate == "iops":
            iops_axis(ax.yaxis)
    if lats:
        ax = axes[-1, 0]
        for metric, _, style in lats:
            for t in tl.of(metric):
                x, y = _thin(t, "max")
                ax.plot(
                    x,
                    y / 1e3,
                    drawstyle="steps-pre",
                    linestyle=style,
                    color=colour(t),
                    linewidth=width,
                )
        log = _spread(tl, [m for m, _, _ in lats]) > 30
        if log:
            log_y(ax)
        else:
            ax.set_ylim(bottom=0)
        ax.set_ylabel(f"latency (ms{', log scale' if log else ''})")
    for ax in axes[:, 0]:
        for s, e in spans:
            ax.axvspan(s, e, color=STALL, alpha=0.2, linewidth=0, gid=STALL_GID)
    axes[-1, 0].set_xlabel("time since the workload started (s)")
    axes[-1, 0].set_xlim(left=0)
    stalled = sum(e - s for s, e in spans)
    who = "" if by_run else f" — {short(tl.traces[0].run)}"
    fig.suptitle(
        f"{tl.title}{who}: over time"
        + (f", stalled {stalled:g} s in all" if stalled else "")
        + (
            "\n(long logs thinned: throughput averaged, latency the highest per bucket)"
            if thinned
            else ""
        )
    )
    fig.legend(
        handles=_handles(tl, by_run, colour, lats, bool(spans)),
        loc="outside right center",
        fontsize=7,
    )
    return fig


def _handles(tl: Timeline, by_run: bool, colour, lats, stalled: bool) -> list:
    keys: dict[str, Trace] = {}
    for t in tl.traces:
        keys.setdefault(short(t.run) if by_run else f"repeat {t.series.repeat + 1}", t)
    handles: list[Artist] = (
        [Line2D([], [], color=colour(t), label=k) for k, t in keys.items()] if len(keys) > 1 else []
    )
    handles += [
        Line2D([], [], color="#333333", linestyle=style, label=f"{name} latency")
        for _, name, style in lats
    ]
    if stalled:
        handles.append(Patch(color=STALL, alpha=0.2, label="stall: nothing completed"))
    return handles


def _thin(t: Trace, how: str) -> tuple[np.ndarray, np.ndarray]:
    """The trace with at most MAX_POINTS points, broken where the log has a hole; latency of
    0 (nothing completed) not drawn."""
    x, y = np.asarray(t.series.t_s, dtype=float), np.asarray(t.series.values, dtype=float)
    if not len(x):
        return x, y
    if how == "max":
        y = np.where(y > 0, y, np.nan)
    step = interval(x)
    holes = np.flatnonzero(np.diff(x) > GAP * step) + 1
    x, y = (
        np.insert(x, holes, x[holes] - step),
        np.insert(y, holes, np.nan),
    )  # a NaN breaks the line
    if len(x) <= MAX_POINTS:
        return x, y
    k = math.ceil(len(x) / MAX_POINTS)
    starts = np.arange(0, len(x), k)
    ends = np.minimum(starts + k, len(x)) - 1
    if how == "max":
        return x[ends], np.fmax.reduceat(y, starts)
    return x[ends], np.add.reduceat(y, starts) / (ends - starts + 1)


def _spread(tl: Timeline, metrics: list[str]) -> float:
    values = np.concatenate(
        [np.asarray(t.series.values, dtype=float) for m in metrics for t in tl.of(m)]
    )
    values = values[np.isfinite(values) & (values > 0)]
    return float(values.max() / values.min()) if len(values) else 1.0
