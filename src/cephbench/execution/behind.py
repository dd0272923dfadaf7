"""What is behind a target, below every cache of the client, and how many reads it served.

A read result is only a figure of the storage when the storage served it. Above it the
client keeps caches (this machine's page cache, the page cache of a loop device's backing
file, librbd's cache), and a read served from one of them measures memory. So around each
workload the runner reads the counters of the layer behind the target, and compares them
with what fio counted (:mod:`cephbench.execution.served`):

* a file or a device: the block devices that hold its data. A file is resolved to its file
  system's device (``st_dev`` -> ``/sys/dev/block/MAJ:MIN``; through ``/proc/self/mountinfo``
  for a btrfs-like anonymous device or an overlay's upper directory); a loop device to the
  devices of its backing file, a device-mapper or md device to its slaves, down to the
  devices with nothing under them (the leaves), whose reads completed and sectors read
  (``/proc/diskstats``) are summed; a btrfs volume's every device. A loop device's own
  counters would not do: without direct I/O it reads its backing file through the page cache
  (the lab's Kubernetes volumes, loop devices on rbd-fuse files, read 5,597 MiB/s that way).
  A file system with no device at all (tmpfs, FUSE, a network file system), or a RAM disk
  (zram, brd), has no device behind it: :class:`NoDevice` says so. One whose devices are not
  followed (ZFS, say) is not judged at all;
* a Ceph target (``rbd:``, ``rados:``, ``cephfs:``, ``pvc:`` on a class whose cluster
  cephbench reaches): the pool's reads and bytes read (``ceph df detail``: ``rd``,
  ``rd_bytes``), every pool's when the target's is not known. The cluster's pool figures
  are the OSDs' PG statistics as they last reported them to the manager (every few
  seconds); each reading first has every OSD up report now (``tell osd.N flush_pg_stats``)
  and waits until the manager has that report (``osd last-stat-seq``), as Ceph's own tests
  do, so a reading holds every read completed before it.

Other readers of the same device or pool only add to what it served: a cache is then missed,
never a storage read taken for a cache.
"""

from __future__ import annotations

import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from cephbench.errors import CephbenchError

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection

DEVICELESS = frozenset(
    ("tmpfs", "ramfs", "devtmpfs", "proc", "sysfs", "nfs", "nfs4", "cifs", "smb3", "ceph", "9p")
) | {"virtiofs", "fuse"}
"""File systems with no block device of this machine under them (and ``fuse.*``)."""
SECTOR = 512
"""``/proc/diskstats`` counts sectors of 512 bytes, whatever the device's own."""
RAM_DISKS = ("zram", "ram")
"""Block devices whose data is in memory: nothing behind them is a device."""
STATS_WAIT_S = 10.0
"""How long a Ceph reading waits for the manager to have every OSD's latest report."""


@dataclass(frozen=True)
class Served:
    """Reads a layer served so far (cumulative counters)."""

    ios: int
    bytes: int

    def __sub__(self, other: Served) -> Served:
        return Served(self.ios - other.ios, self.bytes - other.bytes)


class Behind(Protocol):
    """The layer behind a target, read before and after each workload."""

    @property
    def name(self) -> str:
        """What it is, in words: ``vda (behind loop0)``, ``pool bench``."""

    @property
    def cache(self) -> str:
        """The cache a read served elsewhere came from, in words."""

    def read(self) -> Served | None:
        """The counters now; None when they cannot be read."""


@dataclass(frozen=True)
class NoDevice:
    """A file system or device with no device under it: its reads cannot be checked."""

    name: str
    known: bool = True
    """False for a file system whose devices cephbench does not follow (ZFS, say): then
    nothing is said of its reads, rather than that no device is behind them."""
    cache: str = "memory: no device is behind the target"

    def read(self) -> Served | None:
        return None


@dataclass(frozen=True)
class Devices:
    """Block devices (their ``/sys/block`` names), read from ``/proc/diskstats``."""

    leaves: tuple[str, ...]
    name: str
    cache: str = "this machine's page cache"

    def read(self) -> Served | None:
        try:
            text = Path("/proc/diskstats").read_text()
        except OSError:
            return None
        return diskstats(text, self.leaves)


