"""``lab up --k8s``: a real single-node Kubernetes beside the lab's Ceph (its teardown and
status: :mod:`.k8s_down`).

etcd, containerd, runc and the CNI plugins come from Debian; kube-apiserver,
kube-controller-manager, kube-scheduler, kubelet and kubectl from the Go module proxy
(:mod:`.k8s_build`); the pause and fio images are built here (:mod:`cephbench.kube.image`).
Every daemon is a plain process whose pid is recorded (before it exists: ``None``), every
file is under ``<lab dir>/k8s`` (:mod:`.k8s_conf`), and a StorageClass ``cephbench-lab`` puts
each claim on an RBD image of the lab's pool ``k8s`` (:mod:`.k8s_provisioner`).

Teardown works from the record alone, whatever state the cluster is in (:mod:`.k8s_down`).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Protocol

from cephbench.errors import ToolMissing
from cephbench.kube import image as kimage
from cephbench.lab import k8s_build, k8s_pki, lab_pools, net, releases
from cephbench.lab.daemons import CLIENT_ENV, log_tail
from cephbench.lab.errors import LabError
from cephbench.lab.info import info_from_state
from cephbench.lab.k8s_conf import (
    HARDWIRED,
    KERNEL_TUNABLES,
    KUBELET,
    PROVISIONER_DAEMON,
    STORAGE_CLASS,
    K8sInfo,
    K8sLayout,
    Ports,
    apiserver_argv,
    bridge_name,
    cgroup_root,
    containerd_argv,
    controller_manager_argv,
    etcd_argv,
    kubelet_argv,
    pool_for,
    render_cni,
    render_containerd,
    render_kubelet,
    scheduler_argv,
)
from cephbench.lab.k8s_down import MOUNTS, ctr, hierarchies, host_record, is_ours, kubectl
from cephbench.lab.k8s_storage import storage_class
from cephbench.lab.paths import Layout
from cephbench.lab.state import K8sState, LabState
from cephbench.system.process import run, spawn

POLL = 0.2
PROGRAMS = {
    "etcd": "etcd-server",
    "containerd": "containerd",
    "ctr": "containerd",
    "runc": "runc",
    "openssl": "openssl",
    "losetup": "mount",
    "mkfs.ext4": "e2fsprogs",
    "rbd-fuse": "rbd-fuse",
    "rbd": "ceph-common",
}
Progress = Callable[[str], None]


class Recorder(Protocol):
    """bootstrap's state recorder: changes are saved to state.json at once."""

    layout: Layout
    state: LabState

    def __call__(self, change: Callable[[LabState], None]) -> None: ...


# --------------------------------------------------------------------------- checks


def missing_packages(which: Callable[[str], str | None] = shutil.which) -> list[str]:
    """Debian packages ``--k8s`` needs whose programs are missing."""
    gone = {pkg for prog, pkg in PROGRAMS.items() if which(prog) is None}
    if not Path("/usr/lib/cni/bridge").exists():
        gone.add("containernetworking-plugins")
    return sorted(gone)


def preflight() -> None:
    """One clear error if this machine cannot run the lab's Kubernetes."""
    missing = missing_packages()
    if missing:
        raise ToolMissing(
            f"lab up --k8s needs packages that are not installed: {', '.join(missing)}",
            hint=f"install them with: apt-get install -y {' '.join(missing)}",
        )
    if os.geteuid() != 0:
        raise LabError(
            "lab up --k8s needs root (containers, mounts, cgroups, loop devices)",
            hint="run it as root",
        )
    if not Path("/dev/fuse").exists():
        raise LabError("lab up --k8s needs FUSE (/dev/fuse) for rbd-fuse", hint="modprobe fuse")


# --------------------------------------------------------------------------- up


