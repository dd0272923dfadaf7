"""An OSD's CPU limit, one answer for ``explain`` and ``diagnose`` (system.cpu_limit): its
cgroup's quota or its CPU affinity, whichever is fewer, read from a /proc and a cgroup tree
made here (cgroup v1, as the lab's OSDs have them), recorded by a run's accounting and by the
diagnosis' OSD CPU alike, under one key ("osd.N")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cephbench.ceph.connection import Connection
from cephbench.diagnose import capability, cpu_use
from cephbench.diagnose.ceiling_inputs import Capabilities, PoolLayout
from cephbench.diagnose.ceilings import explain
from cephbench.execution import accounting
from cephbench.model import Result, WorkloadOutcome
from cephbench.store import Store
from cephbench.system import cpu_limit
from cephbench.system.cpu_limit import AFFINITY, QUOTA, CpuLimit
from tests.unit.test_ceilings import THIRD, osd, randwrite

MACHINE_CORES = 4.0


def process(proc: Path, cgroup: Path, pid: int, cpus: str, quota_us: int) -> None:
    """A process in a cgroup of its own (``cpu,cpuacct``) with a CFS quota (-1: none) and
    the CPUs ``cpus`` in its affinity."""
    name = f"ceph-osd-{pid}"
    (proc / str(pid)).mkdir(parents=True)
    (proc / str(pid) / "cgroup").write_text(
        f"9:cpuset:/{name}\n2:cpu,cpuacct:/{name}\n1:name=systemd:/\n0::/\n"
    )
    (proc / str(pid) / "status").write_text(
        f"Name:\tceph-osd\nPid:\t{pid}\nCpus_allowed:\tf\nCpus_allowed_list:\t{cpus}\n"
    )
    base = cgroup / "cpu,cpuacct" / name
    base.mkdir(parents=True)
    (base / "cpu.cfs_quota_us").write_text(f"{quota_us}\n")
    (base / "cpu.cfs_period_us").write_text("100000\n")


@pytest.fixture
def osds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """osd.0 unlimited, osd.1 held to one CPU by its cpuset alone, osd.2 to 0.15 cores by its
    quota (on two CPUs), osd.3 gone: their pids, on a machine of four cores."""
    proc, cgroup = tmp_path / "proc", tmp_path / "cgroup"
    process(proc, cgroup, 100, "0-3", -1)
    process(proc, cgroup, 101, "2", -1)
    process(proc, cgroup, 102, "0,3", 15000)
    monkeypatch.setattr(cpu_limit, "PROC", proc)
    monkeypatch.setattr(cpu_limit, "CGROUP", cgroup)
    monkeypatch.setattr(accounting, "cores", lambda: MACHINE_CORES)
    monkeypatch.setattr(cpu_use, "cores", lambda: MACHINE_CORES)
    return {"osd.0": 100, "osd.1": 101, "osd.2": 102, "osd.3": 103}


def test_the_limit_is_the_fewer_of_quota_and_affinity_and_none_below_the_machine(osds):
    assert cpu_limit.cpu_limits(osds, MACHINE_CORES) == {
        "osd.1": CpuLimit(1.0, AFFINITY),
        "osd.2": CpuLimit(0.15, QUOTA),
    }
    assert cpu_limit.cpu_limit(101, 1.0) is None  # one CPU of one: no limit below it
    assert cpu_limit.cpus("0-2,5,7-8") == {0, 1, 2, 5, 7, 8}


def test_this_process_has_no_limit_below_its_own_cores_and_a_gone_one_none():
    here = float(len(os.sched_getaffinity(0)))
    limit = cpu_limit.cpu_limit(os.getpid(), here)
    assert limit is None or (limit.by == QUOTA and 0 < limit.cores < here)
    assert cpu_limit.cpu_limit(2**22 + 7, here) is None  # above pid_max: never a process


def test_a_run_and_a_diagnosis_record_the_same_limits_under_the_same_key(osds, db):
    """An OSD limited by its cpuset alone: the run's CPU records (what explain reads) and the
    diagnosis' evidence name the same limit, set by the same thing, for the same OSD."""
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="x", target="rbd:lab", environment={}, params={})
        acc = accounting.Accounting(s, run_id, osds)
        acc.samples = [(float(t), t * 0.5, {o: t * 0.1 for o in osds}) for t in range(11)]
        acc.snapshot = lambda: (10.0, 5.0, {o: 1.0 for o in osds})  # type: ignore[method-assign]
        outcome = WorkloadOutcome("a", (Result("a", 0, "write", iops=100.0),))
        acc.record((0.0, 0.0, {o: 0.0 for o in osds}), 0, [outcome], [(0.0, 10.0)])
        (run,) = [v for series in s.series(run_id, "cpu") for v in series.values]

    sampler = cpu_use.OsdCpu(Connection())
    sampler.pids = osds
    sampler.samples = [(float(t), {o: t * 0.1 for o in osds}) for t in range(11)]
    e: dict = {"osds": {str(i): {} for i in range(4)}}
    sampler.record(e, "write-4k-qd32")
    diagnosed = {
        f"osd.{i}": (info["cpu"]["limit_cores"], info["cpu"]["limit_by"])
        for i, info in e["osds"].items()
        if info["cpu"]["limit_cores"] is not None
    }

    recorded = {
        o: (run["cpu_limit_cores"][o], run["cpu_limit_by"][o]) for o in run["cpu_limit_cores"]
    }
    assert recorded == diagnosed == {"osd.1": (1.0, AFFINITY), "osd.2": (0.15, QUOTA)}

    # explain says what sets the limit it names
    caps = Capabilities(
        [osd(i, 20000, 800, THIRD, THIRD) for i in range(4)], PoolLayout("replicated", 3)
    )
    use = capability.cpu_use([run], "a")
    assert use is not None and use.limit_by == {"osd.1": AFFINITY, "osd.2": QUOTA}
    assert "osd.1" in use.limits and use.limits["osd.1"] == 1.0
    assert any(
        p.why.startswith("its CPU affinity allows it 1 cores")
        for p in explain(caps, randwrite(1000.0), use).parts
        if p.part == "osd.1's CPU allowance"
    )


