"""``lab up --k8s``: a real single-node Kubernetes beside the lab's Ceph, and its teardown.

etcd, containerd, runc and the CNI plugins come from Debian; kube-apiserver,
kube-controller-manager, kube-scheduler, kubelet and kubectl from the Go module proxy
(:mod:`.k8s_build`); the pause and fio images are built here (:mod:`cephbench.kube.image`).
Every daemon is a plain process whose pid is recorded (before it exists: ``None``), every
file is under ``<lab dir>/k8s`` (:mod:`.k8s_conf`), and a StorageClass ``cephbench-lab`` puts
each claim on an RBD image of the lab's pool ``k8s`` (:mod:`.k8s_provisioner`).

Teardown works from the record alone, whatever state the cluster is in (a kubelet or
apiserver SIGKILLed with a pod running included): pods are deleted while the cluster still
answers, then every process of the cluster is stopped by pid, the pods' processes through
the kubelet's cgroups, and the mounts, loop devices, cgroups, bridge and host paths go.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

from cephbench.errors import ToolFailed, ToolMissing
from cephbench.kube import image as kimage
from cephbench.lab import k8s_build, k8s_pki, k8s_volumes, lab_pools, net
from cephbench.lab.daemons import CLIENT_ENV, log_tail, rss_mib, signal_until_gone
from cephbench.lab.errors import LabError
from cephbench.lab.info import info_from_state
from cephbench.lab.k8s_conf import (
    HARDWIRED,
    KERNEL_TUNABLES,
    KUBELET,
    POOL,
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
    render_cni,
    render_containerd,
    render_kubelet,
    scheduler_argv,
    storage_class,
)
from cephbench.lab.paths import Layout
from cephbench.lab.state import K8sState, LabState
from cephbench.system.process import ProcessResult, run, spawn

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
#: Who uses the hard-wired host paths, and which of them cephbench created (see HARDWIRED).
HOST_PATHS_RECORD = Path("/run/cephbench-k8s-host-paths.json")
MOUNTINFO = Path("/proc/self/mountinfo")
MOUNTS = Path("/proc/self/mounts")

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
        pool=POOL,
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
    _wait(rec, "containerd's socket", deadline, stop, lambda: _ctr(kl, "version").returncode == 0)
    for tar in images[1]:
        result = _ctr(kl, "-n", "k8s.io", "images", "import", str(tar), timeout=120)
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
    rec(lambda s: s.pools.append(POOL) if POOL not in s.pools else None)
    lab_pools.create_pool(info_from_state(rec.layout, rec.state), POOL, pg_num=16)


def finish(rec: Recorder, progress: Progress) -> K8sInfo:
    """Once both clusters are up (and the pool made): the StorageClass and its provisioner."""
    layout = rec.layout
    kl = K8sLayout(layout.dir)
    progress(f"Kubernetes: StorageClass {STORAGE_CLASS} on pool {POOL}")
    kubectl(kl, "apply", "-f", "-", stdin=json.dumps(storage_class(layout.dir)))
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
    """The sandbox image's name and the tars to import (pause cached per Go, fio per fio)."""
    cache = k8s_build.cache_root() / "images"
    cache.mkdir(parents=True, exist_ok=True)
    pause = cache / "pause.tar"
    if not pause.exists():
        go = k8s_build.find_go((1, 21, 0), progress)
        kimage.build_pause_image(pause, go.path, go.env)
    st = Path(kimage.FIO).stat()
    tools = zlib.crc32(" ".join(kimage.TOOLS).encode())  # a new fio binary or tool: a new image
    fio = cache / f"fio-{st.st_size}-{st.st_mtime_ns}-{tools:08x}.tar"
    if fio.with_suffix(".ref").exists():  # written after the tar
        ref = kimage.ImageRef(kimage.FIO_IMAGE, _fio_tag(fio), _fio_tag(fio), fio)
    else:
        ref = kimage.build_fio_image(fio)
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
            if pid and not is_ours(pid, kl):
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


def _ctr(kl: K8sLayout, *args: str, timeout: float = 30) -> ProcessResult:
    return run(["ctr", "-a", str(kl.socket), *args], timeout=timeout)


def kubectl(
    kl: K8sLayout, *args: str, timeout: float = 60, stdin: str | None = None, check: bool = True
) -> ProcessResult:
    """The lab's kubectl as its admin; ToolFailed (with kubectl's error) if ``check``."""
    argv = [str(kl.bin / "kubectl"), "--kubeconfig", str(kl.admin_kubeconfig), *args]
    result = run(argv, timeout=timeout, stdin=stdin)
    if check and result.returncode != 0:
        raise ToolFailed(f"kubectl {' '.join(args[:3])} failed: {result.last_error_line()}")
    return result


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


