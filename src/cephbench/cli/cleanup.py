"""``cephbench cleanup``: remove what interrupted runs left behind (listed from the store)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console, console_err, db_option
from cephbench.errors import ExitStatus

if TYPE_CHECKING:
    from cephbench.store import Store


@click.command()
@db_option
def cleanup(store: Store) -> None:
    """Remove files (and other things) that killed runs created and could not remove."""
    from cephbench.execution.cleanup import cleanup as do_cleanup  # the store and targets

    report = do_cleanup(store)
    for r in report.removed:
        console.print(f"removed {r.kind} {r.name} (run {r.run_id})")
    for r, why in report.failed:
        console_err.print(f"[red]could not remove[/] {r.kind} {r.name} (run {r.run_id}): {why}")
    if not report.removed and not report.failed:
        console.print("Nothing to clean up.")
    if report.failed:
        raise click.exceptions.Exit(int(ExitStatus.ERROR))
