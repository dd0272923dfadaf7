"""The OSD daemons' CPU seconds on a cluster's hosts, read over ssh from their own accounting
(``/proc/PID/stat``), for ``explain``'s CPU ceiling on a cluster that is not the lab.

One ssh call per host per sample runs :data:`SCRIPT` (constant text: nothing of the user's
reaches the remote shell): the host's boot id, its clock ticks and online CPUs, and for each
``ceph-osd`` process its command line (the OSD's id: ``-i N``, ``--id N``, ``-n osd.N``;
cephadm and Rook run ``ceph-osd`` in containers, which the host still sees) and its stat
line. Hosts that answer with one boot id are one machine (the lab's hosts are network
namespaces of this one): their OSDs are counted once, against that machine's CPUs.
:func:`parse` is pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SCRIPT = """\
cat /proc/sys/kernel/random/boot_id
getconf CLK_TCK
getconf _NPROCESSORS_ONLN
for p in $(pgrep -x ceph-osd); do
  printf 'pid %s ' "$p"; tr '\\0' ' ' < "/proc/$p/cmdline"; echo
  cat "/proc/$p/stat"
done
"""

_ID = re.compile(r"(?:^|\s)(?:-i|--id)(?:\s+|=)(\d+)(?=\s|$)")
_NAME = re.compile(r"(?:^|\s)(?:-n|--name)(?:\s+|=)osd\.(\d+)(?=\s|$)")


@dataclass(frozen=True)
class HostCpu:
    """One host's answer: the machine it runs on and its OSDs' CPU seconds so far."""

    boot_id: str
    cores: int
    osd_seconds: dict[str, float] = field(default_factory=dict)
    """"osd.N" -> user + system CPU seconds since it started."""


def stat_ticks(stat: str) -> int | None:
    """utime + stime of a ``/proc/PID/stat`` line (fields 14 and 15), in clock ticks; None
    when the line is cut short."""
    fields = stat[stat.rfind(")") + 2 :].split() if ")" in stat else []
    # fields[0] is the state (field 3): utime is field 14, stime field 15
    return int(fields[11]) + int(fields[12]) if len(fields) >= 13 else None


def osd_name(cmdline: str) -> str | None:
    """ "osd.N" from a ``ceph-osd`` command line; None when it names no OSD."""
    m = _ID.search(cmdline) or _NAME.search(cmdline)
    return f"osd.{m.group(1)}" if m else None


def parse(text: str) -> HostCpu:
    """:data:`SCRIPT`'s output -> the host's boot id, CPUs and each OSD's CPU seconds; a
    ValueError when it is not that output."""
    lines = text.splitlines()
    if len(lines) < 3 or not lines[1].strip().isdigit() or not lines[2].strip().isdigit():
        raise ValueError(f"not the OSD CPU script's output: {text[:120]!r}")
    boot_id, ticks, cores = lines[0].strip(), int(lines[1]), int(lines[2])
    seconds: dict[str, float] = {}
    rest = lines[3:]
    for head, stat in zip(rest[::2], rest[1::2], strict=False):
        name = osd_name(head.split(" ", 2)[2] if head.count(" ") >= 2 else "")
        used = stat_ticks(stat)
        if not head.startswith("pid ") or name is None or used is None:
            continue  # a process that ended between pgrep and cat: its lines are cut short
        seconds[name] = used / ticks
    return HostCpu(boot_id, cores, seconds)


@dataclass(frozen=True)
class Machines:
    """Hosts grouped by boot id: each machine's name (its hosts), CPUs and OSDs."""

    cores: dict[str, int]
    """Machine name ("host0+host1+host2", or "host1") -> its online CPUs."""
    osds: dict[str, str]
    """"osd.N" -> the machine it runs on."""
    boot_ids: dict[str, str]
    """Machine name -> its boot id."""

    def of(self, osd: str) -> str | None:
        return self.osds.get(osd)


def machines(answers: dict[str, HostCpu]) -> Machines:
    """Host name -> its answer, grouped into machines (one per boot id, named by its hosts in
    inventory order); an OSD seen from several hosts of one machine is one process."""
    by_boot: dict[str, list[str]] = {}
    for host, a in answers.items():
        by_boot.setdefault(a.boot_id, []).append(host)
    cores: dict[str, int] = {}
    osds: dict[str, str] = {}
    boots: dict[str, str] = {}
    for boot, hosts in by_boot.items():
        name = "+".join(hosts)
        cores[name], boots[name] = answers[hosts[0]].cores, boot
        for h in hosts:
            for osd in answers[h].osd_seconds:
                osds.setdefault(osd, name)
    return Machines(cores, osds, boots)


def osd_seconds(answers: dict[str, HostCpu]) -> dict[str, float]:
    """Every OSD's CPU seconds so far, once each (the first host of its machine that saw it)."""
    out: dict[str, float] = {}
    for a in answers.values():
        for osd, s in a.osd_seconds.items():
            out.setdefault(osd, s)
    return out