def hierarchies(mounts: str) -> list[Path]:
    """Mount points of every cgroup hierarchy (v1 controllers and the v2 one), from
    /proc/self/mounts text (pure)."""
    found = []
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] in ("cgroup", "cgroup2"):
            found.append(Path(fields[1]))
    return found


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


@contextlib.contextmanager
def _host_record() -> Iterator[dict[str, list[str]]]:
    """The record, read and written back under its own lock; removed once it is empty."""
    with open(HOST_PATHS_RECORD, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        try:
            record = json.loads(f.read() or "{}")
        except ValueError:
            record = {}
        record = {"created": record.get("created", []), "labs": record.get("labs", [])}
        yield record
        if record["labs"] or record["created"]:
            f.seek(0)
            f.truncate()
            f.write(json.dumps(record, indent=2) + "\n")
        else:
            HOST_PATHS_RECORD.unlink(missing_ok=True)


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
    with _host_record() as record:
        for p in HARDWIRED:
            top = topmost_missing(Path(p))
            if top is not None and str(top) not in record["created"]:
                record["created"].append(str(top))
        if str(rec.layout.dir) not in record["labs"]:
            record["labs"].append(str(rec.layout.dir))


def _release_host_paths(lab_dir: Path) -> None:
    """This lab no longer uses them; the last lab out removes what cephbench created."""
    with _host_record() as record:
        record["labs"] = [d for d in record["labs"] if d != str(lab_dir) and _k8s_running(Path(d))]
        if not record["labs"]:
            for p in record["created"]:
                shutil.rmtree(p, ignore_errors=True)
            record["created"] = [p for p in record["created"] if Path(p).exists()]


def _k8s_running(lab_dir: Path) -> bool:
    """Whether another lab's cluster is starting or still has a process."""
    try:
        recorded = json.loads(Layout(lab_dir).state.read_text())
    except (OSError, ValueError):
        return False
    if recorded.get("phase") == "starting":
        return True
    return bool(recorded.get("k8s")) and bool(processes(K8sLayout(lab_dir)))


# --------------------------------------------------------------------------- processes


def is_ours(pid: int | None, kl: K8sLayout) -> bool:
    """A live process whose command line names the lab's ``k8s`` directory."""
    if not pid:
        return False
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return str(kl.root).encode() in argv


def processes(kl: K8sLayout) -> list[int]:
    """Every live process naming the lab's ``k8s`` directory: daemons, shims, rbd-fuse."""
    me = os.getpid()
    return [
        int(e.name)
        for e in Path("/proc").iterdir()
        if e.name.isdigit() and int(e.name) != me and is_ours(int(e.name), kl)
    ]


def cgroup_pids(k: K8sState, roots: list[Path] | None = None) -> list[int]:
    """Processes in the kubelet's cgroups (the pods' containers), from every hierarchy."""
    pids: set[int] = set()
    for root in roots if roots is not None else hierarchies(MOUNTS.read_text()):
        top = root / k.cgroup.strip("/")
        if not top.is_dir():
            continue
        for dirpath, _, files in os.walk(top):
            if "cgroup.procs" in files:
                with contextlib.suppress(OSError, ValueError):
                    text = (Path(dirpath) / "cgroup.procs").read_text()
                    pids.update(int(p) for p in text.split())
    return sorted(pids)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _stop(pids: list[int], kl: K8sLayout, grace: float, sig: int = signal.SIGTERM) -> None:
    mine = [p for p in pids if p and is_ours(p, kl)]
    signal_until_gone(mine, lambda p: is_ours(p, kl), sig, grace)


# --------------------------------------------------------------------------- down


def down(layout: Layout, state: LabState) -> None:
    """Stop the lab's cluster and remove everything it made (from the record alone)."""
    k = state.k8s
    if k is None:
        return
    kl = K8sLayout(layout.dir)
    daemons = dict(k.daemons)
    if kl.admin_kubeconfig.exists() and all(
        is_ours(daemons.get(n), kl) for n in ("kube-apiserver", KUBELET, "containerd")
    ):
        # the kubelet unmounts and tears down pod networks properly while it still runs
        kubectl(
            kl, "delete", "pods", "--all", "--all-namespaces", "--grace-period=1",
            "--timeout=45s", "--request-timeout=10s", timeout=60, check=False,
        )  # fmt: skip
    _stop([daemons.get(PROVISIONER_DAEMON) or 0], kl, grace=5.0)
    _stop([daemons.get(KUBELET) or 0], kl, grace=10.0)
    if is_ours(daemons.get("containerd"), kl):
        tasks = _ctr(kl, "-n", "k8s.io", "tasks", "ls", "-q").stdout.split()
        for task in tasks:
            _ctr(kl, "-n", "k8s.io", "tasks", "kill", "-s", "KILL", task)
    # the pods' processes, whatever became of containerd and its shims
    signal_until_gone(cgroup_pids(k), _alive, signal.SIGKILL, grace=5.0)
    _stop([daemons.get("containerd") or 0], kl, grace=10.0)
    # the apiserver while etcd still answers (else it waits on etcd before it exits)
    for names in (("kube-scheduler", "kube-controller-manager"), ("kube-apiserver",), ("etcd",)):
        _stop([daemons.get(n) or 0 for n in names], kl, grace=10.0)
    k8s_volumes.release_all(kl)  # rbd-fuse, loop devices and filesystems of the volumes
    _stop(processes(kl), kl, grace=5.0)  # shims, anything else naming the lab
    unmount_under(kl.root)
    k8s_volumes.detach_loops(kl.root)
    _remove_cgroups(k)
    if net.link_exists(k.bridge):
        net.delete_link(k.bridge)
    if k.host_paths:
        _release_host_paths(layout.dir)


def mounts_under(root: Path, mountinfo: str) -> list[str]:
    """Mount points at or under ``root``, deepest first (pure, from mountinfo text)."""
    points = []
    prefix = str(root).rstrip("/")
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) > 4:
            point = fields[4].replace("\\040", " ")
            if point == prefix or point.startswith(prefix + "/"):
                points.append(point)
    return sorted(set(points), key=lambda p: (-p.count("/"), p))


