"""``rados:POOL``: a RADOS pool for ``rados bench`` (the ``rados`` suite), or fio's rados engine.

A pool that exists is used as it is and never deleted; one that does not is created
(replicated, ``--pool-size``, ``--pg-num``, tagged as cephbench's) and deleted afterwards.
``rados:lab`` is a fresh pool in the running lab.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from cephbench.ceph import compat
from cephbench.ceph.pools import NAME, check_usable, undo_pool
from cephbench.errors import TargetError
from cephbench.store import ResourceLog
from cephbench.targets import FioTarget
from cephbench.targets.cluster import FRESH, CephTarget


class RadosTarget(CephTarget):
    kind = "rados"
    undo = (*CephTarget.undo, undo_pool)
    application = "rados"

    def __init__(self, location, options):
        super().__init__(location, options)
        if location != FRESH and not NAME.match(location):
            raise TargetError(
                f"'rados:{location}' is not a pool name", hint="e.g. rados:bench-pool"
            )

    def check_cluster(self) -> None:
        check_usable(self.conn, None if self.location == FRESH else self.location)
        compat.check_features(self.conn, "rados")  # rados bench here

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        with self.pool_session(run_id, resources) as pool:
            yield FioTarget(
                {"ioengine": "rados", "pool": pool, **self.conn.fio_options()},
                self.env,
                tools=self.conn.tools,
            )
