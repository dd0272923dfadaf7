"""The cores a process may use, and what sets them: one answer for the two readers of an
OSD's CPU limit, a run's CPU records (``execution.accounting``, read by ``explain``) and the
diagnosis' evidence (``diagnose.cpu_use``), so they cannot disagree on an OSD held by a
cpuset but by no quota.

A process may use the fewer of its cgroup's CPU quota (cgroup v1's ``cpu.cfs_quota_us`` over
``cpu.cfs_period_us``, v2's ``cpu.max``: Rook's ``resources.limits.cpu``, systemd's
``CPUQuota``, the lab's ``cpu`` fault) and the CPUs its affinity leaves it (a cpuset,
``taskset``: ``Cpus_allowed_list`` in ``/proc/PID/status``). Read from ``/proc`` and the
cgroup files under the roots :data:`PROC` and :data:`CGROUP` (a test points them at a tree
of its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
CGROUP = Path("/sys/fs/cgroup")

QUOTA = "its cgroup's CPU quota"
AFFINITY = "its CPU affinity"


@dataclass(frozen=True)
class CpuLimit:
    cores: float
    """The cores the process may use."""
    by: str
    """What sets them: :data:`QUOTA` or :data:`AFFINITY`."""


def quota(pid: int, proc: Path | None = None, cgroup: Path | None = None) -> float | None:
    """The cores ``pid``'s cgroup lets it use (its CFS quota / period); None when unlimited
    or unreadable (the process gone)."""
    found = _quota_cgroup(pid, proc, cgroup)
    return found[1] if found else None


def _quota_cgroup(
    pid: int, proc: Path | None = None, cgroup: Path | None = None
) -> tuple[Path, float] | None:
    """The cgroup directory whose CFS quota holds ``pid``, and the cores that quota allows;
    None when no quota holds it or it cannot be read (the process gone)."""
    proc, cgroup = proc or PROC, cgroup or CGROUP
    try:
        lines = (proc / str(pid) / "cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        rel = path.lstrip("/")
        try:
            if "cpu" in controllers.split(","):
                for mount in ("cpu", "cpu,cpuacct"):
                    base = cgroup / mount / rel
                    if (base / "cpu.cfs_quota_us").is_file():
                        q = int((base / "cpu.cfs_quota_us").read_text())
                        period = int((base / "cpu.cfs_period_us").read_text())
                        return (base, q / period) if q > 0 and period > 0 else None
            elif controllers == "":
                limit = cgroup / rel / "cpu.max"
                if limit.is_file():
                    quota_text, period_text = limit.read_text().split()
                    if quota_text != "max" and int(period_text) > 0:
                        return cgroup / rel, int(quota_text) / int(period_text)
        except (OSError, ValueError):
            continue
    return None


@dataclass(frozen=True)
class Throttling:
    """A quota cgroup's CFS counters (``cpu.stat``): the enforcement periods in which its
    processes ran, those that ended with them throttled (out of quota), and for how long."""

    periods: int
    throttled: int
    throttled_s: float

    def since(self, before: Throttling) -> Throttling:
        """What was counted between ``before`` and this reading."""
        return Throttling(
            self.periods - before.periods,
            self.throttled - before.throttled,
            round(self.throttled_s - before.throttled_s, 6),
        )


def throttling(pid: int, proc: Path | None = None, cgroup: Path | None = None) -> Throttling | None:
    """The CFS counters of the cgroup whose quota holds ``pid`` (v1: ``throttled_time`` in
    ns, v2: ``throttled_usec``); None when no quota holds it or they cannot be read."""
    found = _quota_cgroup(pid, proc, cgroup)
    if found is None:
        return None
    try:
        fields = dict(
            line.split(maxsplit=1) for line in (found[0] / "cpu.stat").read_text().splitlines()
        )
        if "throttled_usec" in fields:
            seconds = int(fields["throttled_usec"]) / 1e6
        else:
            seconds = int(fields["throttled_time"]) / 1e9
        return Throttling(int(fields["nr_periods"]), int(fields["nr_throttled"]), seconds)
    except (OSError, ValueError, KeyError):
        return None


def affinity(pid: int, proc: Path | None = None) -> int | None:
    """How many CPUs ``pid`` may run on (``Cpus_allowed_list``: its affinity, as a cpuset or
    ``taskset`` leaves it); None when unreadable (the process gone)."""
    try:
        status = ((proc or PROC) / str(pid) / "status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name == "Cpus_allowed_list":
            try:
                return len(cpus(value.strip()))
            except ValueError:
                return None
    return None


def cpus(text: str) -> set[int]:
    """The CPUs of a kernel CPU list (``0-3,6``). Pure."""
    out: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        out.update(range(int(first), int(last or first) + 1))
    return out


def cpu_limit(
    pid: int, machine_cores: float, proc: Path | None = None, cgroup: Path | None = None
) -> CpuLimit | None:
    """The cores ``pid`` may use, the fewer of its quota and its affinity, when they are fewer
    than ``machine_cores`` (the cores this machine gives its processes); None: no limit below
    them, or the process is gone."""
    known = []
    q = quota(pid, proc, cgroup)
    if q:
        known.append(CpuLimit(q, QUOTA))
    n = affinity(pid, proc)
    if n:
        known.append(CpuLimit(float(n), AFFINITY))
    fewest = min(known, key=lambda x: x.cores, default=None)
    return fewest if fewest is not None and fewest.cores < machine_cores else None


def cpu_limits(
    pids: dict[str, int],
    machine_cores: float,
    proc: Path | None = None,
    cgroup: Path | None = None,
) -> dict[str, CpuLimit]:
    """Each named process' limit (``pids``: its name, ``osd.N``, -> its pid), for those that
    have one below ``machine_cores``."""
    out = {}
    for name, pid in pids.items():
        limit = cpu_limit(pid, machine_cores, proc, cgroup)
        if limit is not None:
            out[name] = limit
    return out
