"""The comparison report: one self-contained HTML file (inline CSS and SVG charts, nothing
fetched at view time), or Markdown with PNG charts in ``<name>_files/`` beside it.

Both formats are rendered from one context (:func:`context`) by the page templates in
``templates/``, which show the registered sections (``cephbench.report.sections``) in their
order, each by its own fragment; HTML autoescapes every string, so labels, hostnames and job
names from the store are shown as text, never interpreted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    select_autoescape,
)
from matplotlib.figure import Figure

from cephbench import __version__
from cephbench.analysis.compare import Comparison
from cephbench.errors import UsageError
from cephbench.model import StoredRun
from cephbench.report import charts
from cephbench.report.sections import (
    ChartSink,
    ReportData,
    SeriesByRun,
    sections,
    template_folders,
)
from cephbench.tables.table import Table, minute, to_markdown

TEMPLATES = Path(__file__).parent / "templates"


def context(data: ReportData, fsids: Mapping[int, str] | None = None) -> dict[str, Any]:
    """Everything the page templates show: the title, the baseline (None with one column:
    nothing is compared with it), and each section of the report's scope in its order with its
    context (None: not shown).

    ``data.chart`` renders a figure (or None) under a file-safe name and returns what the
    template embeds; ``fsids``: run id -> the fsid of the cluster it ran on, where known.
    """
    cmp = data.cmp
    runs = [run for column in cmp.columns for run in column.runs]
    if data.title:
        title = data.title
    elif len(runs) == 1:
        title = title_of(runs[0], (fsids or {}).get(runs[0].id))
    else:
        title = "cephbench report: " + ", ".join(c.name for c in cmp.columns)
    return {
        "title": title,
        "version": __version__,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "baseline": cmp.baseline.name if len(cmp.columns) > 1 else None,
        "sections": [(s.name, s.build(data)) for s in sections("report")],
    }


def title_of(run: StoredRun, fsid: str | None) -> str:
    """The title of a report of one run: what it is, where and when (a diagnosis: of which
    cluster, by its fsid and, for the lab's, the lab's directory as stored)."""
    when = f"{minute(run.started_at)} UTC"
    if run.suite == "diagnose":
        target = run.environment.get("target")
        lab = target.get("lab_dir") if isinstance(target, dict) else None
        if fsid and lab:
            cluster = f"cluster {fsid} (the lab in {lab})"
        elif fsid or lab:
            cluster = f"cluster {fsid}" if fsid else f"the lab in {lab}"
        else:
            cluster = "a cluster of unknown fsid"
        label = f" ({run.label})" if run.label else ""
        return f"Diagnosis of {cluster}, {when}: run {run.id}{label}"
    label = f" — {run.label}" if run.label else ""
    return f"Run {run.id}{label} — {run.suite} on {run.target}, {when}"


def write_report(
    cmp: Comparison,
    provenance: dict[int, list[dict[str, Any]]],
    path: Path,
    series: SeriesByRun | None = None,
    ab: dict[str, Any] | None = None,
    fsids: Mapping[int, str] | None = None,
    capacity: dict[str, Any] | None = None,
    title: str | None = None,
    tune: dict[str, Any] | None = None,
) -> list[Path]:
    """Write ``path`` (.html or .md); returns every file written. ``provenance``: run id ->
    ``Store.outputs(run_id)``; ``series``: the runs' time series, by run id (none: no Time
    series section); ``ab``: the A/B experiment (``cephbench.ab/1``) they are the rounds of
    (its section first); ``fsids``: run id -> its cluster's fsid, where known (the title of a
    diagnosis names its cluster); ``capacity``: the capacity searches they are steps of (see
    :class:`ReportData`), with the report's ``title``; ``tune``: the tune (``cephbench.tuning/1``)
    whose experiment's rounds they are (its section first)."""
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md"):
        raise UsageError(
            f"cannot tell the report format from '{path.name}'",
            hint="name the output .html (self-contained) or .md (with PNG charts)",
        )
    markdown = suffix == ".md"
    written: list[Path] = []  # the Markdown report's PNG charts
    sink = _sink_for(path, written) if markdown else _svg
    with charts.style():
        data = ReportData(
            cmp, provenance, sink, series or {}, ab, tune=tune, capacity=capacity, title=title
        )
        ctx = context(data, fsids)
    template = "report.md.j2" if markdown else "report.html.j2"
    path.write_text(_env(not markdown).get_template(template).render(**ctx))
    return [path, *written]


def _svg(fig: Figure | None, _name: str) -> str | None:
    return charts.svg(fig) if fig else None


def _sink_for(path: Path, written: list[Path]) -> ChartSink:
    """The Markdown report's charts: PNG files in ``<name>_files/``, each added to
    ``written``."""
    files_dir = path.with_name(f"{path.stem}_files")
    files_dir.mkdir(parents=True, exist_ok=True)

    def sink(fig: Figure | None, name: str) -> str | None:
        if fig is None:
            return None
        target = files_dir / f"{name}.png"
        charts.png(fig, target)
        written.append(target)
        return f"{files_dir.name}/{target.name}"

    return sink


def _env(html: bool) -> Environment:
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(f) for f in (TEMPLATES, *template_folders())]),
        autoescape=select_autoescape(["html.j2"]) if html else False,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,  # a fragment's last line is a line of the report
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
