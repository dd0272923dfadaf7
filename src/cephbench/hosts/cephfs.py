"""A CephFS mount on a client host (``run --clients`` on a ``cephfs:`` target): ceph-fuse
started there over ssh at a mountpoint of its own under /tmp, recorded in the resource log
before the mountpoint exists, and undone (unmounted, its ceph-fuse stopped by its pid file,
the empty mountpoint removed with ``rmdir``, never ``rm -r``: it may still be a mount) when
the run ends, or by ``cephbench cleanup`` after a kill.

The host uses the connection's ``--conf`` and ``--keyring`` paths: they must exist there
(they do on the lab's hosts, which share this machine's files).
"""

from __future__ import annotations

import posixpath
import uuid
from dataclasses import dataclass

from cephbench.ceph.cephfs import fuse_args
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, TargetError
from cephbench.hosts.inventory import Host
from cephbench.hosts.remote import reach, recorded_detail
from cephbench.hosts.ssh import Ssh
from cephbench.resources.undo import undoes
from cephbench.store.resources import Resource, ResourceLog

PREFIX = "cephbench-cephfs-"
MOUNT_WAIT = 90

_MOUNT = """
mp=$1; shift
mkdir -m 700 -- "$mp" || exit 1
exec "$@"
"""
_UNMOUNT = """
mp=$1 pidfile=$2
if grep -q " $mp " /proc/self/mountinfo; then umount "$mp" 2>/dev/null || umount -l "$mp"; fi
if [ -s "$pidfile" ]; then
  pid=$(cat "$pidfile")
  case "$pid" in ''|*[!0-9]*) ;; *)
    if tr '\\000' '\\n' < /proc/$pid/cmdline 2>/dev/null | grep -qx -- "$mp"; then
      kill -TERM "$pid" 2>/dev/null; i=0
      while [ -d /proc/$pid ] && [ $i -lt 50 ]; do i=$((i+1)); sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null
    fi;;
  esac
fi
rm -f -- "$pidfile"
[ -d "$mp" ] && rmdir -- "$mp"
exit 0
"""


@dataclass(frozen=True)
class RemoteMount:
    host: Host
    mountpoint: str
    pidfile: str
    resource_id: int


def mount(
    ssh: Ssh, host: Host, conn: Connection, fs: str, root: str, resources: ResourceLog
) -> RemoteMount:
    """Mount ``fs``'s ``root`` on ``host`` with ceph-fuse (recorded first); its mountpoint."""
    mountpoint = f"/tmp/{PREFIX}{uuid.uuid4().hex[:12]}"
    pidfile = f"{mountpoint}.pid"
    rid = resources.add(
        "remote_cephfs_mount",
        f"{host.name}:{mountpoint}",
        recorded_detail(ssh.inventory, host, mountpoint=mountpoint, pidfile=pidfile),
    )
    made = RemoteMount(host, mountpoint, pidfile, rid)
    # the host's own ceph-fuse (not the connection's tools: they are this machine's)
    argv = ["ceph-fuse", *fuse_args(conn, fs, root, mountpoint, pidfile)]
    result = ssh.run(
        host, ["sh", "-c", _MOUNT, "sh", mountpoint, *argv], check=False, timeout=MOUNT_WAIT
    )
    if result.returncode != 0:
        unmount(ssh, made)
        resources.removed(rid)
        raise TargetError(
            f"ceph-fuse on host {host.name} could not mount CephFS {fs}: "
            f"{result.last_error_line()}",
            hint="the host needs ceph-fuse and the --conf and --keyring files at the same paths",
        )
    return made


def unmount(ssh: Ssh, made: RemoteMount) -> None:
    """Unmount, stop its ceph-fuse, remove the (empty) mountpoint."""
    _unmount(ssh, made.host, made.mountpoint, made.pidfile)


def _unmount(ssh: Ssh, host: Host, mountpoint: str, pidfile: str) -> None:
    if (
        not posixpath.basename(mountpoint).startswith(PREFIX)
        or posixpath.dirname(mountpoint) != "/tmp"
    ):
        raise CephbenchError(f"{mountpoint} on {host.name} is not a cephbench mountpoint")
    ssh.run(host, ["sh", "-c", _UNMOUNT, "sh", mountpoint, pidfile], timeout=60)


@undoes("remote_cephfs_mount")
def undo_remote_mount(resource: Resource) -> None:
    ssh, host = reach(resource)
    with ssh:
        _unmount(ssh, host, resource.detail["mountpoint"], resource.detail["pidfile"])
