"""Run the kubelet in its own mount namespace, so that it changes nothing on the host.

``python -m cephbench.lab.k8s_nsexec FAKESYS -- KUBELET ARGS...``: unshare the mount
namespace (propagation unchanged: the lab's rshared ``k8s`` directory stays a peer of the
host's, so volume mounts reach containerd), bind-mount files holding the values the kubelet
wants over ``/proc/sys/vm/overcommit_memory``, ``kernel/panic`` and ``kernel/panic_on_oops``
(it would rewrite the host's otherwise), put a private tmpfs on ``/var/log`` (it writes
``/var/log/containers`` whatever it is told), then exec the kubelet: the pid stays the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

from cephbench.lab.k8s_conf import KERNEL_TUNABLES

CLONE_NEWNS = 0x00020000
MS_BIND = 4096


def _check(code: int, what: str) -> None:
    if code != 0:
        err = ctypes.get_errno()
        sys.exit(f"k8s_nsexec: {what} failed: {os.strerror(err)}")


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[1] != "--":
        sys.exit("usage: python -m cephbench.lab.k8s_nsexec FAKESYS -- PROGRAM ARGS...")
    fakesys, program = argv[0], argv[2:]
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    _check(libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    for target in KERNEL_TUNABLES:
        source = os.path.join(fakesys, os.path.basename(target))
        _check(libc.mount(source.encode(), target.encode(), None, MS_BIND, None), f"bind {target}")
    _check(libc.mount(b"cephbench-varlog", b"/var/log", b"tmpfs", 0, b"size=16m"), "tmpfs /var/log")
    os.execv(program[0], program)


if __name__ == "__main__":
    main(sys.argv[1:])
