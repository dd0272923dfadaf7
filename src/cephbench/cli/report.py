"""``cephbench report RUN... -o FILE``: an HTML (self-contained) or Markdown report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from cephbench.cli.common import db_option
from cephbench.cli.compare import load_clusters, pick_runs
from cephbench.cli.complete import complete_run_ref
from cephbench.cli.options import SectionedCommand, picking_filter
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.store import Store
    from cephbench.store.query import RunFilter


@click.command(cls=SectionedCommand)
@click.argument("run_refs", metavar="[RUN]...", nargs=-1, shell_complete=complete_run_ref)
@click.option(
    "--output",
    "-o",
    "output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="report.html (one self-contained file) or report.md (PNG charts in report_files/).",
)
@picking_filter
@db_option
def report(run_refs: tuple[str, ...], output: Path, run_filter: RunFilter, store: Store) -> None:
    """Write a report of one or more runs; the first is the baseline.

    Runs are the RUNs given, then those the filters pick (oldest first). Where a
    configuration (a label) has three runs or more, the report charts each workload's figures
    over time, one point per run, with the change points found marked.

    \b
    Examples:
      cephbench report 3 4 5 -o report.html
      cephbench report last -o report.md
      cephbench report --label nightly --since 30d -o nightly.html
    """
    # scipy, matplotlib and jinja2 (~1 s) load when reporting, not for `report --help`
    from cephbench.analysis.compare import compare
    from cephbench.report.render import write_report

    if not output.parent.is_dir():
        raise UsageError(
            f"the directory {output.parent} does not exist", hint="create it, or write elsewhere"
        )
    runs = pick_runs(store, run_refs, run_filter)
    provenance = {run.id: store.outputs(run.id) for run in runs}
    series = {run.id: [s for s in store.series(run.id) if s.workload] for run in runs}  # not health
    written = write_report(
        compare(runs, clusters=load_clusters(store, runs)), provenance, output, series
    )
    click.echo(str(written[0]))