def diskstats(text: str, names: tuple[str, ...]) -> Served | None:
    """The reads completed and bytes read of ``names`` summed, from ``/proc/diskstats`` text
    (fields: major minor name reads merged sectors ...); None if one is missing (pure)."""
    found: dict[str, Served] = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 6 and f[2] in names:
            found[f[2]] = Served(int(f[3]), int(f[5]) * SECTOR)
    if set(found) != set(names):
        return None
    return Served(sum(s.ios for s in found.values()), sum(s.bytes for s in found.values()))


# ---- a file or a device: the devices under it


@dataclass(frozen=True)
class MountEntry:
    devno: str
    mountpoint: str
    fstype: str
    source: str
    super_options: str


def parse_mountinfo(text: str) -> list[MountEntry]:
    """Each line of ``/proc/self/mountinfo``: its device number, mount point, type, source
    and super options (pure)."""
    out = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue
        out.append(
            MountEntry(
                fields[2],
                _unescape(fields[4]),
                tail[0],
                _unescape(tail[1]),
                tail[2] if len(tail) > 2 else "",
            )
        )
    return out


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def for_path(path: str) -> Devices | NoDevice:
    """The devices behind ``path`` (a file, a directory or a block device), or why none."""
    leaves: list[str] = []
    found = _path_leaves(path, leaves, set())
    if isinstance(found, NoDevice):
        return found
    top = _top_name(path)
    names = tuple(dict.fromkeys(leaves))
    shown = ", ".join(names)
    if top and top not in names:
        shown += f" (behind {top})"
    return Devices(names, shown)


def _top_name(path: str) -> str | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    devno = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    return _sysfs_name(os.major(devno), os.minor(devno))


def _sysfs_name(major: int, minor: int) -> str | None:
    link = Path(f"/sys/dev/block/{major}:{minor}")
    try:
        return link.resolve(strict=True).name
    except OSError:
        return None


def _path_leaves(path: str, leaves: list[str], seen: set[str]) -> NoDevice | None:
    """Append the leaf devices behind ``path`` to ``leaves``; a NoDevice when there are none."""
    try:
        st = os.stat(path)
    except OSError as e:
        return NoDevice(f"{path}: {e.strerror}")
    if stat.S_ISBLK(st.st_mode):
        name = _sysfs_name(os.major(st.st_rdev), os.minor(st.st_rdev))
        if name is None:
            return NoDevice(f"{path}, a device not in /sys/dev/block")
        return _device_leaves(name, leaves, seen)
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    name = _sysfs_name(major, minor)
    if name is not None:
        return _device_leaves(name, leaves, seen)
    try:
        mounts = parse_mountinfo(Path("/proc/self/mountinfo").read_text())
    except OSError:
        mounts = []
    mount = _mount_of(os.path.realpath(path), f"{major}:{minor}", mounts)
    if mount is None:
        return NoDevice(f"{path}, on no mount found")
    if mount.fstype == "overlay":  # what is written (and read back) is in the upper directory
        upper = next(
            (
                o.split("=", 1)[1]
                for o in mount.super_options.split(",")
                if o.startswith("upperdir=")
            ),
            None,
        )
        if upper and upper not in seen:
            seen.add(upper)
            return _path_leaves(upper, leaves, seen)
    if mount.source.startswith("/dev/"):  # btrfs and others: an anonymous st_dev
        try:
            source: os.stat_result | None = os.stat(mount.source)
        except OSError:
            source = None
        if source is not None and stat.S_ISBLK(source.st_mode):
            name = _sysfs_name(os.major(source.st_rdev), os.minor(source.st_rdev))
            if mount.fstype == "btrfs" and name is not None:  # every device of the volume
                for dev in _btrfs_devices(name):
                    found = _device_leaves(dev, leaves, seen)
                    if found is not None:
                        return found
                return None
            return _path_leaves(mount.source, leaves, seen)
    where = f"{mount.fstype} at {mount.mountpoint}"
    if mount.fstype in DEVICELESS or mount.fstype.startswith("fuse."):
        return NoDevice(where)
    return NoDevice(where, known=False)


