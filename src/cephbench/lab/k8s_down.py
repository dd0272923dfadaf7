"""The lab's Kubernetes, torn down and accounted for from its record alone.

Split from :mod:`.k8s` (which starts the cluster and imports this, never the reverse): what
``lab down``, ``lab status`` and the leftover check need, and the helpers both halves share
(kubectl, ctr, the cgroup hierarchies, the host paths' record).

Teardown works whatever state the cluster is in (a kubelet or apiserver SIGKILLed with a pod
running included): pods are deleted while the cluster still answers, then every process of
the cluster is stopped by pid, the pods' processes through the kubelet's cgroups, and the
mounts, loop devices, cgroups, bridge and host paths go.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cephbench.kube.kubectl import Kubectl
from cephbench.lab import k8s_volumes, net
from cephbench.lab.daemons import rss_mib, signal_until_gone
from cephbench.lab.k8s_conf import KUBELET, PROVISIONER_DAEMON, STORAGE_CLASS, K8sLayout
from cephbench.lab.paths import Layout
from cephbench.lab.state import K8sState, LabState
from cephbench.system.pids import running
from cephbench.system.process import ProcessResult, run

#: Who uses the hard-wired host paths, and which of them cephbench created (see HARDWIRED).
HOST_PATHS_RECORD = Path("/run/cephbench-k8s-host-paths.json")
MOUNTINFO = Path("/proc/self/mountinfo")
MOUNTS = Path("/proc/self/mounts")


def ctr(kl: K8sLayout, *args: str, timeout: float = 30) -> ProcessResult:
    """containerd's own client on the lab's socket (images, containers, the k8s.io namespace)."""
    return run(["ctr", "-a", str(kl.socket), *args], timeout=timeout)


def admin(kl: K8sLayout) -> Kubectl:
    """The lab's kubectl as its admin: :mod:`cephbench.kube.kubectl`'s client, so its
    failures are the same one-line errors a run's are."""
    return Kubectl(str(kl.admin_kubeconfig), binary=str(kl.bin / "kubectl"))


def kubectl(
    kl: K8sLayout, *args: str, timeout: float = 60, stdin: str | None = None, check: bool = True
) -> ProcessResult:
    """The lab's kubectl as its admin; with ``check``, kubectl's failure as the error
    :func:`cephbench.kube.kubectl.error_of` maps it to (a KubeError, or a UsageError)."""
    return admin(kl).run(*args, timeout=timeout, stdin=stdin, check=check)


def hierarchies(mounts: str) -> list[Path]:
    """Mount points of every cgroup hierarchy (v1 controllers and the v2 one), from
    /proc/self/mounts text (pure)."""
    found = []
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] in ("cgroup", "cgroup2"):
            found.append(Path(fields[1]))
    return found


# --------------------------------------------------------------------------- host paths


@contextlib.contextmanager
def host_record() -> Iterator[dict[str, list[str]]]:
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


def _release_host_paths(lab_dir: Path) -> None:
    """This lab no longer uses them; the last lab out removes what cephbench created."""
    with host_record() as record:
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
        tasks = ctr(kl, "-n", "k8s.io", "tasks", "ls", "-q").stdout.split()
        for task in tasks:
            ctr(kl, "-n", "k8s.io", "tasks", "kill", "-s", "KILL", task)
    # the pods' processes, whatever became of containerd and its shims
    signal_until_gone(cgroup_pids(k), running, signal.SIGKILL, grace=5.0)
    _stop([daemons.get("containerd") or 0], kl, grace=10.0)
    # the apiserver while etcd still answers (else it waits on etcd before it exits)
    for names in (("kube-scheduler", "kube-controller-manager"), ("kube-apiserver",), ("etcd",)):
        _stop([daemons.get(n) or 0 for n in names], kl, grace=10.0)
    k8s_volumes.release_all(kl)  # rbd-fuse, loop devices and filesystems of the volumes
    _stop(processes(kl), kl, grace=5.0)  # shims, anything else naming the lab
    for root in volume_roots(kl, state):
        unmount_under(root)
        k8s_volumes.detach_loops(root)
    _remove_cgroups(k)
    if net.link_exists(k.bridge):
        net.delete_link(k.bridge)
    if k.host_paths:
        _release_host_paths(layout.dir)


def volume_roots(kl: K8sLayout, state: LabState) -> list[Path]:
    """Where the volumes' mounts and the files under their loop devices are seen: the lab's
    ``k8s`` directory, and on a release lab the same inside its view (the release's rbd-fuse
    mounts there)."""
    roots = [kl.root]
    if state.view:
        roots.append(Path(state.view) / str(kl.root).lstrip("/"))
    return roots


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
    left += [f"pod process {p}" for p in cgroup_pids(k) if running(p)]
    for root in volume_roots(kl, state):
        left += [f"mount {m}" for m in mounts_under(root, MOUNTINFO.read_text())]
        left += [f"loop device {d}" for d in k8s_volumes.loops_under(root)]
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
