"""Objects ``rados bench --no-cleanup`` leaves, removed by ``rados cleanup --run-name``."""

from __future__ import annotations

from cephbench.ceph.commands import failed, rados_args
from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import Outcome, classify
from cephbench.resources.undo import undoes
from cephbench.store import Resource


def remove_bench_objects(conn: Connection, pool: str, run_name: str) -> None:
    """Remove the benchmark objects of ``run_name`` in ``pool`` (only those): none left, or
    the pool gone with them, is done."""
    result = conn.tools.run(
        "rados",
        *rados_args(conn, "-p", pool, "cleanup", "--run-name", run_name),
        env=conn.env,
        timeout=max(600, conn.timeout),
    )
    if result.returncode != 0 and classify(result) is not Outcome.NOT_FOUND:
        if "error opening pool" in result.stderr:
            return  # the pool is gone, and its objects with it
        raise failed(conn, result, f"rados cleanup of {pool}/{run_name}")


@undoes("rados_objects")
def undo_objects(resource: Resource) -> None:
    pool, _, run_name = resource.name.partition("/")
    remove_bench_objects(Connection.from_json(resource.detail["conn"]), pool, run_name)