def _btrfs_devices(name: str) -> list[str]:
    """Every device of the btrfs volume ``name`` is one of (``/sys/fs/btrfs/UUID/devices``)."""
    for volume in Path("/sys/fs/btrfs").glob("*/devices"):
        try:
            names = sorted(os.listdir(volume))
        except OSError:
            continue
        if name in names:
            return names
    return [name]


def _mount_of(path: str, devno: str, mounts: list[MountEntry]) -> MountEntry | None:
    """The mount of device ``devno`` that holds ``path`` (the longest mount point)."""
    best = None
    for m in mounts:
        if m.devno != devno:
            continue
        mp = m.mountpoint.rstrip("/") or "/"
        holds = path == mp or path.startswith(mp + "/") or mp == "/"
        if holds and (best is None or len(mp) > len(best.mountpoint.rstrip("/") or "/")):
            best = m
    return best


def _device_leaves(name: str, leaves: list[str], seen: set[str]) -> NoDevice | None:
    """Follow ``name`` (a /sys/block name) down to the devices with nothing under them."""
    if name in seen:
        return None
    seen.add(name)
    if name.startswith(RAM_DISKS):
        return NoDevice(f"{name}, a RAM disk")
    block = Path("/sys/class/block") / name
    backing = block / "loop" / "backing_file"
    if name.startswith("loop"):
        try:
            file = backing.read_text().strip()
        except OSError:
            return NoDevice(f"{name}, a loop device with no backing file")
        found = _path_leaves(file, leaves, seen)
        if isinstance(found, NoDevice):
            return NoDevice(f"{name}, on {file}: {found.name}")
        return None
    try:
        slaves = sorted(os.listdir(block / "slaves"))
    except OSError:
        slaves = []
    if not slaves:
        leaves.append(name)
        return None
    for s in slaves:
        found = _device_leaves(s, leaves, seen)
        if isinstance(found, NoDevice):
            return NoDevice(f"{name}, on {found.name}")
    return None


# ---- a Ceph pool


class Pool:
    """A Ceph pool's reads (every pool's when ``pool`` is None), as the manager has them once
    every OSD has reported its latest statistics."""

    def __init__(self, conn: Connection, pool: str | None, cache: str | None = None):
        self.conn, self.pool = conn, pool
        self.cache = cache or "a cache on the client"
        self.name = f"pool {pool}" if pool else "every pool of the cluster"
        self.error: str | None = None
        """Why the last reading failed (the OSDs could not be told to report, say)."""

    def read(self) -> Served | None:
        from cephbench.ceph.commands import ceph, ceph_json

        try:
            dump = ceph_json(self.conn, "osd", "dump")  # the OSDs up now: a down one never answers
            up = [str(o["osd"]) for o in dump.get("osds", []) if o.get("up")]
            seqs = {
                osd: int(ceph(self.conn, "tell", f"osd.{osd}", "flush_pg_stats").stdout.split()[0])
                for osd in up
            }
            deadline = time.monotonic() + STATS_WAIT_S
            for osd, seq in seqs.items():
                while int(ceph(self.conn, "osd", "last-stat-seq", f"osd.{osd}").stdout) < seq:
                    if time.monotonic() > deadline:
                        self.error = (
                            f"the manager had no report of osd.{osd} within {STATS_WAIT_S:g} s"
                        )
                        return None
                    time.sleep(0.02)
            df = ceph_json(self.conn, "df", "detail")
        except (CephbenchError, ValueError, IndexError, AttributeError, KeyError, TypeError) as e:
            self.error = str(e) or type(e).__name__
            return None
        return pool_reads(df, self.pool)


def pool_reads(df: object, pool: str | None) -> Served | None:
    """The reads of ``pool`` (every pool's when None) in ``ceph df detail -f json`` (pure)."""
    pools = df.get("pools") if isinstance(df, dict) else None
    if not isinstance(pools, list):
        return None
    chosen = [p for p in pools if isinstance(p, dict) and (pool is None or p.get("name") == pool)]
    if not chosen:
        return None
    ios = total = 0
    for p in chosen:
        s = p.get("stats") or {}
        if "rd" not in s or "rd_bytes" not in s:
            return None
        ios, total = ios + int(s["rd"]), total + int(s["rd_bytes"])
    return Served(ios, total)
