""":class:`LabInfo`, what the rest of cephbench needs to use a lab, and :func:`find_running`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cephbench.ceph.tools import CephTools, chroot
from cephbench.lab.conf import MON
from cephbench.lab.daemons import is_ours
from cephbench.lab.k8s_conf import POOL, K8sInfo, k8s_info
from cephbench.lab.paths import Layout, default_dir
from cephbench.lab.state import LabState, load


@dataclass(frozen=True)
class LabInfo:
    """A lab's coordinates for Ceph clients.

    Add ``env`` to a subprocess environment and ``ceph``, ``rados``, ``rbd`` and
    ``fio --ioengine=rbd --clientname=admin`` reach the lab.
    """

    dir: Path
    conf_path: Path
    keyring_path: Path | None  # None with --auth none
    client_name: str
    env: dict[str, str] = field(hash=False)
    hosts: tuple[str, ...]
    osds: tuple[int, ...]
    k8s: K8sInfo | None = None  # lab up --k8s
    tools: CephTools = field(default_factory=CephTools)
    """Where the lab's Ceph programs run: this machine's, or its release root's."""
    view: Path | None = None
    """A release lab's view of its root, whose ``/etc/ceph`` is the lab's directory: a client
    program run there finds the lab's ``ceph.conf`` and admin keyring with no option."""


def info_from_state(layout: Layout, state: LabState) -> LabInfo:
    """The LabInfo of a recorded lab (running or not)."""
    keyring = layout.admin_keyring if state.spec.auth == "cephx" else None
    env = {"CEPH_CONF": str(layout.conf)}
    if keyring is not None:
        env["CEPH_KEYRING"] = str(keyring)
    return LabInfo(
        dir=layout.dir,
        conf_path=layout.conf,
        keyring_path=keyring,
        client_name="admin",
        env=env,
        hosts=tuple(f"host{h}" for h in range(state.spec.hosts)),
        osds=tuple(range(state.spec.osds)),
        k8s=_k8s(layout, state),
        tools=chroot(state.view, state.spec.release) if state.view else CephTools(),
        view=Path(state.view) if state.view else None,
    )


def _k8s(layout: Layout, state: LabState) -> K8sInfo | None:
    k = state.k8s
    if k is None or "apiserver" not in k.ports:
        return None
    return k8s_info(
        layout.dir, k.version, k.node, k.ports["apiserver"], k.pool or POOL, k.fio_image
    )


def find_running(dir: Path | str | None = None) -> LabInfo | None:
    """The lab running in ``dir`` (default: :func:`default_dir`), or None.

    Running means ``lab up`` finished and the monitor process is alive.
    """
    layout = Layout(Path(dir).expanduser().absolute() if dir else default_dir())
    state = load(layout)
    if state is None or state.phase != "running":
        return None
    mon = state.daemons.get(MON)
    if mon is None or not is_ours(mon.pid, layout.conf):
        return None
    return info_from_state(layout, state)
