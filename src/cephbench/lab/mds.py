"""``lab up --cephfs``: an MDS daemon and a filesystem ``lab`` (metadata and data pools).

Kept apart from the bootstrap so the lab's own steps gain only hook lines: the MDS key joins
the others imported by the monitor's mkfs, the pools and the filesystem are made in the same
``ceph`` session that registers the OSDs, the MDS starts alongside the OSDs, and the lab is
ready once the filesystem has an active rank 0 (:func:`not_ready`). ``lab down`` stops the MDS
by its recorded pid with the OSDs, before the monitor.
"""

from __future__ import annotations

from typing import Any

from cephbench.lab.paths import Layout

MDS = "mds.a"
FS_NAME = "lab"
META_POOL = "cephfs.lab.meta"  # the names `ceph fs volume create lab` would choose
DATA_POOL = "cephfs.lab.data"
META_PGS = 16
DATA_PGS = 32
MDS_CAPS = {
    "mds": "allow",
    "mgr": "allow profile mds",
    "mon": "allow profile mds",
    "osd": "allow rwx",
}


def conf_section(layout: Layout) -> dict[str, object]:
    """The ``[mds]`` section of the lab's ceph.conf."""
    return {
        "mds_data": f"{layout.dir}/mds.$id",
        "keyring": "$mds_data/keyring",
        # the lab's single MDS: no standby is wanted, a small cache is enough
        "mds_cache_memory_limit": 256 * 1024**2,
    }


def setup_commands() -> list[str]:
    """``ceph`` commands (one per line, one session) creating the pools and the filesystem."""
    return [
        f"osd pool create {META_POOL} {META_PGS} {META_PGS} replicated --autoscale_mode off",
        f"osd pool create {DATA_POOL} {DATA_PGS} {DATA_PGS} replicated --autoscale_mode off",
        f"fs new {FS_NAME} {META_POOL} {DATA_POOL}",
        f"fs set {FS_NAME} standby_count_wanted 0",
    ]


def active_ranks(status: dict) -> list[dict[str, Any]]:
    """``fsmap.by_rank`` entries of ``ceph status -f json`` whose state is up:active."""
    return [r for r in status.get("fsmap", {}).get("by_rank", []) if r.get("status") == "up:active"]


def not_ready(status: dict) -> str | None:
    """What the filesystem still waits for, from ``ceph status -f json``; None when ready.

    Its pools' PGs must be in the manager's PG map too: the PG states the lab's readiness
    judges come from the manager, which can be a report behind the OSD map just after it
    starts. Then every PG it knows is clean and the cluster HEALTH_OK, yet the filesystem's
    pools are missing from ``ceph df``, and its next report warns of their PGs not active
    (seen under load: ``lab status`` read HEALTH_WARN a moment after ``lab up`` returned,
    and ``ceph df`` listed no ``cephfs.lab.data``)."""
    fsmap = status.get("fsmap", {})
    ranks = fsmap.get("by_rank", [])
    if not active_ranks(status):
        states = ", ".join(str(r.get("status")) for r in ranks) or "no MDS in the map"
        return f"an active MDS for filesystem {FS_NAME} ({states})"
    known, pgs = status.get("pgmap", {}).get("num_pgs", 0), META_PGS + DATA_PGS
    if known < pgs:
        return f"the manager's report of the filesystem's pools ({known} of {pgs} PGs)"
    return None


def status_entry(ceph_status: dict, fs_ls: list | None) -> dict[str, Any]:
    """The ``cephfs`` part of ``lab status``: the filesystem, its pools and its MDS ranks."""
    fsmap = ceph_status.get("fsmap", {})
    fs = next((f for f in fs_ls or [] if f.get("name") == FS_NAME), None)
    return {
        "name": FS_NAME,
        "exists": fs is not None if fs_ls is not None else None,
        "metadata_pool": fs.get("metadata_pool") if fs else META_POOL,
        "data_pools": list(fs.get("data_pools", [])) if fs else [DATA_POOL],
        "ranks": [
            {"rank": r.get("rank"), "name": r.get("name"), "state": r.get("status")}
            for r in fsmap.get("by_rank", [])
        ],
        "standby": int(fsmap.get("up:standby", 0)),
    }
