"""What a Ceph run records for ``explain`` (execution.accounting): the CPU seconds of
processes read from their own accounting, and each workload's share of the samples."""

from __future__ import annotations

import os
import threading

import pytest

from cephbench.execution import accounting
from cephbench.model import Result, WorkloadOutcome
from cephbench.store import Store


def test_a_process_cpu_seconds_from_proc_and_a_gone_process():
    mine = accounting.proc_cpu_seconds(os.getpid())
    assert mine is not None and mine > 0
    assert accounting.proc_cpu_seconds(2**22 + 7) is None  # above pid_max: never a process
    assert accounting.client_cpu_seconds() >= 0 and accounting.cores() >= 1


def test_each_workload_gets_the_cpu_of_its_own_window(db):
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="x", target="rbd:lab", environment={}, params={})
        acc = accounting.Accounting(s, run_id, {})
        acc.osd_pids = {}
        # the client spends 1 CPU second a second in the first workload, 0.25 in the second
        acc.samples = [
            (float(t), t * 1.0 if t <= 10 else 10 + (t - 10) * 0.25, {}) for t in range(21)
        ]
        acc.snapshot = lambda: (20.0, 12.5, {"osd.0": 1.0})  # type: ignore[method-assign]
        outcomes = [
            WorkloadOutcome("a", (Result("a", 0, "write", iops=100.0),)),
            WorkloadOutcome("b", (Result("b", 0, "write", iops=50.0),)),
        ]
        acc.record((0.0, 0.0, {}), 0, outcomes, [(0.0, 10.0), (10.0, 20.0)])
        records = [v for series in s.series(run_id, "cpu") for v in series.values]
    a, b = records
    assert a["workloads"] == ["a"] and b["workloads"] == ["b"]
    assert a["cpu_s"]["client"] == pytest.approx(8.0)  # 0.5 s to 8.5 s: trimmed, 1 CPU s/s
    assert a["ios"] == pytest.approx(100.0 * 8.0)
    assert b["cpu_s"]["client"] == pytest.approx(2.0)  # 10.5 s to 18.5 s at 0.25
    assert a["osd_cpu_measured"] is False and a["machine"] == "the client"


def test_fio_in_pods_records_no_client_cpu(db):
    """With pods fio's CPU is theirs; this process' children are kubectl: nothing is said of
    the client rather than kubectl's seconds passed off as fio's."""
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="x", target="rbd:lab", environment={}, params={})
        acc = accounting.Accounting(s, run_id, {"osd.0": 1}, client_here=False)
        acc.samples = [(float(t), float(t), {"osd.0": t * 0.5}) for t in range(11)]
        acc.snapshot = lambda: (10.0, 10.0, {"osd.0": 5.0})  # type: ignore[method-assign]
        outcome = WorkloadOutcome("a", (Result("a", 0, "write", iops=100.0),))
        acc.record((0.0, 0.0, {"osd.0": 0.0}), 0, [outcome], [(0.0, 10.0)])
        (record,) = [v for series in s.series(run_id, "cpu") for v in series.values]
    assert "client" not in record["cpu_s"] and record["cpu_s"]["osd.0"] == pytest.approx(
        4.0
    )  # 0.5 s to 8.5 s


