"""Report charts (matplotlib, Agg): readable on a white page and in print, units on every axis.

Each builder returns a Figure (or None when there is nothing to draw); :func:`svg` and
:func:`png` render it. Text from the store goes into charts as plain text: mathtext is off,
so a label with ``$`` is shown as typed, and matplotlib escapes it in SVG.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Collection, Sequence
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from cephbench.analysis.compare import METRICS, Comparison, Metric, Row

# Okabe–Ito: distinguishable in colour-blind vision and in greyscale print
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
BETTER, WORSE, NEUTRAL = "#009E73", "#D55E00", "#9E9E9E"
STYLE = {
    "figure.facecolor": "white",
    "axes.facecolor": "white",
    "savefig.facecolor": "white",
    "axes.edgecolor": "#333333",
    "axes.grid": True,
    "grid.color": "#DDDDDD",
    "font.size": 9,
    "axes.titlesize": 10,
    "text.parse_math": False,
    "svg.fonttype": "none",
    "axes.axisbelow": True,
}
NINES = (50, 90, 99, 99.9, 99.99, 99.999)
CHAR_IN = 0.075
"""The width of an average character of a 9 pt tick label, inches."""


@contextmanager
def style():
    # matplotlib's stubs want keys of its Literal of rc names; STYLE's are those names
    with plt.rc_context(STYLE):  # type: ignore[arg-type]
        yield


def metric_bars(cmp: Comparison, workload: str, op: str) -> Figure:
    """Per metric, one bar per run (mean), with 95 % CI whiskers where a run has repeats."""
    names = [c.name for c in cmp.columns]
    metrics = metrics_shown(cmp)
    panel = 2.4
    fig, axes = plt.subplots(
        1, len(metrics), figsize=(panel * len(metrics) + 0.6, 3.1), layout="constrained"
    )
    whiskers = False
    for ax, metric in zip(axes, metrics, strict=True):
        row = _row(cmp, workload, op, metric.key)
        means, colors, xs = [], [], []
        errs: list[list[float]] = [[], []]  # below, above the mean
        for i, col in enumerate(cmp.columns):
            s = row.cells[col.key].summary if row else None
            if s is None:
                ax.text(i, 0, "n/a", ha="center", va="bottom", color="#555555")
                continue
            xs.append(i)
            means.append(s.mean * metric.scale)
            lo, hi = s.ci95 or (s.mean, s.mean)
            whiskers |= s.ci95 is not None
            errs[0].append((s.mean - lo) * metric.scale)
            errs[1].append((hi - s.mean) * metric.scale)
            colors.append(PALETTE[i % len(PALETTE)])
        ax.bar(
            xs,
            means,
            yerr=errs if whiskers else None,  # no flat caps on bars without a CI
            color=colors,
            capsize=4,
            edgecolor="#333333",
            linewidth=0.5,
        )
        ax.set_title(
            f"{metric.title}\n({'higher' if metric.higher_is_better else 'lower'} is better)",
            fontsize=8,
        )
        ax.set_ylabel(f"{metric.title} ({metric.unit})")
        run_ticks(ax.xaxis, names, panel - 0.6)
        ax.set_xlabel("run")
        ax.grid(axis="x", visible=False)
    fig.suptitle(f"{workload} ({op}): {repeats_caption(whiskers)}", fontsize=10)
    return fig


def run_bars(cmp: Comparison, exclude: Collection[tuple[str, str]] = ()) -> Figure | None:
    """One configuration's figures: per metric a panel, a bar per workload (the (workload, op)
    pairs in ``exclude`` left out), whiskers only where there are repeats; None without a
    workload."""
    col = cmp.baseline
    keys = [k for k in cmp.workloads() if k not in exclude]
    if not keys:
        return None
    metrics = metrics_shown(cmp)
    multi_op = {w for w, _ in keys if sum(x[0] == w for x in keys) > 1}
    labels = [wrap_label(f"{w} ({op})" if w in multi_op else w, 28) for w, op in keys]
    fig, axes = plt.subplots(
        1,
        len(metrics),
        sharey=True,
        figsize=(2.3 * len(metrics) + 2.4, 0.3 * len(keys) + 1.5),
        layout="constrained",
    )
    whiskers = False
    ys = list(range(len(keys)))[::-1]
    for ax, metric in zip(axes, metrics, strict=True):
        for y, (w, op) in zip(ys, keys, strict=True):
            row = _row(cmp, w, op, metric.key)
            s = row.cells[col.key].summary if row else None
            if s is None:
                ax.text(0, y, " n/a", ha="left", va="center", color="#555555", fontsize=7)
                continue
            lo, hi = s.ci95 or (s.mean, s.mean)
            whiskers |= s.ci95 is not None
            ax.barh(
                y,
                s.mean * metric.scale,
                xerr=[[(s.mean - lo) * metric.scale], [(hi - s.mean) * metric.scale]]
                if s.ci95
                else None,
                color=PALETTE[0],
                capsize=3,
                edgecolor="#333333",
                linewidth=0.5,
            )
        better = "higher" if metric.higher_is_better else "lower"
        ax.set_title(f"{metric.title}\n({better} is better)", fontsize=8)
        ax.set_xlabel(metric.unit)
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(ys, labels, fontsize=7)
    fig.suptitle(f"{short(col.name, 60)}: {repeats_caption(whiskers)}", fontsize=10)
    return fig


def repeats_caption(whiskers: bool) -> str:
    """What a bar is: whiskers are only promised where some bar has them."""
    return "mean of the repeats, whiskers 95 % CI" if whiskers else "one repeat per run"


def metrics_shown(cmp: Comparison) -> list[Metric]:
    """The compared metrics with the comparison's units (network bandwidth in bits per second,
    storage in MiB/s: :func:`cephbench.analysis.compare.metrics_of`), in their order."""
    return list({r.metric.key: r.metric for r in cmp.rows}.values()) or list(METRICS)


def run_ticks(axis: Axis, names: Sequence[str], width_in: float) -> None:
    """Run names as tick labels that do not run into each other: wrapped onto up to three
    lines where each has room for a few words, else shortened and slanted."""
    per_label = int(width_in / CHAR_IN / max(len(names), 1))
    if per_label >= 8:
        axis.set_ticks(range(len(names)), [wrap_label(n, per_label) for n in names])
        return
    axis.set_ticks(range(len(names)), [short(n) for n in names], rotation=30, ha="right")
    for label in axis.get_ticklabels():
        label.set_rotation_mode("anchor")


def wrap_label(text: str, width: int, lines: int = 3) -> str:
    """``text`` on lines of at most ``width`` characters, the last shortened when it needs
    more than ``lines``; a word longer than a line is cut."""
    return "\n".join(textwrap.wrap(text, width, max_lines=lines, placeholder="…")) or text


def diff_chart(cmp: Comparison, exclude: Collection[tuple[str, str]] = ()) -> Figure | None:
    """Every cell's percent difference to the baseline, coloured by verdict, with its CI;
    cells of the (workload, op) pairs in ``exclude`` (sweep points, charted as curves) left out."""
    if len(cmp.columns) < 2:
        return None
    labels, values, colors, hatches = [], [], [], []
    errs: list[list[float]] = [[], []]  # below, above the value
    for row in cmp.rows:
        if (row.workload, row.op) in exclude:
            continue
        for col in cmp.columns[1:]:
            d = row.diffs[col.key]
            if d.pct is None:
                continue
            who = f" — {short(col.name)}" if len(cmp.columns) > 2 else ""
            labels.append(f"{row.workload} ({row.op}) {row.metric.title}{who}")
            values.append(d.pct)
            lo, hi = d.ci95 or (d.pct, d.pct)
            errs[0].append(d.pct - lo)
            errs[1].append(hi - d.pct)
            verdict = row.verdict(col.key)
            colors.append({"better": BETTER, "worse": WORSE}.get(verdict, NEUTRAL))
            hatches.append("//" if verdict == "unknown" else "")
    if not values:
        return None
    fig, ax = plt.subplots(figsize=(8.5, 0.24 * len(values) + 1.4), layout="constrained")
    ys = list(range(len(values)))[::-1]
    bars = ax.barh(
        ys, values, xerr=errs, color=colors, capsize=2, edgecolor="#333333", linewidth=0.4
    )
    for bar, hatch in zip(bars, hatches, strict=True):
        bar.set_hatch(hatch)
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.set_yticks(ys, labels, fontsize=7)
    ax.set_xlabel(f"Difference to {cmp.baseline.name} (%)")
    ax.set_ylabel("workload and metric")
    ax.set_title(
        "Percent difference: green better, orange worse, grey not significant, "
        "hatched untested (1 sample)",
        fontsize=8,
    )
    ax.grid(axis="y", visible=False)
    return fig


def percentile_chart(cmp: Comparison, workload: str, op: str) -> Figure | None:
    """Latency by percentile, one curve per run (mean over its repeats); None without data."""
    curves = []
    for i, col in enumerate(cmp.columns):
        points: dict[float, list[float]] = {}
        for run in col.runs:
            for r in run.results:
                if r.workload == workload and r.op == op:
                    for p, us in r.percentiles:
                        if 0 < p < 100:
                            points.setdefault(p, []).append(us)
        if points:
            ps = sorted(points)
            curves.append((col.name, i, ps, [sum(points[p]) / len(points[p]) / 1000 for p in ps]))
    if not curves:
        return None
    fig, ax = plt.subplots(figsize=(6.5, 3.0), layout="constrained")
    for name, i, ps, ms in curves:
        ax.plot(
            [_nines(p) for p in ps],
            ms,
            marker="o",
            markersize=2.5,
            label=short(name),
            color=PALETTE[i % len(PALETTE)],
            linestyle=("-", "--", ":", "-.")[i % 4],
        )
    top = max(_nines(p) for _, _, ps, _ in curves for p in ps)
    ticks = [p for p in NINES if _nines(p) <= top + 0.01]
    ax.set_xticks([_nines(p) for p in ticks], [f"{p:g}" for p in ticks])
    decades_y(ax)
    ax.set_xlabel("percentile (%)")
    ax.set_ylabel("latency (ms, log scale)")
    ax.set_title(f"{workload} ({op}): latency percentiles")
    ax.legend(fontsize=7)
    return fig


def decades_y(ax: Axes) -> None:
    """A log y axis labelled at the decades only (0.1, 1, 10), as plain numbers, with unlabelled
    ticks between: labels on the 2..9 ticks overlap where a decade is short. The axis spans at
    least two decades (widened to the enclosing ones), so it always has two labels to read by.
    Call once every line is in."""
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
    ax.yaxis.set_minor_formatter(NullFormatter())
    lo, hi = ax.get_ylim()
    if lo > 0 and math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) < 1:
        ax.set_ylim(10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi)))


def svg(fig: Figure) -> str:
    """The figure as an inline ``<svg>`` element (no XML prolog)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def png(fig: Figure, path: Path) -> None:
    fig.savefig(path, format="png", dpi=120)
    plt.close(fig)


def _row(cmp: Comparison, workload: str, op: str, metric: str) -> Row | None:
    return next(
        (r for r in cmp.rows if (r.workload, r.op, r.metric.key) == (workload, op, metric)), None
    )


def _nines(p: float) -> float:
    """Percentile on a 'nines' axis: 90 -> 1, 99 -> 2, 99.9 -> 3."""
    return -math.log10(1 - p / 100)


def short(name: str, limit: int = 24) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"