def start(
    rec: Recorder, progress: Progress, deadline: float, stop: threading.Event | None = None
) -> None:
    """Start the cluster of the lab ``rec`` records, up to a Ready node whose pods can be
    created. Needs nothing of Ceph: it runs while the Ceph cluster starts, in a thread that
    ``stop`` halts between two steps (``up`` failed or was interrupted)."""
    stop = stop or threading.Event()
    layout = rec.layout
    kl = K8sLayout(layout.dir)
    began = time.monotonic()
    bin_cache = k8s_build.ensure_binaries(k8s_build.VERSION, progress)
    ports = _ports(rec, deadline, stop)
    node = socket.gethostname().lower()
    k = K8sState(
        version=k8s_build.VERSION,
        bin_dir=str(bin_cache),
        node=node,
        bridge=bridge_name(layout.dir),
        cgroup=cgroup_root(layout.dir),
        ports=asdict(ports),
        pool=pool_for(rec.state.spec.release),
    )
    rec(lambda s: setattr(s, "k8s", k))
    progress(f"Kubernetes {k.version}: certificates, images, configuration")
    for d in (layout.log, kl.root, kl.bin, kl.conf, kl.cni_conf_dir, kl.run, kl.volumes):
        d.mkdir(parents=True, exist_ok=True)
    for command in k8s_build.COMMANDS:
        (kl.bin / command).symlink_to(bin_cache / command)
    k8s_pki.make(kl, node, ports.apiserver)
    images = _images(rec, progress)
    kl.containerd_conf.write_text(render_containerd(kl, ports, images[0]))
    kl.kubelet_conf.write_text(render_kubelet(kl, ports, k.cgroup))
    (kl.cni_conf_dir / "10-cephbench.conflist").write_text(render_cni(kl, k.bridge))
    _halt_if(stop)
    _claim_host_paths(rec)
    _bind_shared(rec, kl)
    progress("Kubernetes: starting etcd, containerd and the apiserver")
    _start(rec, "etcd", etcd_argv(kl, ports))
    _start(rec, "containerd", containerd_argv(kl))
    _start(rec, "kube-apiserver", apiserver_argv(kl, ports, kl.bin))
    _wait(rec, "containerd's socket", deadline, stop, lambda: ctr(kl, "version").returncode == 0)
    for tar in images[1]:
        result = ctr(kl, "-n", "k8s.io", "images", "import", str(tar), timeout=120)
        if result.returncode != 0:
            raise LabError(
                f"importing {tar.name} into containerd failed: {result.last_error_line()}"
            )
    _wait(
        rec,
        "the apiserver (/readyz)",
        deadline,
        stop,
        lambda: _kubectl_ok(kl, "get", "--raw", "/readyz"),
    )
    _halt_if(stop)
    _start(rec, "kube-controller-manager", controller_manager_argv(kl, ports, kl.bin))
    _start(rec, "kube-scheduler", scheduler_argv(kl, ports, kl.bin))
    _make_cgroups(rec, k.cgroup)
    kl.fakesys.mkdir(exist_ok=True)
    for path, value in KERNEL_TUNABLES.items():
        (kl.fakesys / Path(path).name).write_text(value + "\n")
    nsexec = [sys.executable, "-m", "cephbench.lab.k8s_nsexec", str(kl.fakesys), "--"]
    progress("Kubernetes: starting the controller manager, the scheduler and the kubelet")
    _halt_if(stop)
    _start(rec, KUBELET, nsexec + kubelet_argv(kl, kl.bin))
    _wait(rec, f"node {node} Ready", deadline, stop, lambda: node_ready(kl, node))
    _wait(
        rec,
        "the default ServiceAccount",
        deadline,
        stop,
        lambda: _kubectl_ok(kl, "get", "sa", "default"),
    )
    seconds = round(time.monotonic() - began, 2)
    rec(lambda s: setattr(s.k8s, "ready_seconds", seconds) if s.k8s else None)


def create_pool(rec: Recorder) -> None:
    """The pool of the class's images (recorded first), once Ceph is up."""
    pool = pool_for(rec.state.spec.release)
    rec(lambda s: s.pools.append(pool) if pool not in s.pools else None)
    lab_pools.create_pool(info_from_state(rec.layout, rec.state), pool, pg_num=16)


