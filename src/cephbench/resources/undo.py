"""Undo what interrupted runs created: each kind of resource has one undo function.

A foundation the layers above register with (``@undoes("ceph_pool")``): pools and OSD flags
in ``ceph/``, images in ``targets/``, remote processes in ``hosts/``, servers in ``tools/``,
settings in ``tuning/``. ``cephbench cleanup`` imports them through the tool, target and
setting registries (``cli/cleanup.py``), then calls :func:`cleanup`.
Only resources recorded in the store are touched: cephbench removes nothing it did not create.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cephbench.errors import CephbenchError
from cephbench.store import Resource, ResourceLog, Store

UNDO: dict[str, Callable[..., None]] = {}
WITH_LOG: set[str] = set()
"""Kinds whose undo function records what it creates on the way (``resources=``)."""


class ResourceLeft(CephbenchError):
    """Something cephbench created could not be removed; it stays recorded for ``cleanup``.

    The benchmark itself is not affected: a run that ends with this keeps its status.
    """


def undoes(kind: str, *, with_log: bool = False):
    """Register the undo function of a resource kind (targets add theirs: pools, images...).

    ``with_log``: the function takes a ``resources`` keyword, a :class:`ResourceLog` of the
    resource's run, for what it must create to finish (a blocklist entry, say).
    """

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        UNDO[kind] = fn
        if with_log:
            WITH_LOG.add(kind)
        return fn

    return register


@undoes("file")
def remove_file(resource: Resource) -> None:
    Path(resource.name).unlink(missing_ok=True)


PRIVATE_DIRS = ("cephbench-run-", "cephbench-capacity-")
"""How cephbench's private directories are named (a run's work directory, a capacity step's)."""


@undoes("dir")
def remove_dir(resource: Resource) -> None:
    """A private directory of cephbench's (only ever one named as :data:`PRIVATE_DIRS` say)."""
    path = Path(resource.name)
    if not path.name.startswith(PRIVATE_DIRS):
        raise CephbenchError(f"{path} is not a cephbench work directory; not removing it")
    shutil.rmtree(path, ignore_errors=True)


@dataclass(frozen=True)
class CleanupReport:
    removed: list[Resource]
    failed: list[tuple[Resource, str]]


def cleanup(store: Store, active_runs: set[int] | None = None) -> CleanupReport:
    """Undo every open resource whose run is not running now (an image before its pool).

    The undo functions of every kind recorded must be registered (imported) before."""
    running = active_runs if active_runs is not None else {r.id for r in store.runs("running")}
    removed, failed = [], []
    for resource in reversed(store.open_resources()):  # newest first, as a run undoes them
        if resource.run_id in running:
            continue
        undo = UNDO.get(resource.kind)
        if undo is None:
            failed.append((resource, f"cephbench does not know how to remove a {resource.kind}"))
            continue
        try:
            if resource.kind in WITH_LOG:
                undo(resource, resources=ResourceLog(store, resource.run_id))
            else:
                undo(resource)
        except (CephbenchError, OSError) as e:
            failed.append((resource, str(e)))
            continue
        store.resource_removed(resource.id)
        removed.append(resource)
    return CleanupReport(removed, failed)
