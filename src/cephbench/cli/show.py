"""``cephbench show RUN``: one run as the table users post, as Markdown, or as JSON."""

from __future__ import annotations

import click

from ..report.show import run_table
from ..store import Store
from .common import db_option, emit_table, format_option, print_json


@click.command()
@click.argument("run_ref", metavar="RUN", default="last")
@format_option("table", "md", "json")
@db_option
def show(run_ref: str, fmt: str, store: Store) -> None:
    """Show a stored run (an id from `cephbench runs`, or 'last')."""
    emit_run(store.get_run(run_ref), fmt)


def emit_run(run, fmt: str) -> None:
    if fmt == "json":
        print_json(run.to_json())
    else:
        emit_table(run_table(run), fmt)
