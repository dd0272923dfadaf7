"""``cephbench cleanup``: remove what interrupted runs left behind (listed from the store)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console, console_err, db_option
from cephbench.errors import ExitStatus

if TYPE_CHECKING:
    from cephbench.store import Store


def load_undo() -> None:
    """Register the undo function of every kind of resource cephbench creates, found through
    the registries: each tool, target and tuning setting kind declares its own (``undo``) and
    loading it registers them; files and run directories are ``resources.undo``'s own."""
    from cephbench import targets, tools
    from cephbench.ceph import osd_out  # noqa: F401  (capacity --while recovery|backfill: the OSD taken out)
    from cephbench.resources import undo
    from cephbench.tuning.settings import REGISTRY as SETTINGS

    for registry in (tools.REGISTRY, targets.REGISTRY, SETTINGS):
        for plugin in registry.load_all().values():
            missing = [fn for fn in plugin.undo if fn not in undo.UNDO.values()]
            assert not missing, f"{plugin} declares undo functions not registered: {missing}"


@click.command()
@db_option
def cleanup(store: Store) -> None:
    """Remove files (and other things) that killed runs created and could not remove."""
    from cephbench.hosts.ssh import remove_control_dir, stale_control_dirs
    from cephbench.resources.undo import cleanup as do_cleanup

    load_undo()
    report = do_cleanup(store)
    for r in report.removed:
        console.print(f"removed {r.kind} {r.name} (run {r.run_id})")
    for r, why in report.failed:
        console_err.print(f"[red]could not remove[/] {r.kind} {r.name} (run {r.run_id}): {why}")
    # a killed run's ssh master sockets: not in the store (no run owns them), found by their PID
    stale = stale_control_dirs()
    for control in stale:
        remove_control_dir(control)
        console.print(f"removed ssh_control_dir {control}")
    if not report.removed and not report.failed and not stale:
        console.print("Nothing to clean up.")
    if report.failed:
        raise click.exceptions.Exit(int(ExitStatus.ERROR))
