"""librbd's cache turned off (``rbd_cache false`` in the client section): every write waits
for the OSDs, and writes small enough to merge are not merged. The remedy turns it back on
(Ceph's default since Octopus is ``writearound``: a write completes once sent, while under
``rbd_cache_max_dirty``); clients read it when they open an image, nothing restarts."""

from __future__ import annotations

from cephbench.tuning.remedies.base import Cost, FindingRef, Remedy


def _lines(finding: FindingRef) -> list[str]:
    return ["ceph config set client rbd_cache true"]


REMEDY = Remedy(
    name="rbd-cache-on",
    summary="turn librbd's cache back on (ceph config set client rbd_cache true)",
    answers=("client.rbd_cache_off",),
    kinds=("config",),
    keys=("rbd_cache",),
    workloads=("rand_wr", "seq_wr", "lat_rand_wr"),
    cost=Cost.ONLINE,
    lines=_lines,
)
