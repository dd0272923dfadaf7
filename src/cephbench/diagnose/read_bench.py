"""Each OSD's 4 KiB random reads under a load of its own: objects in the diagnosis' own pool
whose primary is that OSD, read by fio's rados engine one OSD at a time.

Under the shared load a slow part hides what the others can do: when one disk is slow the
client's queue waits on it and every other OSD idles. And ``osd bench`` writes only, so reads
had no device ceiling at all: under a slow disk ``explain`` named this machine's CPU as the
limit of random reads that waited on that disk (5 times of 5, 2026-11-30). Here
each OSD is read on its own: its figure is what its device and object store give reads, the
ceiling :mod:`cephbench.diagnose.ceilings` draws for reads through its share of the primaries.

The objects are named so they land where they should (:mod:`cephbench.ceph.placement`: one
object in each of up to :data:`PGS_PER_OSD` PGs the OSD is primary of, as a client's reads
spread over them; a replicated pool's PG serves one read at a time), written with ``rados
put`` and read at QD :data:`QD`; they go with the diagnosis' own pool when it is removed.
Skipped with ``--no-osd-bench``, as the OSDs' other bench.

fio's rados engine reads its configuration from its ``conf`` option (default
``/etc/ceph/ceph.conf``), not ``CEPH_CONF`` as the rbd engine does: it is given the
connection's. ``touch_objects=0``: the objects are there, no empty write to each first.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import partial
from typing import Any

from cephbench.ceph import placement
from cephbench.ceph.commands import rados_args
from cephbench.ceph.tools import CephTools
from cephbench.diagnose import unchecked
from cephbench.diagnose.load import fio_jobs, job_figures
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.diagnose.together import together
from cephbench.model import WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted
from cephbench.tools.base import Step, Stopped, raw_output

PGS_PER_OSD = 8
"""Objects per OSD, each in a PG of its own: as many reads at once as a replicated pool's PGs
allow (each serves one at a time) up to Ceph's op shards for SSDs (``osd_op_num_shards_ssd``)."""
OBJECT_BYTES = 256 << 10
"""Each object's size: 2 MiB per OSD to read from, 512 blocks; small, as a slow disk holds a
copy of every object (3 OSDs, 3 copies) and writes them at its own pace."""
QD = 32
"""Reads in flight, as the diagnosis' own QD32 load keeps."""
MAX_OSDS = 32
"""OSDs read one after another: beyond this many the rest are not read (said so)."""
PUTS_AT_ONCE = 8
PREFIX = "cephbench-read"


def job_name(osd: int) -> str:
    return f"osd.{osd} read 4k"


class OsdReadBench(Probe):
    """``read_4k`` in each OSD's evidence: its IOPS and mean latency under reads of its own."""

    name = "osd-read"

    def run(self, session: Session) -> Iterator[Step]:
        e = session.evidence
        if not session.options.osd_bench:
            e.setdefault("not_checked", []).append(unchecked.OSD_READS_SKIPPED.text)
            return
        pool = session.ctx.fio_target.options.get("pool")
        if not pool:
            return
        (s1, detail), (s2, listed) = session.ceph_many(
            ("osd", "pool", "ls", "detail"), ("pg", "ls-by-pool", pool)
        )
        yield s1
        yield s2
        names = chosen(detail, listed, pool, session.osds)
        if not names:
            e.setdefault("not_checked", []).append(unchecked.OSD_READS_UNPLACED.text)
            return
        if len(names) > MAX_OSDS:
            e.setdefault("not_checked", []).append(
                f"each OSD's own reads: {len(names) - MAX_OSDS} OSDs past the first "
                f"{MAX_OSDS} not read"
            )
            names = dict(list(names.items())[:MAX_OSDS])
        flat = [n for objs in names.values() for n in objs]
        for i in range(0, len(flat), PUTS_AT_ONCE):
            puts = together([partial(_put, session, pool, n) for n in flat[i : i + PUTS_AT_ONCE]])
            yield from (step for step, _ in puts)
            failed = next((r for _, r in puts if r), None)
            if failed:
                e.setdefault("not_checked", []).append(
                    f"each OSD's own reads: writing their objects failed ({failed})"
                )
                return
        step, figures = _read(session, pool, names)
        yield session.measured(step)
        for osd, fig in figures.items():
            info = e["osds"].get(str(osd))
            if info is not None:
                info["read_4k"] = fig


