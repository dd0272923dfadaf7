"""``cephfs:FSNAME[/path]``: fio in a directory of its own on a CephFS filesystem, mounted for
the run with ceph-fuse; ``cephfs:lab``, the lab's filesystem (``lab up --cephfs``).

The mountpoint (``$TMPDIR/cephbench-cephfs-<run>-<hex>``) is recorded in the resource log
before it exists, mounted, and the run works in ``cephbench-<run>-<hex>`` it creates there
(recorded first too); at the end that directory alone is removed and the filesystem
unmounted, whatever ends the run. After a kill, ``cephbench cleanup`` mounts again where it
must to remove the directory, then unmounts and stops the ceph-fuse daemon by its pid file.
``--client kernel`` mounts with ``mount -t ceph`` instead, where the kernel has CephFS
(:func:`cephbench.ceph.cephfs.kernel_available`); elsewhere it is one clear error. (The
machines this was built on have no ``ceph`` kernel module: that path is untried.)

Tentacle's ceph-fuse refuses ``fallocate(2)`` (mode 0: "Operation not supported"). fio's
default, ``fallocate=native``, meets that refusal when it lays out its files and goes on
without a word. So the run first tries ``fallocate`` (util-linux: mode 0) on a file of its
own in its directory; where the mount refuses it, fio is told ``fallocate=none`` (the files
laid out by writing them, as fio then does anyway), the probe's output is kept with the run
and ``show`` says so (:data:`FALLOCATE_TOOL`).
"""

from __future__ import annotations

import contextlib
import platform
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from cephbench.ceph import cephfs, compat
from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import CephTools
from cephbench.contracts.write import FALLOCATE_TOOL
from cephbench.errors import CephbenchError, TargetError, ToolMissing
from cephbench.model import RawOutput, now
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog
from cephbench.system.process import run
from cephbench.targets import FioTarget, fio_escape
from cephbench.targets.cluster import FRESH, CephTarget

_FS_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
MOUNT_PREFIX = "cephbench-cephfs-"
DIR_PREFIX = "cephbench-"


def parse_location(location: str) -> tuple[str, str]:
    """``lab`` -> ("lab", "/"); ``myfs/some/dir`` -> ("myfs", "/some/dir") (pure)."""
    name, _, path = location.partition("/")
    if not _FS_NAME.match(name) or ".." in path.split("/"):
        raise TargetError(
            f"'cephfs:{location}' is not FSNAME[/PATH]", hint="e.g. cephfs:lab or cephfs:myfs/bench"
        )
    return name, "/" + path.strip("/")


class CephfsTarget(CephTarget):
    kind = "cephfs"
    application = "cephfs"

    def __init__(self, location, options):
        super().__init__(location, options)
        self.fs_name, self.root = parse_location(location)
        self.client = options.cephfs_client
        self.filesystem: dict[str, Any] = {}
        self.outputs: list[RawOutput] = []

    def check(self, size: int) -> None:
        if self.client == "kernel" and not cephfs.kernel_available():
            raise TargetError(
                "--client kernel: this kernel cannot mount CephFS (no ceph in /proc/filesystems)",
                hint="use the default client, ceph-fuse (--client ceph-fuse)",
            )
        if self.client == "ceph-fuse":
            self.conn.tools.check("ceph-fuse")
            compat.check(self.conn, "ceph-fuse")
        if self.location == FRESH:
            super().check(size)
        self.filesystem = cephfs.check_filesystem(self.conn, self.fs_name)
        self.pool = self._data_pool()

    def check_cluster(self) -> None:
        if self.client == "ceph-fuse":  # ceph-fuse here: can its libcephfs read the OSD map?
            compat.check_features(self.conn, "ceph-fuse")

    def _data_pool(self) -> str | None:
        with contextlib.suppress(CephbenchError):
            detail = cephfs.fingerprint(self.conn, self.fs_name)
            self.filesystem = detail or self.filesystem
            return detail["data_pools"][0]["name"]
        return None

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        tag = f"{run_id}-{secrets.token_hex(2)}"
        mountpoint = Path(tempfile.gettempdir()) / f"{MOUNT_PREFIX}{tag}"
        pid_file = f"{mountpoint}.pid"
        detail: dict[str, Any] = {
            "conn": self.conn.to_json(),
            "fs": self.fs_name,
            "root": self.root,
            "pid_file": f"{mountpoint}.pid",
            "client": self.client,
        }
        with ExitStack() as undo:
            with deferred_interrupts():  # recorded, made and mounted; or not begun
                rid = resources.add("cephfs_mount", str(mountpoint), detail)
                undo.callback(_undo_recorded, _unmount, resources, rid, str(mountpoint), detail)
                mountpoint.mkdir()
                self._mount(str(mountpoint), pid_file)
            workdir = _seen_at(str(mountpoint), detail) / f"{DIR_PREFIX}{tag}"
            wdetail = {**detail, "mountpoint": str(mountpoint)}
            with deferred_interrupts():
                wid = resources.add("cephfs_dir", str(workdir), wdetail)
                undo.callback(_undo_recorded, _remove_dir, resources, wid, str(workdir), wdetail)
                try:
                    workdir.mkdir()
                except PermissionError:
                    raise TargetError(
                        f"client.{self.conn.id} may not write to {self.fs_name}:{self.root}",
                        hint="give it rw caps on the path (ceph fs authorize FS client.ID PATH rw)",
                    ) from None
            options = {"filename": fio_escape(str(workdir / f"cephbench-{run_id}.dat"))}
            if self._fallocate_refused(workdir / f"cephbench-{run_id}.fallocate"):
                options["fallocate"] = "none"
            yield FioTarget(options, tree=str(workdir))

    def _fallocate_refused(self, probe: Path) -> bool:
        """Whether the mount refuses ``fallocate(2)``: tried on ``probe`` (in the run's own
        directory; removed), the output kept when it is refused."""
        started = now()
        try:
            result = run(["fallocate", "--length", "4096", str(probe)], timeout=60)
        except ToolMissing:  # util-linux's: on every Debian; without it, fio's own default
            return False
        finally:
            probe.unlink(missing_ok=True)
        refused = result.returncode != 0 and "not supported" in result.stderr.lower()
        if refused:
            self.outputs.append(result.as_raw(FALLOCATE_TOOL, started))
        return refused

    def setup_outputs(self) -> list[RawOutput]:
        return list(self.outputs)

    def _mount(self, mountpoint: str, pid_file: str) -> None:
        if self.client == "kernel":
            cephfs.mount_kernel(self.conn, self.fs_name, self.root, mountpoint)
        else:
            cephfs.mount_fuse(self.conn, self.fs_name, self.root, mountpoint, pid_file)

    @property
    def client_tools(self) -> CephTools | None:
        return None  # fio on the mount is this machine's; the mount's ceph-fuse, the tools'

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info["cephfs"] = {
            **self.filesystem,
            "path": self.root,
            "client": self.client,
            "client_version": cephfs.client_version(self.conn.tools)
            if self.client == "ceph-fuse"
            else None,
            "kernel": platform.release() if self.client == "kernel" else None,
            "mount_args": self._mount_args(),
        }
        return info

    def _mount_args(self) -> list[str]:
        """The mount's own options as cephbench gives them (the mountpoint's is made later)."""
        where = "MOUNTPOINT"
        if self.client == "kernel":
            return cephfs.kernel_argv(self.conn, self.fs_name, self.root, where)[1:]
        return cephfs.fuse_args(self.conn, self.fs_name, self.root, where, "PIDFILE")


