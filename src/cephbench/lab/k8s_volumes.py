"""The volumes behind the ``cephbench-lab`` StorageClass: an RBD image each, on the lab's OSDs.

This machine has neither kernel RBD nor nbd, so each volume is: an RBD image in the lab's
pool; ``rbd-fuse`` exposing it as a file; a loop device on that file, with direct I/O (else
the loop device reads the file through this machine's page cache, and a pod reads what it
wrote from memory: 5,597 MiB/s against the lab's 210 MiB/s of writes); for Filesystem
claims ext4 on the loop device, mounted under ``<lab>/k8s/volumes/<pv>/fs``. A ``local`` PV
then points at the mount (or at the loop device for Block claims), so every read and write a
pod makes reaches the OSDs, as with a kernel RBD volume.

On a release lab ``rbd-fuse`` is the release's, run in the lab's view of its root (a Pacific
rbd-fuse cannot read a Tentacle key): its mount is made inside the view, and the loop device
is put on the image file where this machine sees it there (``CephTools.host_path``).

Each volume keeps a record (``volume.json``) written before each thing is made, so the
provisioner, and ``lab down`` after a crash, undo exactly what exists.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

from cephbench.ceph.tools import Outcome, classify, failure
from cephbench.errors import ToolFailed
from cephbench.lab.daemons import signal_until_gone
from cephbench.lab.info import LabInfo
from cephbench.lab.k8s_conf import FUSE_POOL, K8sLayout
from cephbench.system.pids import running
from cephbench.system.process import run, spawn

SYS_BLOCK = Path("/sys/block")
FUSE_WAIT = 30.0
FUSE_CONF = "/etc/ceph/ceph.conf"
"""rbd-fuse's default configuration file."""


def vdir(kl: K8sLayout, pv: str) -> Path:
    return kl.volumes / pv


def _record_path(kl: K8sLayout, pv: str) -> Path:
    return vdir(kl, pv) / "volume.json"


def save(kl: K8sLayout, vol: dict[str, Any]) -> None:
    path = _record_path(kl, vol["pv"])
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(vol, indent=2) + "\n")
    os.replace(tmp, path)


def records(kl: K8sLayout) -> list[dict[str, Any]]:
    """Every volume's record (those half made or half removed included)."""
    found = []
    for path in sorted(kl.volumes.glob("*/volume.json")) if kl.volumes.exists() else ():
        with contextlib.suppress(OSError, ValueError):
            found.append(json.loads(path.read_text()))
    return found


def entries(kl: K8sLayout) -> list[dict[str, Any]]:
    """The volumes for ``lab status``."""
    return [
        {k: v.get(k) for k in ("pv", "claim", "pool", "image", "size_mib", "block", "loop")}
        for v in records(kl)
    ]


def _check(argv: list[str], what: str, env: dict[str, str] | None = None) -> str:
    result = run(argv, timeout=120, env=env)
    if result.returncode != 0:
        raise ToolFailed(f"{what} failed: {result.last_error_line()}")
    return result.stdout.strip()


def rbd_fuse_args(mount: str, pool: str, image: str, conf: str | None) -> list[str]:
    """rbd-fuse's arguments exposing ``pool/image`` at ``mount``, in the foreground: only the
    options that differ from its defaults (pool ``rbd``, ``/etc/ceph/ceph.conf``; ``conf``
    None: that one). Tentacle's rbd-fuse dies of SIGSEGV on ``-p`` or ``-c`` whatever their
    value (``k8s_conf.pool_for``); ``-r`` has no default and is safe."""
    args = [mount, "-r", image]
    if pool != FUSE_POOL:
        args += ["-p", pool]
    if conf is not None and conf != FUSE_CONF:
        args += ["-c", conf]
    return [*args, "-f"]


