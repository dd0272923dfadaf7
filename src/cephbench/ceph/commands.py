"""Running ``ceph`` and ``rados`` on a :class:`Connection`: timeouts always, JSON parsed."""

from __future__ import annotations

from typing import Any

from cephbench.ceph.connection import Connection
from cephbench.ceph.link import Unreachable, link_for
from cephbench.ceph.output import parse_json
from cephbench.ceph.tools import Outcome, classify, failure
from cephbench.errors import CephbenchError
from cephbench.system.process import ProcessResult, ProcessTimeout


def ceph(
    conn: Connection, *args: str, timeout: float | None = None, check: bool = True
) -> ProcessResult:
    """``ceph --connect-timeout N ARGS`` on ``conn``; a clear error when the cluster is unreachable.
    Inside :func:`cephbench.ceph.link.scope`, over the scope's connection (the same output)."""
    t = timeout or conn.timeout
    try:
        link = link_for(conn)
        result = None if link is None else link.run(args, t + 10)
    except Unreachable:
        raise unreachable(conn, t) from None
    if result is None:
        result = _cli(conn, args, t)
    if check and result.returncode != 0:
        if classify(result, conn.tools, "ceph") is Outcome.UNREACHABLE:
            raise unreachable(conn, t)
        raise failed(conn, result, f"ceph {' '.join(args)}")
    return result


def _cli(conn: Connection, args: tuple[str, ...], t: float) -> ProcessResult:
    try:
        return conn.tools.run(
            "ceph",
            *conn.args(),
            "--connect-timeout",
            str(max(1, int(t))),
            *args,
            env=conn.env,
            timeout=t + 10,
        )
    except ProcessTimeout:
        raise unreachable(conn, t) from None


def failed(conn: Connection, result: ProcessResult, what: str) -> CephbenchError:
    """The one error (``ceph/tools.py``'s mapper) of ``what`` (``rbd info P/I``) failing on
    ``conn``."""
    return failure(
        result,
        what,
        conn.tools,
        client=f"client.{conn.id}",
        where=conn.conf or (f"cluster {conn.cluster}" if conn.cluster else None),
    )


def ceph_json(conn: Connection, *args: str, timeout: float | None = None) -> Any:
    """``ceph ARGS -f json`` parsed."""
    return parse_json(args, ceph(conn, *args, "-f", "json", timeout=timeout).stdout)


def rados_argv(conn: Connection, *args: str) -> list[str]:
    """argv of ``rados`` on ``conn`` (mount timeout set, so it fails rather than hangs)."""
    return conn.tools.argv("rados", *rados_args(conn, *args))


def rados_args(conn: Connection, *args: str) -> list[str]:
    """``rados``'s arguments on ``conn`` (for :meth:`CephTools.run`)."""
    return [*conn.args(), f"--client_mount_timeout={max(1, int(conn.timeout))}", *args]


def unreachable(conn: Connection, timeout: float) -> CephbenchError:
    where = conn.conf or f"cluster {conn.cluster}"
    via = "" if conn.tools.local else f" (ceph run through `{conn.tools.describe()}`)"
    return CephbenchError(
        f"cannot reach the Ceph cluster of {where} as client.{conn.id} within {timeout:g} s{via}",
        hint="is it running, and are --conf/--id/--keyring right? (cephbench lab status for the lab)",
    )
