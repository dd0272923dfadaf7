"""``sysctl KEY=VALUE`` changes of ``cephbench ab --hosts SPEC``: made on every host of the
inventory over ssh, each host's own original value recorded before it changes.

A tuning write-up changes a kernel setting on every machine of the cluster (TCP buffers on the
OSD hosts and the clients), and the hosts need not agree on the value they started with: each
host is read, recorded in the resource log (one ``ab_host_sysctl`` per host, with what reaches
it again, so ``cephbench cleanup`` can put it back after a killed experiment), written, and read
back; a host that does not show the value written is an error, never a silent no-op. All hosts
are handled at once (the ssh fan-out), and an error is raised only after every host is done.

Nothing of the user's reaches a remote shell: the key was checked to be a sysctl name (dotted
words, so never a path outside ``/proc/sys``), and the helper script takes it and the value as
positional arguments. The sysctl setting kind (:mod:`cephbench.tuning.kinds.sysctl`) makes
its changes here when the experiment has hosts.
"""

from __future__ import annotations

from typing import Any

from cephbench.errors import CephbenchError, UsageError
from cephbench.hosts.inventory import Host, Inventory
from cephbench.hosts.remote import reach, recorded_detail
from cephbench.hosts.ssh import Ssh
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog
from cephbench.tuning.owner import refuse_while_running

KIND = "ab_host_sysctl"

# Constant text run by `sh -c`; $1 the /proc/sys path, $2 the value.
_SET = """
printf '%s\\n' "$2" > "$1" || exit 1
cat -- "$1"
"""


def proc_path(key: str) -> str:
    return "/proc/sys/" + key.replace(".", "/")


def _same(a: str, b: str) -> bool:
    """A sysctl reads back with tabs between its words (``4096\t87380\t6291456``)."""
    return a.split() == b.split()


class HostSysctls:
    """The inventory's hosts and the ssh connections to them, for one experiment."""

    def __init__(self, inventory: Inventory, resources: ResourceLog):
        if not inventory.hosts:
            raise UsageError(f"the inventory {inventory.source} has no hosts")
        self.inventory, self.resources = inventory, resources
        self.ssh = Ssh(inventory)

    @property
    def hosts(self) -> list[Host]:
        return list(self.inventory.hosts)

    def close(self) -> None:
        self.ssh.close()

    def read(self, key: str) -> dict[str, str]:
        """Every host's value of ``key`` (a host without it: a UsageError naming it)."""

        def one(h: Host) -> str:
            out = self.ssh.run(h, ["cat", "--", proc_path(key)], check=False)
            if out.returncode != 0:
                raise UsageError(
                    f"host {h.name} has no sysctl {key} ({out.last_error_line()})",
                    hint="sysctl -a there lists them",
                )
            return out.stdout.strip()

        return self.ssh.each(self.hosts, one)

    def record(self, key: str, original: dict[str, str], owner: dict[str, Any]) -> list[int]:
        """One resource per host with its original value, before anything is written."""
        return [
            self.resources.add(
                KIND,
                f"{h.name}:{key}",
                recorded_detail(self.inventory, h, key=key, value=original[h.name], owner=owner),
            )
            for h in self.hosts
        ]

    def write(self, key: str, values: dict[str, str]) -> None:
        """Write each host's value and check it reads back so; the hosts that do not are
        named in one error (after every host was written)."""

        def one(h: Host) -> str | None:
            got = _write(self.ssh, h, key, values[h.name])
            return None if _same(got, values[h.name]) else got

        wrong = {n: got for n, got in self.ssh.each(self.hosts, one).items() if got is not None}
        if wrong:
            shown = "; ".join(f"{n} shows {got!r}" for n, got in wrong.items())
            raise CephbenchError(
                f"sysctl {key} did not take the value written: {shown}",
                hint="the kernel may round or refuse it; check `sysctl KEY` on those hosts",
            )


def _write(ssh: Ssh, host: Host, key: str, value: str) -> str:
    """Write ``value`` to ``key`` on ``host`` (as root); what it reads back."""
    out = ssh.run(host, ["sh", "-c", _SET, "sh", proc_path(key), value], root=True, check=False)
    if out.returncode != 0:
        raise CephbenchError(
            f"setting sysctl {key} = {value} on host {host.name} failed: {out.last_error_line()}",
            hint="sysctl changes need root there (or passwordless sudo: sudo: true)",
        )
    return out.stdout.strip()


def shown(values: dict[str, str]) -> str:
    """The hosts' values as one line: the value when all agree, else each host's."""
    distinct = {" ".join(v.split()) for v in values.values()}
    if len(distinct) == 1:
        return distinct.pop()
    return "; ".join(f"{n}: {' '.join(v.split())}" for n, v in values.items())


@undoes(KIND)
def undo_host_sysctl(resource: Resource) -> None:
    """``cephbench cleanup``: write a killed experiment's host back its original value."""
    d = resource.detail
    refuse_while_running(d)
    ssh, host = reach(resource)
    with ssh:
        got = _write(ssh, host, d["key"], d["value"])
    if not _same(got, d["value"]):
        raise CephbenchError(
            f"sysctl {d['key']} on host {host.name} shows {got!r}, not {d['value']!r}",
            hint="set it back by hand there",
        )
