"""Checks before ``lab up`` creates anything: packages, root, disk and memory."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from cephbench.errors import ToolMissing, UsageError
from cephbench.lab.errors import LabError
from cephbench.lab.spec import GIB, LabSpec

#: program -> Debian package that ships it
CEPH_PROGRAMS = {
    "ceph-mon": "ceph-mon",
    "monmaptool": "ceph-base",
    "ceph-osd": "ceph-osd",
    "ceph-mgr": "ceph-mgr",
    "ceph": "ceph-common",
}
NET_PROGRAMS = {"ip": "iproute2", "tc": "iproute2"}
DISK_MARGIN = 1 * GIB


def missing_packages(spec: LabSpec, which=shutil.which) -> list[str]:
    """Debian packages the lab needs whose programs are not on PATH."""
    programs = dict(CEPH_PROGRAMS)
    if spec.hosts >= 2:
        programs.update(NET_PROGRAMS)
    if spec.cephfs:
        programs["ceph-mds"] = "ceph-mds"
    return sorted({pkg for prog, pkg in programs.items() if which(prog) is None})


def root_problem(spec: LabSpec, euid: int) -> str | None:
    """Why this spec needs root when we are not, else None (one host on loopback does not)."""
    if spec.hosts >= 2 and euid != 0:
        return (
            f"--hosts {spec.hosts} needs root: creating network namespaces, veth links and "
            "a bridge needs CAP_NET_ADMIN"
        )
    return None


def space_problem(spec: LabSpec, disk_free: int, mem_available: int) -> str | None:
    """Why the OSDs would not fit (disk for BlueStore files, RAM for memstore), else None."""
    need = spec.osds * spec.osd_size
    if spec.store == "bluestore" and disk_free < need + DISK_MARGIN:
        return (
            f"not enough disk for the OSD files: {spec.osds} x {spec.osd_size / GIB:g} GiB "
            f"(+1 GiB) needed, {disk_free / GIB:.1f} GiB free under {spec.dir}"
        )
    if spec.store == "memstore" and mem_available < need:
        return (
            f"not enough memory for memstore: {spec.osds} x {spec.osd_size / GIB:g} GiB "
            f"needed, {mem_available / GIB:.1f} GiB available"
        )
    return None


def _disk_free(path: Path) -> int:
    while not path.exists():
        path = path.parent
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _mem_available() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def check(spec: LabSpec) -> None:
    """Raise a clear error if this machine cannot run ``spec``."""
    missing = missing_packages(spec)
    if missing:
        raise ToolMissing(
            f"the lab needs packages that are not installed: {', '.join(missing)}",
            hint=f"install them with: apt-get install -y {' '.join(missing)}",
        )
    problem = root_problem(spec, os.geteuid())
    if problem:
        raise UsageError(problem, hint="run as root, or use --hosts 1 (loopback only)")
    problem = space_problem(spec, _disk_free(spec.dir), _mem_available())
    if problem:
        raise LabError(problem, hint="use a smaller --osd-size, fewer --osds or another --dir")
