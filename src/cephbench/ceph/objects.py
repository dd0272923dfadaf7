"""Objects ``rados bench --no-cleanup`` leaves, removed by ``rados cleanup --run-name``."""

from __future__ import annotations

from cephbench.ceph.commands import rados_argv
from cephbench.ceph.connection import Connection
from cephbench.errors import ToolFailed
from cephbench.resources.undo import undoes
from cephbench.store import Resource
from cephbench.system.process import run


def remove_bench_objects(conn: Connection, pool: str, run_name: str) -> None:
    """Remove the benchmark objects of ``run_name`` in ``pool`` (only those)."""
    result = run(
        rados_argv(conn, "-p", pool, "cleanup", "--run-name", run_name),
        env=conn.env,
        timeout=max(600, conn.timeout),
    )
    if result.returncode != 0 and "No such file" not in result.stderr + result.stdout:
        if "error opening pool" in result.stderr:
            return  # the pool is gone, and its objects with it
        raise ToolFailed(f"rados cleanup of {pool}/{run_name} failed: {result.last_error_line()}")


@undoes("rados_objects")
def undo_objects(resource: Resource) -> None:
    pool, _, run_name = resource.name.partition("/")
    remove_bench_objects(Connection.from_json(resource.detail["conn"]), pool, run_name)