def _undo_recorded(fn, resources: ResourceLog, rid: int, name: str, detail: dict) -> None:
    """Undo, then mark the record removed: both, or neither, whatever Ctrl-C does."""
    with deferred_interrupts():
        fn(name, detail)
        resources.removed(rid)


def _seen_at(mountpoint: str, detail: dict) -> Path:
    """Where this machine sees the mount: ceph-fuse of a release root mounts in its view."""
    if detail.get("client") == "kernel":
        return Path(mountpoint)
    return Path(Connection.from_json(detail["conn"]).tools.host_path(mountpoint))


def _unmount(mountpoint: str, detail: dict) -> None:
    if not Path(mountpoint).name.startswith(MOUNT_PREFIX):
        raise CephbenchError(f"{mountpoint} is not a mountpoint cephbench made; not touching it")
    pid_file = Path(detail["pid_file"])
    pid = None
    with contextlib.suppress(OSError, ValueError):
        pid = int(pid_file.read_text().strip())
    cephfs.unmount(str(_seen_at(mountpoint, detail)), pid, given=mountpoint)
    pid_file.unlink(missing_ok=True)
    with contextlib.suppress(FileNotFoundError):
        Path(mountpoint).rmdir()


def _remove_dir(workdir: str, detail: dict) -> None:
    """Remove the run's directory (only one named as cephbench names them), mounting the
    filesystem again at the recorded mountpoint when a kill left it unmounted."""
    path = Path(workdir)
    mountpoint = detail["mountpoint"]
    if not path.name.startswith(DIR_PREFIX) or path.parent != _seen_at(mountpoint, detail):
        raise CephbenchError(f"{workdir} is not a directory cephbench made; not removing it")
    if not cephfs.is_mounted(str(_seen_at(mountpoint, detail))):
        Path(mountpoint).mkdir(exist_ok=True)
        conn = Connection.from_json(detail["conn"])
        if detail.get("client") == "kernel":
            cephfs.mount_kernel(conn, detail["fs"], detail["root"], mountpoint)
        else:
            cephfs.mount_fuse(conn, detail["fs"], detail["root"], mountpoint, detail["pid_file"])
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():
        raise CephbenchError(f"could not remove {workdir}")


@undoes("cephfs_dir")
def undo_dir(resource: Resource) -> None:
    _remove_dir(resource.name, resource.detail)


@undoes("cephfs_mount")
def undo_mount(resource: Resource) -> None:
    _unmount(resource.name, resource.detail)


CephfsTarget.undo = (*CephTarget.undo, undo_dir, undo_mount)
