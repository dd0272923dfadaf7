"""How cephbench reaches a cluster's own client programs: the one seam for ``ceph``, ``rados``,
``rbd``, ``ceph-fuse``, ``rbd-fuse`` and fio's Ceph engines.

A client must be of a release that can talk to its cluster (a Pacific client cannot even read a
Tentacle keyring). So a :class:`CephTools` says where those programs are reached: on this
machine (the default), in a release lab's root (``chroot ROOT``), or through a prefix the user
names, as admins reach their own cluster (``cephadm shell --``, Rook's toolbox ``kubectl -n
rook-ceph exec deploy/rook-ceph-tools --``). A :class:`~cephbench.ceph.connection.Connection`
carries one; nothing else knows how a command is reached.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from cephbench.system.process import which

#: The Debian package each client program comes from (for the "install it" hint).
PACKAGES = {
    "ceph": "ceph-common",
    "rados": "ceph-common",
    "rbd": "ceph-common",
    "ceph-authtool": "ceph-common",
    "monmaptool": "ceph-base",
    "ceph-fuse": "ceph-fuse",
    "rbd-fuse": "rbd-fuse",
    "fio": "fio",
}


@dataclass(frozen=True)
class CephTools:
    """Where the Ceph client programs run: ``prefix`` is put before each argv (empty: this
    machine's own programs, found on PATH)."""

    prefix: tuple[str, ...] = ()
    release: str | None = None
    """The release the programs are of, when known (a release lab's root says)."""

    @property
    def local(self) -> bool:
        """The programs are this machine's own (so this process's librados may stand in)."""
        return not self.prefix

    def argv(self, program: str, *args: str) -> list[str]:
        """argv running ``program ARGS`` where these tools are reached."""
        if self.local:
            return [which(program, PACKAGES.get(program)), *args]
        return [*self.prefix, program, *args]

    def describe(self) -> str:
        """Where the tools are, for messages and records."""
        return "this machine" if self.local else shlex.join(self.prefix)

    def to_json(self) -> dict[str, object]:
        return {"prefix": list(self.prefix), "release": self.release}

    @classmethod
    def from_json(cls, data: dict | None) -> CephTools:
        if not data:
            return cls()
        return cls(prefix=tuple(data.get("prefix") or ()), release=data.get("release"))

    @classmethod
    def from_cli(cls, text: str | None) -> CephTools:
        """``--ceph-cli "cephadm shell --"``: the words put before every Ceph command."""
        return cls(prefix=tuple(shlex.split(text))) if text and text.strip() else cls()


def chroot(root: str, release: str | None = None) -> CephTools:
    """The programs of a release root (a lab's view of it, see ``lab/releases.py``)."""
    return CephTools(prefix=("chroot", root), release=release)