def unmount_under(root: Path) -> None:
    """Unmount everything at or under ``root`` (several passes: stacked mounts)."""
    for _ in range(5):
        points = mounts_under(root, MOUNTINFO.read_text())
        if not points:
            return
        for point in points:
            if run(["umount", point], timeout=60).returncode != 0:
                run(["umount", "-l", point], timeout=60)


def _remove_cgroups(k: K8sState) -> None:
    """rmdir every cgroup under the kubelet's root, deepest first, in every hierarchy."""
    for root in hierarchies(MOUNTS.read_text()):
        top = root / k.cgroup.strip("/")
        if not top.is_dir():
            continue
        for dirpath, _, _ in sorted(os.walk(top), key=lambda w: -w[0].count("/")):
            for _ in range(50):  # EBUSY while a killed process is still on its way out
                try:
                    os.rmdir(dirpath)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


def leftovers(layout: Layout, state: LabState) -> list[str]:
    """What of the lab's cluster still exists: processes, mounts, loops, cgroups, bridge."""
    k = state.k8s
    if k is None:
        return []
    kl = K8sLayout(layout.dir)
    left = [f"process {p}" for p in processes(kl)]
    left += [f"pod process {p}" for p in cgroup_pids(k) if _alive(p)]
    left += [f"mount {m}" for m in mounts_under(kl.root, MOUNTINFO.read_text())]
    left += [f"loop device {d}" for d in k8s_volumes.loops_under(kl.root)]
    for root in hierarchies(MOUNTS.read_text()):
        if (root / k.cgroup.strip("/")).exists():
            left.append(f"cgroup {root / k.cgroup.strip('/')}")
    if net.link_exists(k.bridge):
        left.append(f"bridge {k.bridge}")
    return left


# --------------------------------------------------------------------------- status


def status(layout: Layout, state: LabState) -> dict[str, Any] | None:
    """The cluster's daemons (pid, running, RSS), its StorageClass and how to reach it."""
    k = state.k8s
    if k is None:
        return None
    kl = K8sLayout(layout.dir)
    daemons = [
        {"name": n, "pid": pid, "running": is_ours(pid, kl), "rss_mib": rss_mib(pid)}
        for n, pid in k.daemons.items()
    ]
    sc = None
    if all(d["running"] for d in daemons if d["name"] == "kube-apiserver"):
        result = kubectl(kl, "get", "storageclass", STORAGE_CLASS, "-o", "json",
                         "--request-timeout=5s", timeout=15, check=False)  # fmt: skip
        if result.returncode == 0:
            found = json.loads(result.stdout)
            sc = {
                "name": STORAGE_CLASS,
                "provisioner": found.get("provisioner"),
                "parameters": found.get("parameters", {}),
                "volume_binding_mode": found.get("volumeBindingMode"),
                "reclaim_policy": found.get("reclaimPolicy"),
            }
    return {
        "version": k.version,
        "node": k.node,
        "kubeconfig": str(kl.admin_kubeconfig),
        "server": f"https://127.0.0.1:{k.ports.get('apiserver')}",
        "ports": k.ports,
        "bridge": k.bridge,
        "cgroup": k.cgroup,
        "ready_seconds": k.ready_seconds,
        "daemons": daemons,
        "storage_class": sc,
        "volumes": k8s_volumes.entries(kl),
    }
