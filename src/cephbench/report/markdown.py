"""Comparison tables (the write-ups' "A | B | Percent Difference"), and the Markdown report.

The table builders are pure and shared: ``cephbench compare`` renders them as Markdown or as
rich tables, the HTML report as HTML, the Markdown report as Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence

from cephbench.analysis.compare import Cell, Comparison, Diff, Metric, Row, baseline_note
from cephbench.analysis.envdiff import flatten, format_value
from cephbench.analysis.stats import UNSTABLE_CV
from cephbench.model import Run
from cephbench.tables.clients import spread_table
from cephbench.tables.run_table import note_text
from cephbench.tables.table import MISSING, Table, fmt_change, fmt_figure, to_markdown

NOT_SIGNIFICANT = "~"


def result_tables(cmp: Comparison) -> list[Table]:
    """The metric tables, then the per-client spread of runs from many clients (if any)."""
    spread = spread_table(cmp)
    return [*metric_tables(cmp), *([spread] if spread else [])]


def metric_tables(cmp: Comparison) -> list[Table]:
    """One table per metric: runs as columns, then each run's difference to the baseline. A
    metric no run has a figure of (IOPS and latency of network runs) gets no table of n/a."""
    flags: list[str] = []
    tables = []
    for metric in {r.metric.key: r.metric for r in cmp.rows}.values():
        rows = [r for r in cmp.rows if r.metric.key == metric.key]
        if any(c.summary is not None for r in rows for c in r.cells.values()):
            tables.append(_metric_table(cmp, metric, rows, flags))
    return tables


def legend(cmp: Comparison, flags: Sequence[str] = (), everywhere: Sequence[str] = ()) -> list[str]:
    """What the marks in the tables mean: ``everywhere``, the flags every row has (one note,
    no marker), then the numbered ``flags``."""
    notes = []
    if len(cmp.columns) > 1:
        notes.append(baseline_note(cmp))
        if cmp.tested:
            n = sum(d.p is not None for r in cmp.rows for d in r.diffs.values())
            notes.append(
                f"{NOT_SIGNIFICANT} not significant (Welch's t-test, Benjamini–Hochberg "
                f"false discovery rate {cmp.alpha * 100:g} % across the {n} tested cells); "
                "± and [ ] are 95 % confidence intervals; (1 sample): not tested."
            )
        else:
            notes.append(
                "1 sample per run: significance unknown (run with --repeat N, or give "
                "several runs the same label, to test the differences)."
            )
    if cmp.warnings:
        notes.append(
            f"! the repeats vary by more than {UNSTABLE_CV * 100:g} % (coefficient of "
            "variation): unstable, see the warnings."
        )
    notes += [f"Every row: {note_text(f)}" for f in everywhere]
    notes += [f"[{i + 1}] {note_text(f)}" for i, f in enumerate(flags)]
    return notes


def comparison_notes(cmp: Comparison) -> list[str]:
    """Warnings under the tables: missing workloads, failures, unstable repeats."""
    notes = []
    for w, op, have in cmp.missing:
        where = ", ".join(have) if have else "no run"
        notes.append(f"{w} ({op}) is only in {where}: not matched in the other runs.")
    for name, f in cmp.failures:
        notes.append(f"FAILED in {name}: {f.workload} (repeat {f.repeat + 1}): {f.error}")
    notes += [f"warning: {w}" for w in cmp.warnings]
    return notes


def env_table(cmp: Comparison) -> Table | None:
    """What differs between the compared runs' recorded contexts; None when nothing does."""
    if not cmp.env:
        return None
    runs = [r for c in cmp.columns for r in c.runs]
    headers = ("Setting", *(run_header(r) for r in runs))
    rows = tuple((d.path, *(d.text(r.id) for r in runs)) for d in cmp.env)
    return Table(headers, rows, title="Environment differences", align=("l",) * len(headers))