def finish(rec: Recorder, progress: Progress) -> K8sInfo:
    """Once both clusters are up (and the pool made): the StorageClass and its provisioner."""
    layout = rec.layout
    kl = K8sLayout(layout.dir)
    pool = pool_for(rec.state.spec.release)
    progress(f"Kubernetes: StorageClass {STORAGE_CLASS} on pool {pool}")
    kubectl(kl, "apply", "-f", "-", stdin=json.dumps(storage_class(layout.dir, pool)))
    _start(
        rec,
        PROVISIONER_DAEMON,
        [sys.executable, "-m", "cephbench.lab.k8s_provisioner", str(kl.root)],
    )
    found = info_from_state(layout, rec.state).k8s
    assert found is not None
    return found


class _Halted(LabError):
    """``start`` was told to stop (``up`` is failing or interrupted elsewhere)."""


def _halt_if(stop: threading.Event) -> None:
    if stop.is_set():
        raise _Halted("lab up was interrupted while Kubernetes started")


def _ports(rec: Recorder, deadline: float, stop: threading.Event) -> Ports:
    """Free ports for the cluster that are none of the Ceph daemons' (chosen meanwhile)."""
    while rec.state.bind_ports is None or rec.state.mon_ports is None:
        _halt_if(stop)
        if time.monotonic() > deadline:
            raise LabError("the Ceph lab never chose its ports")
        time.sleep(0.05)
    low = min(*rec.state.mon_ports, rec.state.bind_ports[0])
    high = max(*rec.state.mon_ports, rec.state.bind_ports[1])
    while True:
        first = net.free_port_block(net.LOOPBACK, Ports.count())
        if first + Ports.count() <= low or first > high:
            return Ports.block(first)


def _images(rec: Recorder, progress: Progress) -> tuple[str, list[Path]]:
    """The sandbox image's name and the tars to import (pause cached per Go, fio per fio).

    The pods' fio is the lab's release's: this machine's for Pacific, else its root's fio
    with that root's librbd and librados (a Pacific librbd cannot read a Tentacle key)."""
    cache = k8s_build.cache_root() / "images"
    cache.mkdir(parents=True, exist_ok=True)
    pause = cache / "pause.tar"
    if not pause.exists():
        go = k8s_build.find_go((1, 21, 0), progress)
        kimage.build_pause_image(pause, go.path, go.env)
    release = releases.get(rec.state.spec.release)
    stamp = releases.built(release) if release.needs_root else None
    root = releases.root(release) if stamp else None
    flavour = f"ceph{stamp.version}" if stamp else None
    st = Path(kimage.host_file(root, kimage.FIO)).stat()
    tools = zlib.crc32(" ".join(kimage.TOOLS).encode())  # a new fio binary or tool: a new image
    name = f"fio-{st.st_size}-{st.st_mtime_ns}-{tools:08x}" + (f"-{flavour}" if flavour else "")
    fio = cache / f"{name}.tar"
    if fio.with_suffix(".ref").exists():  # written after the tar
        tag = _fio_tag(fio)
        ref = kimage.ImageRef(kimage.FIO_IMAGE, tag, tag.split("-")[0], fio)
    else:
        ref = kimage.build_fio_image(fio, root=root, flavour=flavour)
        fio.with_suffix(".ref").write_text(ref.tag)
    rec(lambda s: setattr(s.k8s, "fio_image", ref.ref) if s.k8s else None)
    return f"{kimage.PAUSE_IMAGE}:{kimage.PAUSE_TAG}", [pause, fio]


def _fio_tag(tar: Path) -> str:
    return tar.with_suffix(".ref").read_text().strip()


def _start(rec: Recorder, name: str, argv: list[str]) -> None:
    """Start a daemon: recorded as starting (pid None) first, then with its pid."""
    rec(lambda s: s.k8s.daemons.__setitem__(name, None) if s.k8s else None)
    pid = spawn(argv, str(rec.layout.log_file(name)), unset=(*CLIENT_ENV, "KUBECONFIG"))
    rec(lambda s: s.k8s.daemons.__setitem__(name, pid) if s.k8s else None)


