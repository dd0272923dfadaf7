"""``cephbench explain RUN``: each workload of a stored Ceph run beside the ceiling the
measured parts of its cluster allow, the efficiency and the limiting part."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from cephbench.cli.common import console_err, db_option, format_option, one_ceph_connection
from cephbench.cli.complete import complete_run_ref
from cephbench.cli.options import SectionedCommand

if TYPE_CHECKING:
    from cephbench.store import Store


@click.command(cls=SectionedCommand)
@click.argument("run_ref", metavar="RUN", shell_complete=complete_run_ref)
@click.option(
    "--measure",
    is_flag=True,
    help="Diagnose the run's cluster now (diagnose --quick) when no diagnosis of it from the "
    "last 24 hours is stored.",
)
@click.option(
    "--diagnosis",
    "diagnosis_ref",
    metavar="DIAG_RUN",
    help="The stored diagnosis to use (default: the newest of the run's cluster).",
)
@format_option("table", "md", "json")
@db_option
@one_ceph_connection
def explain(
    run_ref: str,
    measure: bool,
    diagnosis_ref: str | None,
    fmt: str,
    store: Store,
) -> None:
    """Explain a stored Ceph run: each workload's ceiling, efficiency and limiting part.

    The ceiling each part of the cluster allows comes from a stored diagnosis of the same
    cluster (each OSD's osd bench, the links' iperf3 and ping, the pool's placement) and
    from what the run recorded (its pool's PGs, each workload's CPU seconds on the lab);
    the lowest is the ceiling, measured / ceiling the efficiency.

    \b
    Examples:
      cephbench explain last                     # the newest diagnosis of its cluster
      cephbench explain 12 --measure             # diagnose now if none recent is stored
      cephbench explain 12 --format json         # cephbench.explanation/1
    """
    from cephbench.cli.common import emit_table, print_json
    from cephbench.diagnose import explain as ex
    from cephbench.errors import UsageError

    run, fsid, _pool, _fp = ex.ceph_run(store, run_ref)
    if diagnosis_ref is not None:
        diag = store.resolve(diagnosis_ref)
    else:
        recent = ex.time_now() - ex.RECENT_S
        found = ex.latest_diagnosis(store, fsid, recent if measure else None)
        if found is None and measure:
            from cephbench.ceph.connection import Connection
            from cephbench.cli.diagnose import measure as diagnose_now

            connection = run.params.get("connection")
            if not connection:
                raise UsageError(
                    f"run {run.id} does not say how it reached its cluster",
                    hint="run `cephbench diagnose` with its connection options, then explain",
                )
            console_err.print(f"No recent diagnosis of cluster {fsid}: diagnosing it now")
            found = diagnose_now(store, Connection.from_json(connection), quick=True)
        if found is None:
            raise UsageError(
                f"no stored diagnosis of cluster {fsid} (run {run.id}'s)",
                hint=f"cephbench explain {run.id} --measure, or cephbench diagnose first",
            )
        diag = found
    doc = ex.document(store, run.id, diag)
    if fmt == "json":
        print_json(doc)
        return
    for i, table in enumerate(ex.tables(doc)):
        if i and fmt == "md":
            click.echo("")
        emit_table(table, fmt)