def chosen(
    detail: list[dict[str, Any]] | None,
    listed: Any,
    pool: str,
    osds: list[int],
) -> dict[int, list[str]]:
    """OSD -> the names of its objects (up to :data:`PGS_PER_OSD`, one per PG it is primary
    of), for the OSDs that are up and primary of some PG of ``pool``. Pure."""
    found = next((p for p in detail or [] if p.get("pool_name") == pool), None)
    stats = listed.get("pg_stats", []) if isinstance(listed, dict) else (listed or [])
    primaries = {
        s["pgid"]: int(s["acting_primary"])
        for s in stats
        if isinstance(s.get("acting_primary"), int) and s["acting_primary"] >= 0
    }
    if found is None or not primaries or found.get("type") != 1:
        return {}  # reads of an erasure-coded pool gather from several OSDs: not one's own
    names = placement.names_by_primary(
        PREFIX, int(found["pool_id"]), int(found["pg_num"]), primaries, PGS_PER_OSD
    )
    return {osd: objs for osd, objs in names.items() if objs and osd in osds}


def _put(session: Session, pool: str, name: str) -> tuple[Step, str | None]:
    """Write one object (``rados put NAME -``, its bytes on stdin); (its step, why it failed
    or None)."""
    conn = session.conn
    started = now()
    try:
        result = conn.tools.run(
            "rados",
            *rados_args(conn, "-p", pool, "put", name, "-"),
            env=conn.env,
            stdin="cephbench" * (OBJECT_BYTES // 9) + "\n" * (OBJECT_BYTES % 9),
            timeout=max(120.0, conn.timeout),
        )
    except ProcessInterrupted:
        raise Stopped from None
    step = Step(0, raw_output("rados", result, started), [])
    return step, None if result.returncode == 0 else result.last_error_line()


def _read(
    session: Session, pool: str, names: dict[int, list[str]]
) -> tuple[Step, dict[int, dict[str, Any]]]:
    """One fio: a job per OSD, one after another, random 4 KiB reads of its objects at QD
    :data:`QD`, each for ``own_read_seconds``; (its step, OSD -> its figures)."""
    seconds = session.options.own_read_seconds
    target = session.ctx.fio_target
    args = [
        "--ioengine=rados",
        f"--pool={pool}",
        *(f"--{k}={v}" for k, v in session.conn.fio_options().items()),
        *([f"--conf={session.conn.conf}"] if session.conn.conf else []),
        "--touch_objects=0",
        "--rw=randread",
        "--bs=4k",
        f"--iodepth={QD}",
        "--time_based",
        f"--runtime={int(seconds * 1000)}ms",
        "--output-format=json",
    ]
    for i, (osd, objs) in enumerate(names.items()):
        args += [f"--name={job_name(osd)}", *(["--stonewall"] if i else [])]
        args += [f"--filename={':'.join(objs)}", f"--size={len(objs) * OBJECT_BYTES}"]
    started, t0 = now(), time.monotonic()
    try:
        tools = target.tools or CephTools()
        result = tools.run("fio", *args, env=target.env, timeout=len(names) * (seconds + 30) + 60)
    except ProcessInterrupted:
        raise Stopped from None
    window = (t0, time.monotonic())
    raw = raw_output("fio", result, started)
    parsed, error = fio_jobs(result)
    outcomes, figures = [], {}
    for osd, objs in names.items():
        outcome = parsed.get(job_name(osd)) or WorkloadOutcome(job_name(osd), error=error)
        outcomes.append(outcome)
        if outcome.results:
            figures[osd] = {**job_figures(outcome), "objects": len(objs), "qd": QD}
    return Step(0, raw, outcomes, [window] * len(outcomes)), figures
