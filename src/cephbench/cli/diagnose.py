"""``cephbench diagnose``: say where the performance goes, layer by layer, with evidence."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option, format_option, one_ceph_connection
from cephbench.cli.options import SectionedCommand
from cephbench.cli.run_options import ceph_connection

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.planning.request import CephConnectionOptions
    from cephbench.store import Store


@click.command(cls=SectionedCommand)
@click.option("--quick", is_flag=True, help="A shorter load (under a minute on the lab).")
@click.option(
    "--no-osd-bench",
    "no_osd_bench",
    is_flag=True,
    help="Skip the OSDs' own benches: `ceph tell osd.N bench` (it writes into every OSD) "
    "and each OSD's own reads (objects written to the diagnosis' pool).",
)
@click.option("--label", help="A label stored with the diagnosis.")
@click.option(
    "--allow-unhealthy",
    is_flag=True,
    help="Diagnose even a cluster in HEALTH_ERR or with PGs not active+clean.",
)
@ceph_connection
@format_option("table", "md", "json")
@db_option
@one_ceph_connection
def diagnose(
    quick: bool,
    no_osd_bench: bool,
    label: str | None,
    allow_unhealthy: bool,
    ceph: CephConnectionOptions,
    fmt: str,
    store: Store,
) -> None:
    """Diagnose a Ceph cluster: where the performance goes, layer by layer, with evidence.

    It creates its own pool and RBD image (removed afterwards), runs a short known load
    (fio 4k writes and reads at QD1 and QD32), then loads each OSD on its own (`ceph tell
    osd.N bench`, and 4k reads of objects whose primary it is), reads the OSDs' counters
    before and after, and prints findings sorted by impact, what was checked, and the
    latency budget of a 4k write at QD1. Stored as a run (suite `diagnose`).

    \b
    Examples:
      cephbench diagnose --quick                  # the lab, under a minute
      cephbench diagnose --conf /etc/ceph/ceph.conf --id admin --no-osd-bench
      cephbench diagnose --format json            # cephbench.diagnosis/1
      cephbench report last -o diag.html          # the evidence drawn
    """
    conn = ceph.connect()
    run_id = measure(store, conn, quick, not no_osd_bench, label, allow_unhealthy)
    emit(store, run_id, fmt)
    console_err.print(f"Stored as run {run_id} in {store.path}")


def measure(
    store: Store,
    conn: Connection,
    quick: bool,
    osd_bench: bool = True,
    label: str | None = None,
    allow_unhealthy: bool = False,
) -> int:
    """Diagnose the cluster ``conn`` reaches; the stored diagnosis' run id."""
    from cephbench.ceph.session import HealthOptions
    from cephbench.diagnose.session import DiagnoseOptions
    from cephbench.diagnose.target import IMAGE, QUICK_IMAGE, DiagnoseTarget
    from cephbench.execution.runner import execute
    from cephbench.targets.cluster import CephOptions
    from cephbench.tools.options import RunOptions
    from cephbench.tools.plan import ToolPlan

    target = DiagnoseTarget(QUICK_IMAGE if quick else IMAGE, DiagnoseOptions(quick, osd_bench))
    target.configure(CephOptions(conn, None, 32 if quick else 128, prefill=True))
    plan = ToolPlan(
        "diagnose",
        "diagnose",
        "ceph:diagnose",
        [],
        options={"quick": quick, "osd_bench": osd_bench},
        reads=True,
    )
    outcome = execute(
        store,
        plan,
        target,
        label=label,
        options=RunOptions(HealthOptions(allow_unhealthy=allow_unhealthy)),
    )
    return outcome.run_id


def emit(store: Store, run_id: int, fmt: str) -> None:
    """Print a stored diagnosis as tables, Markdown or its JSON document; in a terminal
    narrower than ``render.NARROW`` its findings as blocks before the tables."""
    from cephbench.cli.common import console, emit_table, print_json
    from cephbench.diagnose import stored
    from cephbench.diagnose.render import NARROW, finding_blocks, tables

    doc = stored.document(store, run_id)
    if fmt == "json":
        print_json(doc)
        return
    narrow = fmt == "table" and console.width < NARROW
    if narrow:
        click.echo(finding_blocks(doc, console.width))
    for i, table in enumerate(tables(doc, narrow=narrow)):
        if i and fmt == "md":
            click.echo("")
        emit_table(table, fmt)