def _wait(
    rec: Recorder,
    what: str,
    deadline: float,
    stop: threading.Event,
    ready: Callable[[], bool],
) -> None:
    """Poll ``ready`` until it is true; fail fast, with its log, if a daemon dies."""
    layout, k = rec.layout, rec.state.k8s
    assert k is not None
    kl = K8sLayout(layout.dir)
    while not ready():
        _halt_if(stop)
        for name, pid in k.daemons.items():
            if pid and _gone(pid, kl):
                raise LabError(
                    f"Kubernetes' {name} died while waiting for {what}",
                    hint=f"its log: {layout.log_file(name)}",
                    log_lines=log_tail(layout.log_file(name)),
                )
        if time.monotonic() > deadline:
            raise LabError(
                f"Kubernetes was not ready in time: still waiting for {what}",
                hint=f"the daemons' logs are in {layout.log}",
            )
        time.sleep(POLL)


RECHECK = 0.5
"""Seconds before a daemon not seen is looked for again."""


def _gone(pid: int, kl: K8sLayout) -> bool:
    """Whether a daemon is gone: not seen twice, :data:`RECHECK` apart. Once is not enough:
    CI saw the kubelet "die" while it ran on, its node Ready (a read of its command line
    that came back without it; the kubelet is exec'ed from a helper just after it starts)."""
    if is_ours(pid, kl):
        return False
    time.sleep(RECHECK)
    return not is_ours(pid, kl)


def _kubectl_ok(kl: K8sLayout, *args: str) -> bool:
    return kubectl(kl, *args, "--request-timeout=5s", timeout=15, check=False).returncode == 0


def node_ready(kl: K8sLayout, node: str) -> bool:
    result = kubectl(kl, "get", "node", node, "-o", "json", timeout=15, check=False)
    if result.returncode != 0:
        return False
    conditions = json.loads(result.stdout).get("status", {}).get("conditions", [])
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _bind_shared(rec: Recorder, kl: K8sLayout) -> None:
    """``<lab>/k8s`` onto itself, rshared: the kubelet's mounts (in its own namespace) and
    the provisioner's reach containerd, and the other way round."""
    rec(lambda s: setattr(s.k8s, "bind_mount", True) if s.k8s else None)
    for args in (["--bind", str(kl.root), str(kl.root)], ["--make-rshared", str(kl.root)]):
        result = run(["mount", *args], timeout=30)
        if result.returncode != 0:
            raise LabError(f"mount {' '.join(args)} failed: {result.last_error_line()}")


def _append_cgroup(path: str) -> Callable[[LabState], None]:
    def change(s: LabState) -> None:
        if s.k8s is not None:
            s.k8s.cgroups.append(path)

    return change


def _make_cgroups(rec: Recorder, cgroup: str) -> None:
    """The kubelet's cgroupRoot in every hierarchy (cpuset with its parent's cpus and mems)."""
    for root in hierarchies(MOUNTS.read_text()):
        path = root / cgroup.strip("/")
        if path.exists():
            continue
        rec(_append_cgroup(str(path)))
        path.mkdir()
        for name in ("cpuset.cpus", "cpuset.mems"):
            if (root / name).exists():
                (path / name).write_text((root / name).read_text())


# --------------------------------------------------------------------------- host paths


def topmost_missing(path: Path, exists: Callable[[Path], bool] = Path.exists) -> Path | None:
    """The highest ancestor of ``path`` (or itself) that does not exist: what creating
    ``path`` would create first; None if it exists (pure with ``exists``)."""
    if exists(path):
        return None
    top = path
    while not exists(top.parent):
        top = top.parent
    return top


def _claim_host_paths(rec: Recorder) -> None:
    """Register this lab as a user of the hard-wired host paths; record those that are new
    (the daemons will create them) as cephbench's, to be removed when no lab uses them."""
    rec(lambda s: setattr(s.k8s, "host_paths", True) if s.k8s else None)
    with host_record() as record:
        for p in HARDWIRED:
            top = topmost_missing(Path(p))
            if top is not None and str(top) not in record["created"]:
                record["created"].append(str(top))
        if str(rec.layout.dir) not in record["labs"]:
            record["labs"].append(str(rec.layout.dir))
