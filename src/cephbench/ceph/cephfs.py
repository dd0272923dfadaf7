"""CephFS seen from a client: the filesystems a cluster has, mounting one with ceph-fuse (or
the kernel client), unmounting, and what a mount is (from ``/proc/self/mountinfo``).

The ``cephfs:`` target (targets/cephfs.py) mounts with these, and a ``file:`` path on an
existing CephFS mount is recognised with :func:`cephfs_mount_of` and fingerprinted with
:func:`fingerprint`.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import CephTools
from cephbench.errors import TargetError
from cephbench.system.process import ProcessResult, run

CEPHFS_TYPES = ("fuse.ceph-fuse", "ceph")
MOUNT_TIMEOUT = 60.0
_FAILED = re.compile(r"ceph mount failed with \((\d+)\) (.*)$")


@dataclass(frozen=True)
class Mount:
    """One line of ``/proc/self/mountinfo``."""

    mountpoint: str
    fstype: str
    source: str
    root: str
    options: str
    super_options: str

    @property
    def is_cephfs(self) -> bool:
        return self.fstype in CEPHFS_TYPES

    @property
    def client(self) -> str:
        return "kernel" if self.fstype == "ceph" else "ceph-fuse"


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of a ``/proc/self/mountinfo`` text (pure)."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 6 or len(tail) < 2:
            continue
        mounts.append(
            Mount(
                mountpoint=_unescape(fields[4]),
                fstype=tail[0],
                source=_unescape(tail[1]),
                root=_unescape(fields[3]),
                options=fields[5],
                super_options=tail[2] if len(tail) > 2 else "",
            )
        )
    return mounts


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount ``path`` (absolute, resolved) is on: the longest mountpoint that holds it."""
    best = None
    for m in mounts:
        mp = m.mountpoint.rstrip("/") or "/"
        holds = path == mp or path.startswith(mp + "/") or mp == "/"
        if holds and (best is None or len(mp) >= len(best.mountpoint.rstrip("/") or "/")):
            best = m
    return best


def mounts() -> list[Mount]:
    return parse_mountinfo(Path("/proc/self/mountinfo").read_text())


def cephfs_mount_of(path: str | Path) -> Mount | None:
    """The CephFS mount ``path`` is on, None when it is on something else."""
    m = mount_of(os.path.realpath(path), mounts())
    return m if m is not None and m.is_cephfs else None


XATTRS = ("ceph.dir.layout", "ceph.cluster_fsid", "ceph.client_id")


def mount_fingerprint(path: str | Path) -> dict[str, Any] | None:
    """What a CephFS mount ``path`` is on says about itself: the client (ceph-fuse or the
    kernel), the mount's source, root and options, and the directory's layout (its data
    pool), the cluster's fsid and the client id from Ceph's virtual xattrs; None when
    ``path`` is not on CephFS."""
    m = cephfs_mount_of(path)
    if m is None:
        return None
    out: dict[str, Any] = {
        "client": m.client,
        "mountpoint": m.mountpoint,
        "source": m.source,
        "root": m.root,
        "mount_options": m.options,
        "super_options": m.super_options,
    }
    for name in XATTRS:
        with contextlib.suppress(OSError):
            out[name.removeprefix("ceph.").replace(".", "_")] = os.getxattr(path, name).decode()
    if m.client == "ceph-fuse":
        out["client_version"] = client_version()
    return out


def is_mounted(mountpoint: str) -> bool:
    return any(m.mountpoint == mountpoint for m in mounts())


def filesystems(conn: Connection) -> list[dict[str, Any]]:
    """``ceph fs dump``'s filesystems, each its mdsmap (pure parsing: :func:`fs_summaries`)."""
    return fs_summaries(ceph_json(conn, "fs", "dump"))


def fs_summaries(dump: dict) -> list[dict[str, Any]]:
    """Per filesystem of ``ceph fs dump -f json``: name, MDS ranks and their state, standby
    count, pool ids, max_mds (pure)."""
    standby = len(dump.get("standbys", []))
    out = []
    for fs in dump.get("filesystems", []):
        m = fs.get("mdsmap", {})
        ranks = sorted(
            (
                {"rank": i.get("rank"), "name": i.get("name"), "state": i.get("state")}
                for i in m.get("info", {}).values()
            ),
            key=lambda r: (r["rank"] is None, r["rank"]),
        )
        out.append(
            {
                "name": m.get("fs_name"),
                "id": fs.get("id"),
                "max_mds": m.get("max_mds"),
                "ranks": ranks,
                "active": sum(1 for r in ranks if r["state"] == "up:active"),
                "standby": standby,
                "metadata_pool": m.get("metadata_pool"),
                "data_pools": list(m.get("data_pools", [])),
            }
        )
    return out