def provision(
    kl: K8sLayout, lab: LabInfo, pv: str, pool: str, size_mib: int, block: bool, claim: str
) -> str:
    """Make the volume ``pv``: image, rbd-fuse, loop device (and ext4, mounted); the path
    its local PV points at."""
    d = vdir(kl, pv)
    d.mkdir(parents=True, exist_ok=True)
    vol: dict[str, Any] = {
        "pv": pv,
        "claim": claim,
        "pool": pool,
        "image": pv,
        "size_mib": size_mib,
        "block": block,
        "image_created": True,
        "rbd_fuse_pid": None,
        "fuse": None,
        "loop": None,
        "mounted": False,
    }
    save(kl, vol)
    spec = f"{pool}/{pv}"
    result = lab.tools.run(
        "rbd",
        "create",
        "--size",
        str(size_mib),
        "--image-feature",
        "layering",
        spec,
        env=lab.env,
        timeout=120,
    )
    if result.returncode != 0:
        raise failure(result, f"rbd create {spec}", lab.tools)
    fuse = d / "rbd"
    fuse.mkdir(exist_ok=True)
    conf = None if lab.view else str(lab.conf_path)  # a view's /etc/ceph is the lab's
    argv = lab.tools.argv("rbd-fuse", *rbd_fuse_args(str(fuse), pool, pv, conf))
    vol["fuse"] = lab.tools.host_path(str(fuse))  # where this machine sees its mount
    save(kl, vol)
    vol["rbd_fuse_pid"] = spawn(argv, str(d / "rbd-fuse.log"), env=lab.env)
    save(kl, vol)
    image_file = Path(vol["fuse"]) / pv
    deadline = time.monotonic() + FUSE_WAIT
    while not image_file.exists():
        if not running(vol["rbd_fuse_pid"]) or time.monotonic() > deadline:
            raise ToolFailed(f"rbd-fuse did not expose {spec} (its log: {d / 'rbd-fuse.log'})")
        time.sleep(0.1)
    # direct I/O: the loop device reads the image through rbd-fuse, never from this
    # machine's page cache (buffered, a pod's reads of what was written came from memory)
    loop = _check(
        ["losetup", "-f", "--show", "--direct-io=on", str(image_file)], f"losetup on {image_file}"
    )
    vol["loop"] = loop
    save(kl, vol)
    if not direct_io(Path(loop).name):
        raise ToolFailed(
            f"{loop} reads {image_file} through the page cache (losetup --direct-io=on did not "
            "take): its reads would not reach Ceph"
        )
    if block:
        return loop
    _check(["mkfs.ext4", "-q", "-F", "-E", "nodiscard", loop], f"mkfs.ext4 {loop}")
    fs = d / "fs"
    fs.mkdir(exist_ok=True)
    vol["mounted"] = True
    save(kl, vol)
    _check(["mount", "-t", "ext4", loop, str(fs)], f"mounting {loop}")
    return str(fs)


def release(kl: K8sLayout, vol: dict[str, Any], lab: LabInfo | None) -> list[str]:
    """Undo volume ``vol`` (the image too if ``lab`` is given); what could not be undone."""
    d = vdir(kl, vol["pv"])
    problems = []
    fs = d / "fs"
    if _is_mount(fs):
        result = run(["umount", str(fs)], timeout=60)
        if result.returncode != 0:
            problems.append(f"umount {fs}: {result.last_error_line()}")
    fuse = Path(vol.get("fuse") or d / "rbd")
    loop = vol.get("loop")
    if loop and _backing(Path(loop).name).startswith(str(fuse)):
        detach(loop)
    if _is_mount(fuse):
        run(["umount", str(fuse)], timeout=60)
    pid = vol.get("rbd_fuse_pid")
    if pid and running(pid):
        left = signal_until_gone([pid], running, signal.SIGTERM, grace=10.0)
        if left:
            problems.append(f"rbd-fuse {pid} survived SIGKILL")
    if lab is not None and vol.get("image_created") and not problems:
        spec = f"{vol['pool']}/{vol['image']}"
        result = lab.tools.run("rbd", "rm", "--no-progress", spec, timeout=120, env=lab.env)
        if result.returncode != 0 and classify(result) is not Outcome.NOT_FOUND:
            problems.append(f"rbd rm {spec}: {result.last_error_line()}")
    if not problems:
        shutil.rmtree(d, ignore_errors=True)
    return problems


def release_all(kl: K8sLayout) -> None:
    """Undo every volume's mounts, loop device and rbd-fuse (``lab down``: the images go
    with the cluster)."""
    for vol in records(kl):
        release(kl, vol, None)


def _is_mount(path: Path) -> bool:
    return path.exists() and os.path.ismount(path)


def _backing(loop: str, sys_block: Path = SYS_BLOCK) -> str:
    with contextlib.suppress(OSError):
        return (sys_block / loop / "loop" / "backing_file").read_text().strip()
    return ""


def direct_io(loop: str, sys_block: Path = SYS_BLOCK) -> bool:
    """Whether loop device ``loop`` (``loop3``) reads and writes its file with direct I/O."""
    with contextlib.suppress(OSError):
        return (sys_block / loop / "loop" / "dio").read_text().strip() == "1"
    return False


def loops_under(root: Path, sys_block: Path = SYS_BLOCK) -> list[str]:
    """Loop devices backed by a file under ``root``, or by such a loop device (the kubelet
    puts its own loop device on a Block volume's), outermost last."""
    found: list[str] = []
    backings = {
        e.name: _backing(e.name, sys_block)
        for e in (sys_block.iterdir() if sys_block.exists() else ())
        if e.name.startswith("loop")
    }
    changed = True
    while changed:
        changed = False
        for name, backing in backings.items():
            dev = f"/dev/{name}"
            if dev in found or not backing:
                continue
            if backing.startswith(str(root).rstrip("/") + "/") or backing in found:
                found.append(dev)
                changed = True
    return list(reversed(found))


def detach(loop: str) -> None:
    run(["losetup", "-d", loop], timeout=60)


def detach_loops(root: Path) -> None:
    """Detach every loop device on a file under ``root`` (the outer ones first)."""
    for loop in loops_under(root):
        detach(loop)
