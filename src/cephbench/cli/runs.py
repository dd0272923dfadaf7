"""``cephbench runs``: one line per stored run (JSON: ``cephbench.runs/1``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import db_option, emit_table, format_option, print_json
from cephbench.report.table import Table

if TYPE_CHECKING:
    from cephbench.store import Store


@click.command()
@format_option("table", "md", "json")
@db_option
def runs(fmt: str, store: Store) -> None:
    """List the stored runs, oldest first."""
    from cephbench.contracts import RUNS, document  # the JSON contract: not for --help

    stored = store.runs()
    if fmt == "json":
        keys = ("id", "label", "suite", "target", "status", "started_at", "ended_at")
        print_json(document(RUNS, runs=[{k: getattr(r, k) for k in keys} for r in stored]))
        return
    table = Table(
        ("ID", "Label", "Suite", "Target", "Status", "Started (UTC)"),
        tuple(
            (str(r.id), r.label or "", r.suite, r.target, r.status, r.started_at) for r in stored
        ),
        align=("r", "l", "l", "l", "l", "l"),
        notes=() if stored else (f"No runs in {store.path} yet.",),
    )
    emit_table(table, fmt)
