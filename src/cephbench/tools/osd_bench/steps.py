"""The ``osd`` suite: ``ceph tell osd.N bench`` on every up OSD, one at a time (OSDs may
share disks), each a workload named ``osd.N``."""

from __future__ import annotations

import time
from collections.abc import Iterator

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted
from cephbench.tools.base import RunContext, Step, Stopped, raw_output
from cephbench.tools.osd_bench import driver as osd_bench


def osd_steps(ctx: RunContext, repeat: int) -> Iterator[Step]:
    total = int(ctx.plan.options.get("total_bytes") or osd_bench.DEFAULT_BYTES)
    bs = int(ctx.plan.options.get("bs") or osd_bench.DEFAULT_BS)
    for osd in osd_bench.up_osds(ceph_json(ctx.conn, "osd", "dump")):
        ctx.before_each()
        started, t0 = now(), time.monotonic()
        try:
            result = ceph(
                ctx.conn,
                *osd_bench.argv(osd, total, bs),
                timeout=max(600, ctx.conn.timeout),
                check=False,
            )
        except ProcessInterrupted:
            raise Stopped from None
        raw, name = raw_output("osd-bench", result, started), f"osd.{osd}"
        try:
            if result.returncode != 0:
                raise ParseError(f"ceph tell {name} bench failed: {result.last_error_line()}")
            outcome = WorkloadOutcome(name, (osd_bench.parse(result.stdout, osd, repeat),))
        except ParseError as e:
            outcome = WorkloadOutcome(name, error=str(e))
        yield Step(repeat, raw, [outcome], [(t0, time.monotonic())])


def osd_details(conn: Connection) -> dict[str, dict]:
    """Host, device class and model of every OSD (kept in the run's environment)."""
    return osd_bench.osd_info(
        ceph_json(conn, "osd", "metadata") or [], ceph_json(conn, "osd", "tree") or {}
    )