def cluster_table(run: Run, cluster: dict | None = None) -> Table | None:
    """The run's Ceph cluster facts as a two-column table; None for a run on no cluster."""
    if not cluster:
        return None
    rows = tuple((k, format_value(v)) for k, v in flatten(cluster).items())
    return Table(
        ("Cluster", "Value"), rows, title=f"Cluster of {run_header(run)}", align=("l", "l")
    )


def run_header(run: Run) -> str:
    return f"{run.label} (#{run.id})" if run.label else f"#{run.id}"


def comparison_markdown(cmp: Comparison) -> str:
    """``cephbench compare --format md``: metric tables, notes, environment differences."""
    parts = [to_markdown(t) for t in result_tables(cmp)]
    notes = comparison_notes(cmp)
    if notes:
        parts.append("  \n".join(notes) + "\n")
    env = env_table(cmp)
    if env:
        parts.append(to_markdown(env))
    return "\n".join(parts)


# -- cells ---------------------------------------------------------------------------------
def _metric_table(cmp: Comparison, metric: Metric, rows: list[Row], flags: list[str]) -> Table:
    base = cmp.baseline
    multi_op = {w for w, op in cmp.workloads() if sum(x[0] == w for x in cmp.workloads()) > 1}
    diff_headers = (
        ["Percent Difference"]
        if len(cmp.columns) == 2
        else [f"{c.name} vs {base.name} (%)" for c in cmp.columns[1:]]
    )
    headers = ("Workload", *(c.name for c in cmp.columns), *diff_headers)
    out = []
    row_flags = [tuple(dict.fromkeys(f for c in r.cells.values() for f in c.flags)) for r in rows]
    everywhere = on_every_row(row_flags)
    for row, row_marks in zip(rows, row_flags, strict=True):
        name = f"{row.workload} ({row.op})" if row.workload in multi_op else row.workload
        marks = [f for f in row_marks if f not in everywhere]
        for f in marks:
            if f not in flags:
                flags.append(f)
        name += "".join(f" [{flags.index(f) + 1}]" for f in marks)
        out.append(
            (
                name,
                *(fmt_cell(row.cells[c.key], metric) for c in cmp.columns),
                *(fmt_diff(row.diffs[c.key], cmp.tested) for c in cmp.columns[1:]),
            )
        )
    better = "higher" if metric.higher_is_better else "lower"
    sign = "positive" if metric.higher_is_better else "negative"
    title = f"{metric.title} ({metric.unit}): {better} is better"
    if len(cmp.columns) > 1:
        title += f", a {sign} difference is an improvement"
    return Table(headers, tuple(out), title=title, notes=tuple(legend(cmp, flags, everywhere)))


def on_every_row(row_flags: Sequence[tuple[str, ...]]) -> list[str]:
    """The flags every row of a table of several rows has: one note says so and no row is
    marked, the rule of ``show``'s table (:mod:`cephbench.tables.run_table`)."""
    if len(row_flags) < 2:
        return []
    return [f for f in row_flags[0] if all(f in flags for flags in row_flags[1:])]


def fmt_value(value: float, metric: Metric) -> str:
    return fmt_figure(value * metric.scale, metric.unit)


def fmt_cell(cell: Cell, metric: Metric) -> str:
    s = cell.summary
    if s is None:
        return MISSING
    text = fmt_value(s.mean, metric)
    if s.ci95 is not None:
        text += f" ± {fmt_value((s.ci95[1] - s.ci95[0]) / 2, metric)}"
    if s.cv is not None and s.cv > UNSTABLE_CV:
        text += " !"
    return text


def fmt_diff(d: Diff, tested: bool) -> str:
    if d.pct is None:
        return MISSING
    text = fmt_change(d.pct, d.ci95)
    if d.significant is False:
        text = NOT_SIGNIFICANT + text
    elif d.significant is None and tested:
        text += " (1 sample)"
    return text