def test_the_quota_cgroups_throttling_counters_v1_and_v2(osds, tmp_path, monkeypatch):
    """cpu.stat of the cgroup whose quota holds the process (v1 in ns, v2 in µs); none for a
    process no quota holds. The bench counts what changed."""
    base = tmp_path / "cgroup" / "cpu,cpuacct" / "ceph-osd-102"
    (base / "cpu.stat").write_text("nr_periods 40\nnr_throttled 12\nthrottled_time 916300000\n")
    got = cpu_limit.throttling(102)
    assert got == cpu_limit.Throttling(40, 12, 0.9163)
    assert got.since(cpu_limit.Throttling(33, 5, 0.0)) == cpu_limit.Throttling(7, 7, 0.9163)
    assert cpu_limit.throttling(100) is None  # no quota
    assert cpu_limit.throttling(101) is None  # a cpuset, no quota
    assert cpu_limit.throttling(103) is None  # gone
    # cgroup v2: cpu.max and cpu.stat in the unified hierarchy
    proc, v2 = tmp_path / "proc2", tmp_path / "v2"
    (proc / "7").mkdir(parents=True)
    (proc / "7" / "cgroup").write_text("0::/osd.7\n")
    (v2 / "osd.7").mkdir(parents=True)
    (v2 / "osd.7" / "cpu.max").write_text("15000 100000\n")
    (v2 / "osd.7" / "cpu.stat").write_text(
        "usage_usec 5\nnr_periods 9\nnr_throttled 4\nthrottled_usec 250000\n"
    )
    assert cpu_limit.throttling(7, proc, v2) == cpu_limit.Throttling(9, 4, 0.25)
    assert cpu_limit.quota(7, proc, v2) == pytest.approx(0.15)
