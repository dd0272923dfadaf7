"""``device:/dev/X``: a whole block device, written directly.

Refused, always, while the device is in use: mounted (itself, a partition, or a device stacked
on it; by device number, so ``/dev/root`` and loop devices count), swap, a member of a
device-mapper, LVM or RAID device, or locked by a running process (a Ceph OSD's BlueStore
locks its device). Refused when it holds anything (partition table, filesystem, LVM, RAID,
Ceph BlueStore label) unless ``--destroy-data`` names exactly this device.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cephbench.errors import TargetError
from cephbench.store import ResourceLog
from cephbench.system.environment import device_info
from cephbench.system.process import run, which
from cephbench.system.units import format_size
from cephbench.targets import FioTarget, Target

BLUESTORE_MAGIC = b"bluestore block device"


class DeviceTarget(Target):
    kind = "device"

    @property
    def device(self) -> str:
        return os.path.realpath(self.location)

    def check(self, size: int) -> None:
        dev = self.device
        try:
            if not stat.S_ISBLK(os.stat(dev).st_mode):
                raise TargetError(
                    f"{self.location} is not a block device", hint="use file:PATH for files"
                )
        except FileNotFoundError:
            raise TargetError(f"{self.location} does not exist") from None
        busy = in_use(dev)
        if busy:
            raise TargetError(
                f"{self.location} is in use ({'; '.join(busy)}); refusing to write to it",
                hint="cephbench never writes to a device in use, --destroy-data or not",
            )
        found = signatures(dev)
        allowed = self.options.destroy_data and os.path.realpath(self.options.destroy_data) == dev
        if found and not allowed:
            raise TargetError(
                f"{self.location} holds data ({'; '.join(found)}); refusing to write to it",
                hint=f"if you mean to destroy it, add --destroy-data {self.location}",
            )
        capacity = _size_bytes(dev)
        if capacity is not None and size > capacity:
            raise TargetError(
                f"{self.location} is {format_size(capacity)}, smaller than --size {format_size(size)}"
            )
        if not os.access(dev, os.W_OK):
            raise TargetError(
                f"cannot write to {self.location}: permission denied", hint="run as root"
            )

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        yield FioTarget({"filename": self.device})

    def describe(self) -> dict[str, Any]:
        return {"spec": self.spec, **device_info(self.device)}


def signatures(dev: str) -> list[str]:
    """Everything on ``dev`` that says it is in use, in words; empty when it looks blank."""
    found = []
    probe = run([which("blkid", "util-linux"), "-p", "-o", "export", dev], timeout=30)
    fields = dict(ln.split("=", 1) for ln in probe.stdout.splitlines() if "=" in ln)
    if fields.get("PTTYPE"):
        found.append(f"{fields['PTTYPE']} partition table")
    if fields.get("TYPE"):
        found.append(f"{fields['TYPE']} signature")
    if _head(dev).startswith(BLUESTORE_MAGIC) and "ceph_bluestore signature" not in found:
        found.append("Ceph BlueStore label")
    name = Path(dev).name
    sysdir = Path("/sys/class/block") / name
    partitions = (
        [p.name for p in sysdir.iterdir() if (p / "partition").exists()] if sysdir.is_dir() else []
    )
    if partitions:
        found.append("partitions " + ", ".join(sorted(partitions)))
    return found


def in_use(dev: str) -> list[str]:
    """What uses ``dev`` now, in words (empty when nothing does): mounts of it, of its
    partitions or of devices stacked on them; swap; the stacked devices themselves; a lock a
    running process holds on it."""
    name = Path(dev).name
    family = _family(name)
    found = []
    numbers = {n for b in family if (n := _devno(b))}
    mounts = [point for number, point in _mounts() if number in numbers]
    if mounts:
        found.append("mounted on " + ", ".join(mounts))
    swaps = [s for s in _swaps() if Path(os.path.realpath(s)).name in family]
    if swaps:
        found.append("swap on " + ", ".join(swaps))
    stacked = [_stacked_name(b) for b in family if b != name and not _is_partition(b)]
    if stacked:
        found.append("a member of " + ", ".join(stacked))
    holder = _locked_by(dev)
    if holder:
        found.append(f"locked by {holder}")
    return found


def _family(name: str) -> list[str]:
    """The device, its partitions, and every device stacked on any of them, by name."""
    out, todo = [], [name]
    while todo:
        current = todo.pop(0)
        if current in out:
            continue
        out.append(current)
        sysdir = Path("/sys/class/block") / current
        if sysdir.is_dir():
            todo += sorted(p.name for p in sysdir.iterdir() if (p / "partition").exists())
            if (sysdir / "holders").is_dir():
                todo += sorted(p.name for p in (sysdir / "holders").iterdir())
    return out


def _is_partition(name: str) -> bool:
    return (Path("/sys/class/block") / name / "partition").exists()


def _devno(name: str) -> str | None:
    try:
        return (Path("/sys/class/block") / name / "dev").read_text().strip()
    except OSError:
        return None


def _stacked_name(name: str) -> str:
    """``dm-0`` -> "device-mapper dm-0 (vg-lv)", ``md0`` -> "RAID md0"."""
    if name.startswith("md"):
        return f"RAID {name}"
    try:
        mapped = (Path("/sys/class/block") / name / "dm" / "name").read_text().strip()
    except OSError:
        return name
    return f"device-mapper {name} ({mapped})"


def _mounts() -> list[tuple[str, str]]:
    """(major:minor, mount point) of every mount this process sees (/proc/self/mountinfo:
    the device number, where /proc/mounts may say ``/dev/root``)."""
    out = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        out.append((fields[2], fields[4].replace("\\040", " ")))
    return out


def _swaps() -> list[str]:
    lines = Path("/proc/swaps").read_text().splitlines()[1:]
    return [ln.split()[0] for ln in lines if ln.split()]


def _locked_by(dev: str) -> str | None:
    """Who holds a lock on ``dev`` (BlueStore flocks its block device while the OSD runs);
    None when nobody does. The lock is tried, never kept."""
    try:
        fd = os.open(dev, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
            return None
        return _openers(dev) or "another process"
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _openers(dev: str) -> str | None:
    """``ceph-osd (pid 1234)``: the processes with ``dev`` open, from /proc (those we may see)."""
    target, found = os.path.realpath(dev), []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if any(os.path.realpath(fd) == target for fd in (proc / "fd").iterdir()):
                found.append(f"{(proc / 'comm').read_text().strip()} (pid {proc.name})")
        except OSError:
            continue
    return ", ".join(found) or None


def _head(dev: str) -> bytes:
    try:
        with open(dev, "rb") as f:
            return f.read(len(BLUESTORE_MAGIC))
    except OSError:
        return b""


def _size_bytes(dev: str) -> int | None:
    try:
        return int((Path("/sys/class/block") / Path(dev).name / "size").read_text()) * 512
    except (OSError, ValueError):
        return None
