"""Too few PGs in a pool for its OSDs: with fewer PGs than OSDs some OSDs are primary of none
of the pool's PGs and its I/O cannot spread over them. The remedy raises ``pg_num`` to the
power of two nearest Ceph's target of about 100 PG copies per OSD (``mon_target_pg_per_osd``)
for a pool alone, at least the number of OSDs. It splits PGs, which moves data: ``tune``
tries it only with ``--allow data-movement``."""

from __future__ import annotations

import shlex

from cephbench.tuning.remedies.base import Cost, FindingRef, Remedy

TARGET_PER_OSD = 100


def pg_target(osds: int, size: int) -> int:
    """The power of two nearest ``osds * 100 / size`` (at least ``osds``)."""
    want = max(osds, osds * TARGET_PER_OSD // max(size, 1), 1)
    low = 1 << (want.bit_length() - 1)
    return low if want - low < 2 * low - want else 2 * low


def _lines(finding: FindingRef) -> list[str]:
    ev = finding.evidence or {}
    n = pg_target(int(ev["osds"]), int(ev.get("size") or 3))
    return [shlex.join(["ceph", "osd", "pool", "set", ev["pool"], "pg_num", str(n)])]


REMEDY = Remedy(
    name="pg-num-up",
    summary="raise a pool's pg_num to about 100 PG copies per OSD (moves data)",
    answers=("placement.too_few_pgs",),
    kinds=("pool",),
    keys=("pg_num",),
    workloads=("rand_wr", "rand_rd"),
    cost=Cost.DATA_MOVEMENT,
    lines=_lines,
)
