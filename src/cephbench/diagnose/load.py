"""The known load: fio's rbd engine, 4k random writes and reads at QD1 and QD32 on the
diagnosis' own image, with every OSD's perf counters read before and after (and around the
QD1 writes alone, for the latency budget) and, on the lab, each OSD's CPU use during the QD32
load beside its cgroup's limit (:mod:`cephbench.diagnose.cpu_use`); then ``ceph tell osd.N bench`` at 4 MiB and 4 KiB.

fio runs with the librbd cache off (``CEPH_ARGS=--rbd_cache=false``, this process only):
a writeback cache acknowledges QD1 writes from memory and floods the OSDs afterwards, which
hides the cluster's own latency. The client's cache settings are read and reported.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from cephbench.diagnose import counters, evidence, unchecked
from cephbench.diagnose.cpu_use import OsdCpu
from cephbench.diagnose.facts import after_load
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.diagnose.together import together
from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted, run, which
from cephbench.tools.base import Step, Stopped, raw_output
from cephbench.tools.fio.parse import parse
from cephbench.tools.osd_bench import driver as osd_bench

QD1_WRITE = ("write-4k-qd1", "randwrite", 1)
REST = (
    ("write-4k-qd32", "randwrite", 32),
    ("read-4k-qd1", "randread", 1),
    ("read-4k-qd32", "randread", 32),
)
"""Run one after another in one fio process (fio starts once: the rbd engine's start-up is
most of a short job's time). ``--quick`` leaves out the QD1 reads: no finding rests on them.
It keeps the QD32 reads: the OSDs' queue counters (``op_before_dequeue_op_lat``) count every
op, and without a second of reads among them a healthy OSD's wait behind its peers' was
noise the CPU rule took for a starved OSD (1 of 4 healthy trials, 2026-11-27)."""
QUICK_REST = ("write-4k-qd32", "read-4k-qd32")

AFTER = (
    ("tell", "osd.*", "perf", "dump"),
    ("osd", "perf"),
    ("tell", "osd.*", "dump_osd_network", "0"),
    ("status",),
)
"""Read at once when the load has ended: the counters, ``ceph osd perf``, each OSD's
heartbeat ping times and health."""


class ClientLoad(Probe):
    name = "load"

    def run(self, session: Session) -> Iterator[Step]:
        e, fio_target = session.evidence, session.ctx.fio_target
        opts = session.options
        session.settle()  # what other probes began (ssh connections) ends before the load
        step, before = session.tell_all("perf", "dump")
        yield step
        workloads: dict[str, dict] = {}
        qd1, since = [(*QD1_WRITE, opts.qd1_seconds)], time.time() - 1.0
        step, results = self._fio(session, qd1, fio_target.options)
        yield session.measured(step)
        workloads.update(results)
        (s1, qd1_after), (s2, hists) = session.ceph_many(
            ("tell", "osd.*", "perf", "dump"), ("tell", "osd.*", "dump_historic_ops")
        )
        yield s1
        yield s2
        for osd, hist in hists.items():
            summary = evidence.historic_writes(hist or {}, since)
            if summary and osd in e["osds"]:
                e["osds"][osd]["historic_qd1_write"] = summary
        rest = [
            (*job, opts.seconds(job[0])) for job in REST if not opts.quick or job[0] in QUICK_REST
        ]
        with OsdCpu(session.conn) as cpu:
            step, results = self._fio(session, rest, fio_target.options)
        cpu.record(e, ", ".join(job[0] for job in rest))
        yield session.measured(step)
        workloads.update(results)
        got = session.ceph_many(*AFTER)
        for step, _ in got:
            yield step
        after = got[0][1]
        for osd, info in e["osds"].items():
            if osd in before and osd in after:
                info["load"] = counters.window(before[osd], after[osd])
            if osd in before and osd in qd1_after:
                info["qd1_write"] = counters.window(before[osd], qd1_after[osd])
        e["client"]["workloads"] = workloads
        after_load(session, got[1][1], got[2][1], got[3][1])

    def _fio(
        self,
        session: Session,
        jobs: list[tuple[str, str, int, float]],
        target: dict[str, str],
    ) -> tuple[Step, dict[str, dict]]:
        argv = [
            which("fio"),
            *(f"--{k}={v}" for k, v in target.items()),
            "--bs=4k",
            "--time_based",
            "--output-format=json",
        ]
        for i, (name, rw, qd, seconds) in enumerate(jobs):
            argv += [f"--name={name}", *(["--stonewall"] if i else []), f"--rw={rw}"]
            argv += [f"--iodepth={qd}", f"--runtime={int(seconds * 1000)}ms"]
        env = {**session.ctx.fio_target.env, "CEPH_ARGS": "--rbd_cache=false"}
        started, t0 = now(), time.monotonic()
        try:
            result = run(argv, env=env, timeout=sum(j[3] for j in jobs) + 120)
        except ProcessInterrupted:
            raise Stopped from None
        window = (t0, time.monotonic())
        raw = raw_output("fio", result, started)
        try:
            done = [j.outcome() for j in parse(result.stdout, 0, result.stderr)]
            parsed = {o.name: o for o in done}
            error = "no fio job"
        except ParseError as err:
            parsed, error = {}, str(err)
        outcomes: list[WorkloadOutcome] = []
        figures: dict[str, dict[str, Any]] = {}
        for name, *_ in jobs:
            outcome = parsed.get(name) or WorkloadOutcome(name, error=error)
            outcomes.append(outcome)
            if outcome.results:
                r = outcome.results[0]
                figures[name] = {
                    "iops": r.iops,
                    "lat_mean_us": r.lat_mean_us,
                    "lat_p99_us": r.lat_p99_us,
                }
            else:
                figures[name] = {"error": outcome.error}
        return Step(0, raw, outcomes, [window] * len(outcomes)), figures


class OsdBenchProbe(Probe):
    """``ceph tell osd.N bench`` at 4 MiB and 4 KiB on every OSD, all OSDs at once (so that
    what they share, the machine's CPU or a host's disks, shows in each OSD's figure, as it
    does under a client's load; and the probe takes one OSD's time, not the sum); skipped
    with ``--no-osd-bench`` (it writes into the OSDs)."""

    name = "osd-bench"

    def run(self, session: Session) -> Iterator[Step]:
        if not session.options.osd_bench:
            session.evidence.setdefault("not_checked", []).append(unchecked.OSD_BENCH_SKIPPED.text)
            return
        session.evidence["osd_bench_together"] = True
        for label, total, bs in (
            ("4m", session.options.bench_large_bytes, 4 << 20),
            ("4k", session.options.bench_small_bytes, 4096),
        ):
            steps = together(
                [functools.partial(self._one, session, o, label, total, bs) for o in session.osds]
            )
            for step in steps:
                yield session.measured(step)

    def _one(self, session: Session, osd: int, label: str, total: int, bs: int) -> Step:
        from cephbench.ceph.commands import ceph

        started, t0 = now(), time.monotonic()
        try:
            result = ceph(session.conn, *osd_bench.argv(osd, total, bs), timeout=600, check=False)
        except ProcessInterrupted:
            raise Stopped from None
        name = f"osd.{osd} bench {label}"
        try:
            r = osd_bench.parse(result.stdout, osd)
            r = replace(r, workload=name)
            outcome = WorkloadOutcome(name, (r,))
            info = session.evidence["osds"].get(str(osd))
            if info is not None:
                info[f"bench_{label}"] = {"iops": r.iops, "bytes_per_sec": r.bw_bytes_per_s}
        except ParseError as err:
            outcome = WorkloadOutcome(name, error=str(err))
        return Step(
            0, raw_output("osd-bench", result, started), [outcome], [(t0, time.monotonic())]
        )
