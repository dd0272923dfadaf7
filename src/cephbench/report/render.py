"""The comparison report: one self-contained HTML file (inline CSS and SVG charts, nothing
fetched at view time), or Markdown with PNG charts in ``<name>_files/`` beside it.

Both formats are rendered from one context (:func:`context`) by Jinja2 templates in
``templates/``; HTML autoescapes every string, so labels, hostnames and job names from the
store are shown as text, never interpreted.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from matplotlib.figure import Figure

from cephbench import __version__
from cephbench.analysis.compare import Comparison
from cephbench.errors import UsageError
from cephbench.model import Series
from cephbench.report import charts
from cephbench.report.ab import ab_section
from cephbench.report.markdown import (
    cluster_table,
    comparison_notes,
    env_table,
    result_tables,
    run_header,
)
from cephbench.report.network import network_section
from cephbench.report.sections import ChartSink, sweep_section, timeseries_section
from cephbench.report.sweep_points import pivot, swept_workloads
from cephbench.report.trend import trend_section
from cephbench.tables.run_table import note_text, schedule_notes
from cephbench.tables.table import Table, to_markdown

TEMPLATES = Path(__file__).parent / "templates"
SeriesByRun = Mapping[int, Sequence[Series]]
"""Run id -> the run's workload series (``Store.series``)."""


def summary(cmp: Comparison) -> list[str]:
    """One line per compared run: how many cells are better, worse, not significant, untested."""
    if len(cmp.columns) < 2:
        return [f"One configuration ({cmp.baseline.name}): nothing to compare; its figures follow."]
    lines = []
    for col in cmp.columns[1:]:
        counts = {"better": 0, "worse": 0, "same": 0, "unknown": 0, "missing": 0}
        for row in cmp.rows:
            counts[row.verdict(col.key)] += 1
        parts = [
            f"{counts['better']} significantly better",
            f"{counts['worse']} significantly worse",
            f"{counts['same']} not significant",
        ]
        if counts["unknown"]:
            parts.append(f"{counts['unknown']} untested (1 sample: significance unknown)")
        if counts["missing"]:
            parts.append(f"{counts['missing']} without a figure on one side")
        lines.append(
            f"{col.name} vs {cmp.baseline.name}: "
            + ", ".join(parts)
            + f" of {len(cmp.rows)} cells."
        )
    return lines


def validity(cmp: Comparison) -> list[str]:
    """Every flagged result, by run: the reasons to trust a figure less."""
    out = []
    for col in cmp.columns:
        for run in col.runs:
            seen = dict.fromkeys((r.workload, r.op, f) for r in run.results for f in r.flags)
            out += [f"{run_header(run)}: {w} ({op}): {note_text(f)}" for w, op, f in seen]
    return out


def context(
    cmp: Comparison,
    provenance: dict[int, list[dict[str, Any]]],
    chart: ChartSink,
    series: SeriesByRun | None = None,
    ab: dict[str, Any] | None = None,
) -> dict:
    """Everything the templates show. ``provenance``: run id -> ``Store.outputs(run_id)``;
    ``ab``: the A/B experiment the runs are the rounds of (``cephbench.ab/1``), if any.

    ``chart`` renders a figure (or None) under a file-safe name and returns what the template
    embeds. Sweep points are charted in the Sweep section, not one by one.
    """
    sweep = pivot(cmp.columns)
    swept = swept_workloads(cmp.columns, sweep)
    workloads = []
    for i, (w, op) in enumerate(cmp.workloads()):
        if (w, op) in swept:
            continue
        workloads.append(
            {
                "name": w,
                "op": op,
                "bars": chart(charts.metric_bars(cmp, w, op), f"{i:02d}-bars"),
                "percentiles": chart(charts.percentile_chart(cmp, w, op), f"{i:02d}-percentiles"),
            }
        )
    runs = []
    for col in cmp.columns:
        for run in col.runs:
            outputs = [
                {
                    "repeat": o["repeat"],
                    "tool": o["tool"],
                    "command": shlex.join(o["argv"]),
                    "input": o["input_text"],
                }
                for o in provenance.get(run.id, [])
            ]
            from cephbench.diagnose.report import section

            runs.append(
                {
                    "diagnosis": section(run.id, provenance.get(run.id, []), chart),
                    "header": run_header(run),
                    "run": run,
                    "schedule": schedule_notes(run),
                    "cluster": cluster_table(run, cmp.clusters.get(run.id)),
                    "outputs": _dedupe(outputs),
                }
            )
    names = ", ".join(c.name for c in cmp.columns)
    return {
        "title": f"cephbench report: {names}",
        "version": __version__,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "summary": summary(cmp),
        "tables": result_tables(cmp),
        "notes": comparison_notes(cmp),
        "env": env_table(cmp),
        "diff_chart": chart(charts.diff_chart(cmp, exclude=swept), "diff"),
        "workloads": workloads,
        "swept": len({w for w, _ in swept}),
        "runs": runs,
        "validity": validity(cmp),
        "baseline": cmp.baseline.name,
        "sweep": sweep_section(sweep, chart),
        "timeseries": timeseries_section(cmp, series or {}, chart),
        "network": network_section(cmp, chart),
        "trend": trend_section(cmp, chart),
        "ab": ab_section(ab, chart) if ab else None,
    }