def fingerprint(conn: Connection, fs_name: str | None) -> dict[str, Any]:
    """The filesystem ``fs_name`` (the only one when None): its MDS ranks, standbys and its
    pools with their layout (size, min_size, pg_num, crush rule)."""
    summaries = filesystems(conn)
    fs = next((f for f in summaries if fs_name in (None, f["name"])), None)
    if fs is None:
        return {}
    pools = {p["pool_id"]: p for p in ceph_json(conn, "osd", "pool", "ls", "detail")}
    return with_pools(fs, pools)


def with_pools(fs: dict[str, Any], pools: dict[int, dict]) -> dict[str, Any]:
    """``fs`` with its pool ids replaced by the pools' names and layout (pure)."""

    def layout(pool_id: int) -> dict[str, Any]:
        p = pools.get(pool_id, {})
        return {
            "id": pool_id,
            "name": p.get("pool_name"),
            "size": p.get("size"),
            "min_size": p.get("min_size"),
            "pg_num": p.get("pg_num"),
            "crush_rule": p.get("crush_rule"),
        }

    return {
        **fs,
        "metadata_pool": layout(fs["metadata_pool"]),
        "data_pools": [layout(p) for p in fs["data_pools"]],
    }


def check_filesystem(conn: Connection, fs_name: str) -> dict[str, Any]:
    """The summary of ``fs_name``; TargetError when there is no such filesystem or no MDS."""
    summaries = filesystems(conn)
    return pick_filesystem(summaries, fs_name, lab=conn.lab_dir is not None)


def pick_filesystem(summaries: list[dict], fs_name: str, lab: bool = False) -> dict[str, Any]:
    """The filesystem named ``fs_name`` with an active MDS, else a one-line TargetError (pure)."""
    if not summaries:
        raise TargetError(
            "the cluster has no CephFS filesystem",
            hint="start the lab with one: cephbench lab up --cephfs"
            if lab
            else "create one (ceph fs volume create NAME) or use an rbd: target",
        )
    fs = next((f for f in summaries if f["name"] == fs_name), None)
    if fs is None:
        names = ", ".join(str(f["name"]) for f in summaries)
        raise TargetError(f"no CephFS filesystem named {fs_name}", hint=f"the cluster has: {names}")
    if not fs["active"]:
        states = ", ".join(f"{r['name']} {r['state']}" for r in fs["ranks"]) or "none"
        raise TargetError(
            f"CephFS {fs_name} has no active MDS (MDS daemons: {states})",
            hint="start an MDS for it (ceph fs status shows them)",
        )
    return fs


def fuse_args(
    conn: Connection, fs_name: str, root: str, mountpoint: str, pid_file: str
) -> list[str]:
    """``ceph-fuse``'s arguments mounting ``fs_name``'s ``root`` at ``mountpoint`` as ``conn``'s
    client (its program is where it runs: :func:`fuse_argv`, or a host's own)."""
    return [
        *conn.args(),
        "--client_fs",
        fs_name,
        "-r",
        root or "/",
        f"--client_mount_timeout={max(1, int(conn.timeout))}",
        "--pid-file",
        pid_file,
        mountpoint,
    ]


def fuse_argv(
    conn: Connection, fs_name: str, root: str, mountpoint: str, pid_file: str
) -> list[str]:
    """``ceph-fuse`` mounting ``fs_name``'s ``root`` at ``mountpoint`` as ``conn``'s client,
    the ceph-fuse of ``conn``'s tools."""
    return conn.tools.argv("ceph-fuse", *fuse_args(conn, fs_name, root, mountpoint, pid_file))


def mount_error(result: ProcessResult, fs_name: str, root: str, client: str) -> str:
    """One line saying why ceph-fuse did not mount, in its own words where it gave them (pure)."""
    text = f"{result.stderr}\n{result.stdout}"
    if "doesn't have caps" in text or "rejected us" in text:
        return f"{client} has no MDS caps for CephFS {fs_name} (path {root or '/'})"
    for line in reversed(text.splitlines()):
        m = _FAILED.search(line)
        if m:
            if m.group(1) == "2" and root not in ("", "/"):
                return f"path {root} does not exist in CephFS {fs_name}"
            if m.group(1) == "1":
                return f"{client} may not mount CephFS {fs_name} path {root or '/'}: {m.group(2)}"
            return f"ceph-fuse could not mount CephFS {fs_name}: {m.group(2)}"
    return f"ceph-fuse could not mount CephFS {fs_name}: {result.last_error_line()}"


