"""``cephbench runs``: one line per stored run (JSON: ``cephbench.runs/1``; CSV: one row per
result of the runs listed).

A store gathers thousands of runs over the years, so the listing shows the latest 20 unless
told otherwise and says how many match in all; the filters and the page are SQL
(``cephbench.store.query``), so the listing costs what it shows, not what the store holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option, emit_table, format_option, print_json
from cephbench.cli.options import SectionedCommand, listing_filter
from cephbench.tables.table import Table, minute

if TYPE_CHECKING:
    from cephbench.store import Store
    from cephbench.store.query import Page, RunFilter


@click.command(cls=SectionedCommand)
@listing_filter
@format_option("table", "md", "json", "csv")
@db_option
def runs(run_filter: RunFilter, fmt: str, store: Store) -> None:
    """List the stored runs, oldest first.

    The latest 20 unless --last N or --all says otherwise; the filters pick which runs, and a
    line under the table says how many match in all. With --format csv: one row per result
    of the runs listed, for a spreadsheet.

    \b
    Examples:
      cephbench runs --label nightly --since 30d
      cephbench runs --suite quick --status failed --all
      cephbench runs --last 50 --offset 50
      cephbench runs --label nightly --since 30d --format csv > nightly.csv
    """
    from cephbench.store.query import page

    found = page(store.conn, run_filter)
    if fmt == "csv":
        from cephbench.report.spreadsheet import results_csv

        click.echo(results_csv([store.get_run(r.id) for r in found.runs]), nl=False)
    elif fmt == "json":
        from cephbench.contracts import RUNS, document  # the JSON contract: not for --help

        keys = ("id", "label", "suite", "target", "status", "started_at", "ended_at")
        listed = [{k: getattr(r, k) for k in keys} for r in found.runs]
        print_json(document(RUNS, runs=listed, total=found.total))
    elif found.runs:
        table = Table(
            ("ID", "Label", "Suite", "Target", "Status", "Started (UTC)"),
            tuple(
                (str(r.id), r.label or "", r.suite, r.target, r.status, minute(r.started_at))
                for r in found.runs
            ),
            align=("r", "l", "l", "l", "l", "l"),
        )
        emit_table(table, fmt)
    line = summary_line(found, run_filter, str(store.path))
    if line:
        console_err.print(line, markup=False)


def summary_line(found: Page, f: RunFilter, store_path: str) -> str:
    """How many runs were listed of how many match, and how to see the others."""
    which = f" matching {f.describe()}" if f.narrows else ""
    if found.total == 0:
        return f"No runs{which} in {store_path}." if f.narrows else f"No runs in {store_path} yet."
    shown = len(found.runs)
    plural = "s" if found.total != 1 else ""
    if not found.more:
        return f"{found.total} run{plural}{which}."
    if shown == 0:
        return (
            f"None of the {found.total:,} run{plural}{which} are past --offset {found.offset}; "
            "give a smaller one."
        )
    which_end = "the latest" if found.offset == 0 else f"skipping the latest {found.offset:,}"
    hints = ["--all or --last N for more"]
    if found.offset + shown < found.total:
        hints.append(f"--offset {found.offset + shown} for the ones before")
    return (
        f"Showing {shown:,} of {found.total:,} run{plural}{which} ({which_end}); "
        + ", ".join(hints)
        + "."
    )
