"""``lab down``: stop what the lab recorded, remove its network and files, prove none is left."""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from cephbench.lab import faults, k8s_down, net, release_view, sshd
from cephbench.lab.daemons import ours, stop
from cephbench.lab.errors import LabError
from cephbench.lab.paths import Layout, default_dir
from cephbench.lab.state import LabState, load, save


@dataclass(frozen=True)
class DownResult:
    """How long ``down`` took and where it kept the logs (None with ``purge``)."""

    seconds: float
    archive: Path | None


def down(dir: Path | str | None = None, purge: bool = False) -> DownResult | None:
    """Take down the lab in ``dir`` (running, half-started or crashed); None if there is none.

    Injected faults are undone first (their cgroups emptied and removed), daemons are stopped
    by their recorded pids (OSDs first), then the links, namespaces and bridge go, the logs are archived (unless ``purge``) and the directory is removed.
    """
    layout = Layout(Path(dir).expanduser().absolute() if dir else default_dir())
    state = load(layout)
    if state is None:
        return None
    start = time.monotonic()
    state.phase = "stopping"
    save(layout, state)
    injected = list(state.faults)
    with contextlib.suppress(LabError):  # what is left is retried below, then reported
        faults.clear_state(layout, state)
    k8s_down.down(layout, state)  # while Ceph still serves its volumes
    _stop_daemons(layout, state)
    _stop_sshd(layout, state)
    for fault in injected:  # their cgroups are empty now that the daemons are gone
        with contextlib.suppress(LabError):
            faults.undo(fault)
    _remove_network(state)
    with contextlib.suppress(LabError):  # reported below as a leftover
        release_view.destroy(state.view)
        release_view.remove_made(state.root_dirs)
    archive = None if purge else _archive(layout, state.lab_id)
    left_k8s = k8s_down.leftovers(layout, state)
    if not left_k8s:  # never remove a directory a mount is still on
        shutil.rmtree(layout.dir)
    left = left_k8s + leftovers(layout, state) + faults.leftovers(injected)
    left += release_view.leftovers(state.view)
    if left:
        raise LabError("lab down left things behind: " + "; ".join(left))
    return DownResult(time.monotonic() - start, archive)


def _pids(layout: Layout, state: LabState, kind: str) -> list[int]:
    """Recorded pids of ``kind`` daemons, plus pid files of ones that never got recorded."""
    pids = set()
    for d in state.daemons.values():
        if d.kind == kind and d.pid:
            pids.add(d.pid)
    for f in layout.run.glob(f"{kind}.*.pid") if layout.run.exists() else ():
        with contextlib.suppress(ValueError):
            pids.add(int(f.read_text().strip()))
    return sorted(pids)


def _stop_daemons(layout: Layout, state: LabState) -> None:
    # OSDs first: each tells the monitor it is going, while the monitor is still there
    # the MDS takes ~3.4 s to leave on SIGTERM (its rank's shutdown): a throwaway lab's is killed
    stop(_pids(layout, state, "mds"), layout.conf, grace=0.3)
    stop(_pids(layout, state, "osd"), layout.conf, grace=3.0)
    stop(_pids(layout, state, "mgr") + _pids(layout, state, "mon"), layout.conf, grace=3.0)


def _stop_sshd(layout: Layout, state: LabState) -> None:
    """The sshds, then whatever their sessions left in the lab's own namespaces."""
    if not state.sshd:
        return
    for host, pid in state.sshd.items():
        sshd.stop(layout, host, pid)
    sshd.stop_namespace_processes(state.namespaces)


def _remove_network(state: LabState) -> None:
    for link in state.links:
        net.delete_link(link)
    for ns in state.namespaces:
        net.delete_netns(ns)
    if state.bridge:
        net.delete_link(state.bridge)


def _archive(layout: Layout, tag: str) -> Path | None:
    """Copy the daemon logs, ceph.conf and state.json next to the lab directory."""
    if not layout.log.exists():
        return None
    dest = layout.archive(tag)
    shutil.copytree(layout.log, dest, dirs_exist_ok=True)
    for f in (layout.conf, layout.state):
        if f.exists():
            shutil.copy2(f, dest / f.name)
    return dest


def leftovers(layout: Layout, state: LabState) -> list[str]:
    """What of this lab still exists: processes, namespaces, links, files."""
    left = [f"process {pid}" for pid in ours(layout.conf)]
    left += [
        f"sshd {pid} of {host}"
        for host, pid in state.sshd.items()
        if sshd.is_ours(pid, sshd.sshd_conf(layout, host))
    ]
    left += [f"namespace {ns}" for ns in state.namespaces if net.netns_exists(ns)]
    left += [f"link {ln}" for ln in [*state.links, state.bridge] if ln and net.link_exists(ln)]
    if layout.dir.exists():
        left.append(f"directory {layout.dir}")
    return left