def write_report(
    cmp: Comparison,
    provenance: dict[int, list[dict[str, Any]]],
    path: Path,
    series: SeriesByRun | None = None,
    ab: dict[str, Any] | None = None,
) -> list[Path]:
    """Write ``path`` (.html or .md); returns every file written. ``series``: the runs' time
    series, by run id (none: no Time series section); ``ab``: the experiment they are the
    rounds of (its section first)."""
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise UsageError(
            f"cannot tell the report format from '{path.name}'",
            hint="name the output .html (self-contained) or .md (with PNG charts)",
        )
    with charts.style():
        if suffix == ".md":
            return _write_markdown(cmp, provenance, path, series, ab)
        ctx = context(
            cmp, provenance, lambda fig, _name: charts.svg(fig) if fig else None, series, ab
        )
    path.write_text(_env(True).get_template("report.html.j2").render(**ctx))
    return [path]


def _write_markdown(
    cmp: Comparison,
    provenance: dict,
    path: Path,
    series: SeriesByRun | None,
    ab: dict[str, Any] | None = None,
) -> list[Path]:
    files_dir = path.with_name(f"{path.stem}_files")
    files_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def sink(fig: Figure | None, name: str) -> str | None:
        if fig is None:
            return None
        target = files_dir / f"{name}.png"
        charts.png(fig, target)
        written.append(target)
        return f"{files_dir.name}/{target.name}"

    ctx = context(cmp, provenance, sink, series, ab)
    path.write_text(_env(False).get_template("report.md.j2").render(**ctx))
    return [path, *written]


def _env(html: bool) -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html.j2"]) if html else False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["markdown"] = lambda t: to_markdown(_escaped(t))
    env.filters["md_text"] = _md_text
    return env


def _escaped(table: Table) -> Table:
    """A table whose cells cannot carry HTML into the Markdown report."""
    esc = lambda text: str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # noqa: E731
    return replace(
        table,
        title=esc(table.title) if table.title else None,
        headers=tuple(map(esc, table.headers)),
        rows=tuple(tuple(map(esc, r)) for r in table.rows),
        notes=tuple(map(esc, table.notes)),
    )


def _md_text(text: Any) -> str:
    """Store text in Markdown prose: no HTML, no emphasis, no table breaks."""
    out = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for ch in "\\`*_[]|#":
        out = out.replace(ch, "\\" + ch)
    return out


def _dedupe(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Repeats usually run the same command and job file: show it once, with its repeats."""
    seen: dict[tuple, dict[str, Any]] = {}
    for o in outputs:
        key = (o["tool"], o["command"], o["input"])
        if key in seen:
            seen[key]["repeats"].append(o["repeat"] + 1)
        else:
            seen[key] = {**o, "repeats": [o["repeat"] + 1]}
    return list(seen.values())
