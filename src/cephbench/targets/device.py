"""``device:/dev/X``: a whole block device, written directly.

Refused when the device holds anything (partition table, filesystem, LVM, RAID, Ceph
BlueStore label, a mount, a holder such as device-mapper) unless ``--destroy-data`` names
exactly this device.
"""

from __future__ import annotations

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
    holders = (
        sorted(p.name for p in (sysdir / "holders").iterdir())
        if (sysdir / "holders").is_dir()
        else []
    )
    if holders:
        found.append("used by " + ", ".join(holders))
    mounts = _mounted(dev, partitions)
    if mounts:
        found.append("mounted on " + ", ".join(mounts))
    return found


def _head(dev: str) -> bytes:
    try:
        with open(dev, "rb") as f:
            return f.read(len(BLUESTORE_MAGIC))
    except OSError:
        return b""


def _mounted(dev: str, partitions: list[str]) -> list[str]:
    names = {dev, *(f"/dev/{p}" for p in partitions)}
    points = []
    for line in Path("/proc/mounts").read_text().splitlines():
        source, target, *_ = line.split()
        if source.startswith("/dev/") and os.path.realpath(source) in names:
            points.append(target)
    return points


def _size_bytes(dev: str) -> int | None:
    try:
        return int((Path("/sys/class/block") / Path(dev).name / "size").read_text()) * 512
    except (OSError, ValueError):
        return None