def mount_fuse(conn: Connection, fs_name: str, root: str, mountpoint: str, pid_file: str) -> int:
    """Mount with ceph-fuse (it returns once mounted, leaving its daemon); that daemon's pid."""
    result = conn.tools.run(
        "ceph-fuse",
        *fuse_args(conn, fs_name, root, mountpoint, pid_file),
        env=conn.env,
        timeout=conn.timeout + MOUNT_TIMEOUT,
    )
    if result.returncode != 0 or not is_mounted(conn.tools.host_path(mountpoint)):
        raise TargetError(
            mount_error(result, fs_name, root, f"client.{conn.id}"),
            hint="see ceph-fuse's log (log_file in the cluster's ceph.conf)",
        )
    return int(Path(pid_file).read_text().strip())


def kernel_argv(conn: Connection, fs_name: str, root: str, mountpoint: str) -> list[str]:
    """``mount -t ceph`` of ``fs_name``'s ``root`` as ``conn``'s client: mount.ceph finds the
    monitors in the conf and the key in the keyring (``CEPH_KEYRING``, :attr:`Connection.env`,
    or the conf's own)."""
    options = [f"name={conn.id}", f"fs={fs_name}"]
    if conn.conf:
        options.append(f"conf={conn.conf}")
    return [
        "mount",
        "-t",
        "ceph",
        f"{conn.id}@.{fs_name}={root or '/'}",
        mountpoint,
        "-o",
        ",".join(options),
    ]


def mount_kernel(conn: Connection, fs_name: str, root: str, mountpoint: str) -> None:
    """Mount with the kernel client; a TargetError with mount's own reason if it fails."""
    result = run(
        kernel_argv(conn, fs_name, root, mountpoint),
        env=conn.env,
        timeout=conn.timeout + MOUNT_TIMEOUT,
    )
    if result.returncode != 0 or not is_mounted(mountpoint):
        raise TargetError(
            f"the kernel could not mount CephFS {fs_name} path {root or '/'}: "
            f"{result.last_error_line()}",
            hint="see dmesg for the kernel client's reason",
        )


def kernel_available() -> bool:
    """The kernel can mount CephFS itself: ``ceph`` in /proc/filesystems."""
    try:
        text = Path("/proc/filesystems").read_text()
    except OSError:
        return False
    return any(line.split()[-1] == "ceph" for line in text.splitlines() if line.strip())


def unmount(mountpoint: str, pid: int | None, given: str | None = None) -> None:
    """Unmount ``mountpoint`` (lazily if busy), then make sure its ceph-fuse daemon is gone
    (``given``: the mountpoint its command line names, when a release root's ceph-fuse made
    it inside its view: see :meth:`CephTools.host_path`)."""
    if is_mounted(mountpoint):
        result = run(["umount", mountpoint], timeout=60)
        if result.returncode != 0 and is_mounted(mountpoint):
            run(["umount", "-l", mountpoint], timeout=60)
    named = given or mountpoint
    if pid and _is_fuse_of(pid, named):
        for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
            deadline = time.monotonic() + wait
            while _is_fuse_of(pid, named) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not _is_fuse_of(pid, named):
                break
    if is_mounted(mountpoint):
        raise TargetError(f"{mountpoint} is still mounted", hint=f"umount -l {mountpoint}")


def _is_fuse_of(pid: int, mountpoint: str) -> bool:
    """``pid`` is a live ceph-fuse serving ``mountpoint`` (a recycled pid never matches)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and mountpoint.encode() in argv and b"ceph-fuse" in argv[0]


def client_version(tools: CephTools | None = None) -> str | None:
    """``ceph-fuse --version``'s first line (``tools``' ceph-fuse: the one that mounts)."""
    try:
        result = (tools or CephTools()).run("ceph-fuse", "--version", timeout=30)
    except Exception:
        return None
    for line in (result.stdout + result.stderr).splitlines():
        if line.startswith("ceph version"):
            return line.strip()
    return None
