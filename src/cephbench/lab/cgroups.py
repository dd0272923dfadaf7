"""cgroup v1 for the lab's faults: a cgroup per fault, holding one daemon, and nothing left.

A slow disk is a ``blkio`` throttle, a CPU-starved OSD a ``cpu`` quota, each on a cgroup
that holds only that OSD's process (all its threads: ``cgroup.procs``). Removing a cgroup
first moves its processes back where they came from. The functions that build the values
written to the cgroup files are pure; the rest reads and writes ``/sys/fs/cgroup``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from pathlib import Path

from cephbench.lab.errors import LabError

MOUNTS = Path("/proc/self/mounts")
SYS_DEV_BLOCK = Path("/sys/dev/block")
CFS_PERIOD_US = 100_000
MIN_QUOTA_US = 1_000  # the kernel refuses a smaller cfs quota
THROTTLE_FILES = {
    "read_iops": "blkio.throttle.read_iops_device",
    "write_iops": "blkio.throttle.write_iops_device",
    "read_bps": "blkio.throttle.read_bps_device",
    "write_bps": "blkio.throttle.write_bps_device",
}


def controller_root(controller: str, mounts: str) -> Path | None:
    """Where the cgroup v1 hierarchy holding ``controller`` is mounted, per ``mounts`` text."""
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == "cgroup" and controller in fields[3].split(","):
            return Path(fields[1])
    return None


def root_of(controller: str) -> Path:
    """The mounted hierarchy of ``controller``, or a LabError saying it is missing."""
    root = controller_root(controller, MOUNTS.read_text())
    if root is None:
        raise LabError(
            f"the cgroup v1 {controller} controller is not mounted on this machine",
            hint=f"faults need it: mount -t cgroup -o {controller} cgroup /sys/fs/cgroup/{controller}"
            " (a cgroup v2-only system cannot inject this fault)",
        )
    return root


def throttle_values(devno: str, iops: int | None, bps: int | None) -> dict[str, str]:
    """blkio file -> line to write: read and write capped alike at ``iops`` and ``bps``."""
    values = {}
    for what, limit in (("iops", iops), ("bps", bps)):
        if limit is not None:
            for direction in ("read", "write"):
                values[THROTTLE_FILES[f"{direction}_{what}"]] = f"{devno} {limit}"
    return values


def quota_us(percent: float, period_us: int = CFS_PERIOD_US) -> int:
    """``cpu.cfs_quota_us`` giving ``percent`` % of one CPU per ``period_us``."""
    quota = round(period_us * percent / 100)
    if quota < MIN_QUOTA_US:
        raise ValueError(
            f"{percent:g} % of one CPU is below the kernel's minimum quota "
            f"({100 * MIN_QUOTA_US / period_us:g} %)"
        )
    return quota


def whole_disk(devno: str, sysfs: Path = SYS_DEV_BLOCK) -> str:
    """major:minor of the disk holding block device ``devno`` (itself unless a partition).

    blkio throttles are set per disk: the kernel refuses a partition's number.
    """
    entry = sysfs / devno
    if not entry.exists():
        raise LabError(f"{devno} is not a block device this machine knows (/sys/dev/block)")
    if (entry / "partition").exists():
        return (entry.resolve().parent / "dev").read_text().strip()
    return devno


def device_of(path: Path, sysfs: Path = SYS_DEV_BLOCK) -> str:
    """major:minor of the disk ``path`` lives on (or is, for a block device node)."""
    st = path.stat()
    number = st.st_rdev if path.is_block_device() else st.st_dev
    major, minor = os.major(number), os.minor(number)
    if major == 0:
        raise LabError(
            f"{path} is on a filesystem without a block device ({major}:{minor}: tmpfs?)",
            hint="a slow disk needs the lab on a real disk: put --dir on one",
        )
    return whole_disk(f"{major}:{minor}", sysfs)


def origin(pid: int, controller: str) -> str:
    """The cgroup path (relative to its hierarchy) ``pid`` is in for ``controller``."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return "/"


def create(path: Path) -> None:
    """Make cgroup ``path``; a LabError if it exists already (another lab's, or a leftover)."""
    try:
        path.mkdir()
    except FileExistsError:
        raise LabError(
            f"cgroup {path} already exists",
            hint="a leftover of an earlier fault? cephbench lab fault clear, or rmdir it",
        ) from None


def write(path: Path, value: str) -> None:
    """Write one value to a cgroup file; a LabError naming the file if the kernel refuses."""
    try:
        path.write_text(value + "\n")
    except OSError as e:
        raise LabError(f"cannot write {value!r} to {path}: {e.strerror}") from None


def procs(cgroup: Path) -> list[int]:
    """Processes in ``cgroup`` (empty if it is gone)."""
    try:
        return [int(p) for p in (cgroup / "cgroup.procs").read_text().split()]
    except FileNotFoundError:
        return []


def move(pid: int, cgroup: Path) -> None:
    """Move process ``pid`` with all its threads into ``cgroup``."""
    try:
        (cgroup / "cgroup.procs").write_text(f"{pid}\n")
    except ProcessLookupError:
        pass  # it exited meanwhile: nothing to move
    except OSError as e:
        raise LabError(f"cannot move process {pid} into {cgroup}: {e.strerror}") from None


def remove(cgroup: Path, back_to: Path, timeout: float = 5.0) -> None:
    """Move ``cgroup``'s processes to ``back_to`` (the root if it is gone), then remove it."""
    if not cgroup.exists():
        return
    target = back_to if (back_to / "cgroup.procs").exists() else _hierarchy_root(cgroup)
    deadline = time.monotonic() + timeout
    while True:
        for pid in procs(cgroup):
            move(pid, target)
        try:
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as e:
            # EBUSY: a process was still on its way out (or in); try again
            if e.errno != errno.EBUSY or time.monotonic() > deadline:
                raise LabError(f"cannot remove cgroup {cgroup}: {e.strerror}") from None
        time.sleep(0.05)


def _hierarchy_root(cgroup: Path) -> Path:
    root = cgroup
    while not (root / "cgroup.sane_behavior").exists() and root.parent != root:
        root = root.parent
    return root


def read_lines(path: Path) -> list[str]:
    """A cgroup file's lines (empty if the cgroup is gone)."""
    with contextlib.suppress(FileNotFoundError):
        return [ln.strip() for ln in path.read_text().splitlines() if ln.strip()]
    return []