def test_osds_read_on_hosts_are_recorded_with_their_machines(db, monkeypatch):
    """``--hosts``: the OSDs on the machines their hosts' boot ids make (two of the lab's
    hosts, recorded), and the client on the machine of this one's boot id."""
    from pathlib import Path

    from cephbench.hosts import osd_cpu

    data = Path(__file__).parents[1] / "data" / "osd-cpu"
    answers = {h: osd_cpu.parse((data / f"lab-{h}.txt").read_text()) for h in ("host1", "host2")}
    osds = {"osd.0": 0.0, "osd.1": 0.0, "osd.2": 0.0}
    outcomes = [WorkloadOutcome("a", (Result("a", 0, "write", iops=100.0),))]
    for here, client_on in (("another boot", "this machine"), (answers["host1"].boot_id, None)):
        monkeypatch.setattr(accounting, "boot_id", lambda here=here: here)
        with Store(db) as s:
            run_id = s.start_run(label=None, suite="x", target="rbd:x", environment={}, params={})
            acc = accounting.Accounting(s, run_id, {})
            acc.machines = osd_cpu.machines(answers)
            acc.samples = [(float(t), t * 0.1, {k: t * 0.2 for k in osds}) for t in range(3)]
            acc.snapshot = lambda: (2.0, 0.2, {k: 0.4 for k in osds})  # type: ignore[method-assign]
            acc.record((0.0, 0.0, dict(osds)), 0, outcomes, [(0.0, 2.0)])
            [r] = [v for series in s.series(run_id, "cpu") for v in series.values]
        machines = r["machines"]
        assert machines["host1+host2"]["cores"] == 2
        assert machines["host1+host2"]["processes"][:3] == ["osd.0", "osd.1", "osd.2"]
        if client_on is None:  # one machine: the client's too
            assert machines["host1+host2"]["processes"][3:] == ["client"]
            assert (r["machine"], r["cores"]) == ("host1+host2", 2)
        else:
            assert machines[client_on]["processes"] == ["client"]
            assert set(machines) == {"host1+host2", "this machine"}


def test_a_sample_the_sampler_takes_while_record_prunes_is_kept(db):
    """``record`` keeps only the samples it has not explained yet while the sampler thread
    appends: a sample appended in between (driven here by each read of the samples starting
    the real sampler loop for one sample, and waiting for it unless the samples are locked)
    is never lost."""
    late = (30.0, 15.0, {})
    threads: list[threading.Thread] = []
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="x", target="rbd:lab", environment={}, params={})
        acc = accounting.Accounting(s, run_id, {})
        acc.take = lambda: late  # type: ignore[method-assign]
        acc._stop.set()  # the loop takes one sample and ends

        class Read(list):
            def __iter__(self):
                items = list(list.__iter__(self))
                t = threading.Thread(target=acc._loop)
                t.start()
                threads.append(t)
                lock = getattr(acc, "lock", None)
                if lock is None or not lock.locked():  # else it waits for the lock
                    t.join()
                return iter(items)

        acc.samples = Read((float(t), t * 0.5, {}) for t in range(21))
        acc.snapshot = lambda: (20.0, 10.0, {})  # type: ignore[method-assign]
        outcome = WorkloadOutcome("a", (Result("a", 0, "write", iops=100.0),))
        acc.record((0.0, 0.0, {}), 0, [outcome], [(0.0, 20.0)])
        for t in threads:
            t.join()
    assert threads and acc.samples.count(late) == len(threads)


def test_an_osd_read_a_host_did_not_answer_narrows_the_window_rather_than_losing_the_osds(db):
    """Over ssh on a busy machine the first read of a host can fail (its OSDs' figures None):
    the workload's OSD CPU is then measured between the samples that have every OSD's figure,
    and its I/Os over the same span (CI: a 3 s workload recorded no OSD CPU, and explain had
    no CPU part)."""
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="x", target="rbd:lab", environment={}, params={})
        acc = accounting.Accounting(s, run_id, {}, client_here=False)
        acc.samples = [(0.0, 0.0, {"osd.0": None})] + [
            (float(t), float(t), {"osd.0": t * 0.5}) for t in range(1, 11)
        ]
        acc.snapshot = lambda: (10.0, 10.0, {"osd.0": 5.0})  # type: ignore[method-assign]
        outcome = WorkloadOutcome("a", (Result("a", 0, "write", iops=100.0),))
        acc.record((0.0, 0.0, {"osd.0": None}), 0, [outcome], [(0.0, 2.5)])
        (record,) = [v for series in s.series(run_id, "cpu") for v in series.values]
    assert record["osd_cpu_measured"] is True
    assert record["cpu_s"]["osd.0"] == pytest.approx(0.5)  # 1 s to 2 s at 0.5 CPU s/s
    assert record["wall_s"] == pytest.approx(1.0) and record["ios"] == pytest.approx(100.0)
