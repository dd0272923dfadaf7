"""``cephbench run --hosts SPEC``: the run's hosts, reached over ssh for as long as it lasts.

Before the run: every host's fingerprint (for ``environment["hosts"]``, which ``compare``
diffs host by host) and, with ``--drop-caches``, proof that each may drop its page cache.
Before each workload: the page cache dropped on every host, at once (bounded fan-out).
"""

from __future__ import annotations

from typing import Any

from cephbench.ceph.caches import cached_bytes
from cephbench.errors import CephbenchError
from cephbench.hosts import osd_cpu
from cephbench.hosts.facts import gather
from cephbench.hosts.inventory import Host, Inventory
from cephbench.hosts.load import load_inventory
from cephbench.hosts.ssh import Ssh

FINGERPRINT_KEYS = ("kernel", "fio", "iperf3", "cpu_model", "cpus", "governor", "root", "sudo")

# Constant text; nothing of the user's reaches the remote shell.
_CAN_DROP = "test -w /proc/sys/vm/drop_caches"
_DROP = """
grep '^Cached:' /proc/meminfo
sync
echo 3 > /proc/sys/vm/drop_caches || exit 1
grep '^Cached:' /proc/meminfo
"""


def fingerprint(facts: dict[str, Any]) -> dict[str, Any]:
    """A host's facts as stored with a run: what can change a result, keyed for diffing
    (``nics.eth0.mtu``, ``disks.sda.rotational``), without per-boot noise (addresses)."""
    fp = {k: facts.get(k) for k in FINGERPRINT_KEYS}
    fp["nics"] = {
        n["name"]: {k: n.get(k) for k in ("mtu", "speed_mbps", "state", "primary")}
        for n in facts.get("nics", [])
    }
    fp["disks"] = {
        d["name"]: {k: d.get(k) for k in ("model", "rotational", "size_bytes")}
        for d in facts.get("disks", [])
    }
    return fp


def parse_drop(stdout: str) -> dict[str, int]:
    """The remote drop's two ``Cached:`` lines -> cache size before and after, bytes."""
    lines = [ln for ln in stdout.splitlines() if ln.startswith("Cached:")]
    if len(lines) != 2:
        raise CephbenchError(f"unexpected output of the remote cache drop: {stdout[:200]!r}")
    return {"cached_before": cached_bytes(lines[0]), "cached_after": cached_bytes(lines[1])}


class RunHosts:
    """The hosts of one run and the ssh connections to them; a context manager."""

    def __init__(self, inventory: Inventory, connect_timeout: float = 10):
        self.inventory = inventory
        self.ssh = Ssh(inventory, connect_timeout=connect_timeout)

    @classmethod
    def open(cls, spec: str) -> RunHosts:
        return cls(load_inventory(spec))

    def __enter__(self) -> RunHosts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.ssh.close()

    @property
    def hosts(self) -> list[Host]:
        return list(self.inventory.hosts)

    def fingerprints(self) -> dict[str, Any]:
        """Every host's fingerprint; an unreachable host fails the run before it starts."""
        facts = self.ssh.each(self.hosts, lambda h: gather(self.ssh, h))
        for h in self.hosts:
            if not facts[h.name]["reachable"]:
                raise CephbenchError(facts[h.name]["error"], hint=facts[h.name].get("hint"))
        return {h.name: fingerprint(facts[h.name]) for h in self.hosts}

    def check_drop(self) -> None:
        """Every host may write drop_caches (as root, or through ``sudo -n``)."""

        def can(h: Host) -> bool:
            return self.ssh.run(h, ["sh", "-c", _CAN_DROP], root=True, check=False).returncode == 0

        denied = [n for n, ok in self.ssh.each(self.hosts, can).items() if not ok]
        if denied:
            raise CephbenchError(
                f"--drop-caches cannot drop the page cache on {', '.join(denied)}",
                hint="log in as root there or allow passwordless sudo, or leave out --drop-caches",
            )

    def osd_cpu(self) -> dict[str, osd_cpu.HostCpu]:
        """Every host's OSD daemons' CPU seconds so far (``hosts.osd_cpu``), at once; a host
        that does not answer is left out (the CPU is then not measured there)."""

        def one(h: Host) -> osd_cpu.HostCpu | None:
            result = self.ssh.run(h, ["sh", "-c", osd_cpu.SCRIPT], timeout=20, check=False)
            try:
                return osd_cpu.parse(result.stdout) if result.returncode == 0 else None
            except ValueError:
                return None

        got = self.ssh.each(self.hosts, one)
        return {name: a for name, a in got.items() if a is not None}

    def drop(self) -> dict[str, dict[str, int]]:
        """Drop the page cache on every host now: host -> cache size before and after."""

        def one(h: Host) -> dict[str, int]:
            return parse_drop(self.ssh.run(h, ["sh", "-c", _DROP], root=True).stdout)

        return self.ssh.each(self.hosts, one)


def host_fingerprints(spec: str, *, check_drop: bool = False) -> dict[str, Any]:
    """``environment["hosts"]`` of a run on ``--hosts spec`` (and, for ``--drop-caches``,
    proof that every host may drop its page cache), before the run starts."""
    with RunHosts.open(spec) as hosts:
        prints = hosts.fingerprints()
        if check_drop:
            hosts.check_drop()
        return prints
