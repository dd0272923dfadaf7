"""The diagnosis' own pool and RBD image, on the lab or on any cluster: always fresh
(``cb-<run>-<hex>``, tagged), prefilled so reads touch the OSDs, removed afterwards."""

from __future__ import annotations

from cephbench.ceph import pools
from cephbench.system.process import which
from cephbench.targets import TargetOptions
from cephbench.targets.cluster import FRESH
from cephbench.targets.rbd import RbdTarget

QUICK_IMAGE = 16 << 20
"""Prefilled (a new object's first writes cost the OSDs 3x more than later ones, which would
blur the figures); small, as a slow disk's share of the prefill takes seconds."""
IMAGE = 256 << 20
OBJECT_SIZE = "256K"
"""Small objects spread the image over the pool's PGs (16 MiB in 4 MiB objects would touch
4 PGs of 32, and an OSD could be primary of none of them: no signal from it)."""


class DiagnoseTarget(RbdTarget):
    """An ``rbd:`` target whose pool and image are always the run's own."""

    def __init__(self, image_bytes: int):
        super().__init__(FRESH, TargetOptions())
        self.image_bytes = image_bytes

    @property
    def spec(self) -> str:
        return "ceph:diagnose"

    def _rbd(self, *args: str) -> None:
        if args and args[0] == "create":
            args = (*args[:-1], "--object-size", OBJECT_SIZE, args[-1])
        super()._rbd(*args)

    def check(self, size: int) -> None:
        which("rbd", "ceph-common")
        self.size = self.image_bytes

    def check_cluster(self) -> None:
        pools.check_usable(self.conn, None)
