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

from cephbench.ceph import counters
from cephbench.ceph.tools import CephTools
from cephbench.diagnose import evidence, unchecked
from cephbench.diagnose.cpu_use import BenchThrottling, OsdCpu
from cephbench.diagnose.facts import after_load
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session, parse_loose
from cephbench.diagnose.together import together
from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted, ProcessResult
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
        region = getattr(session.ctx.target, "region", None)
        if region:  # the prefilled part of the image the load ran on (a slow one ends it early)
            e["client"]["load_bytes"] = region
        after_load(session, got[1][1], got[2][1], got[3][1])

    def _fio(
        self,
        session: Session,
        jobs: list[tuple[str, str, int, float]],
        target: dict[str, str],
    ) -> tuple[Step, dict[str, dict]]:
        region = getattr(session.ctx.target, "region", None)
        args = [
            *(f"--{k}={v}" for k, v in target.items()),
            *([f"--size={region}"] if region else []),
            "--bs=4k",
            "--time_based",
            "--output-format=json",
        ]
        for i, (name, rw, qd, seconds) in enumerate(jobs):
            args += [f"--name={name}", *(["--stonewall"] if i else []), f"--rw={rw}"]
            args += [f"--iodepth={qd}", f"--runtime={int(seconds * 1000)}ms"]
        env = {**session.ctx.fio_target.env, "CEPH_ARGS": "--rbd_cache=false"}
        started, t0 = now(), time.monotonic()
        try:
            # fio's rbd engine where the connection's tools are (a release root's own librbd)
            tools = session.ctx.fio_target.tools or CephTools()
            result = tools.run("fio", *args, env=env, timeout=sum(j[3] for j in jobs) + 120)
        except ProcessInterrupted:
            raise Stopped from None
        window = (t0, time.monotonic())
        raw = raw_output("fio", result, started)
        parsed, error = fio_jobs(result)
        outcomes: list[WorkloadOutcome] = []
        figures: dict[str, dict[str, Any]] = {}
        for name, *_ in jobs:
            outcome = parsed.get(name) or WorkloadOutcome(name, error=error)
            outcomes.append(outcome)
            figures[name] = job_figures(outcome)
        return Step(0, raw, outcomes, [window] * len(outcomes)), figures


def fio_jobs(result: ProcessResult) -> tuple[dict[str, WorkloadOutcome], str]:
    """fio's jobs by name, and what a job missing from them failed of (fio's error, or that
    it printed no such job)."""
    try:
        done = [j.outcome() for j in parse(result.stdout, 0, result.stderr)]
    except ParseError as err:
        return {}, str(err)
    return {o.name: o for o in done}, "no fio job"


def job_figures(outcome: WorkloadOutcome) -> dict[str, Any]:
    """A job's IOPS and latencies, as the evidence keeps them; or why it has none."""
    if not outcome.results:
        return {"error": outcome.error}
    r = outcome.results[0]
    return {"iops": r.iops, "lat_mean_us": r.lat_mean_us, "lat_p99_us": r.lat_p99_us}


class OsdBenchProbe(Probe):
    """``ceph tell osd.N bench`` at 4 MiB and 4 KiB on every OSD, all OSDs at once (so that
    what they share, the machine's CPU or a host's disks, shows in each OSD's figure, as it
    does under a client's load; and the probe takes one OSD's time, not the sum); skipped
    with ``--no-osd-bench`` (it writes into the OSDs). On the lab, each OSD's CPU quota
    is watched meanwhile (:class:`~cephbench.diagnose.cpu_use.BenchThrottling`): under its
    own load an OSD short of CPU shows it, whatever the client's load waited on.

    The 4 MiB bench is bounded by time (:func:`next_bench`): each OSD writes a quarter of its
    bytes first, and the rest only if the whole would end within the bound at the rate it
    showed. A slow disk's OSD ends after its quarter (a disk held to 150 IOPS takes 0.4 s a
    4 MiB write, 2 s for 16 MiB); its figure is its bytes over its time, as before. The 4 KiB
    bench stays whole: BlueStore takes its first writes at full speed (deferred, into its
    WAL), so a shorter one would hide a slow disk."""

    name = "osd-bench"

    def run(self, session: Session) -> Iterator[Step]:
        if not session.options.osd_bench:
            session.evidence.setdefault("not_checked", []).append(unchecked.OSD_BENCH_SKIPPED.text)
            return
        session.evidence["osd_bench_together"] = True
        opts = session.options
        for label, total, bs, bound in (
            ("4m", opts.bench_large_bytes, 4 << 20, opts.bench_large_seconds),
            ("4k", opts.bench_small_bytes, 4096, None),
        ):
            t0 = time.monotonic()
            with BenchThrottling(session.conn, label) as throttled:
                done = together(
                    [
                        functools.partial(self._one, session, o, label, total, bs, bound, t0)
                        for o in session.osds
                    ]
                )
            throttled.record(session.evidence)
            for steps, outcome, window in done:
                yield from steps
                session.pending.append((outcome, window))

    def _one(
        self,
        session: Session,
        osd: int,
        label: str,
        total: int,
        bs: int,
        bound: float | None,
        t0: float,
    ) -> tuple[list[Step], WorkloadOutcome, tuple[float, float]]:
        """One OSD's bench of ``total`` bytes (with a time bound: a quarter first, the rest
        if it fits): its steps, its outcome over all it wrote, its window."""
        from cephbench.ceph.commands import ceph

        name = f"osd.{osd} bench {label}"
        steps: list[Step] = []
        figures: list[dict[str, Any]] = []
        size = next_bench(total, bs, 0, 0.0, bound)
        while size > 0:
            started = now()
            try:
                result = ceph(
                    session.conn, *osd_bench.argv(osd, size, bs), timeout=600, check=False
                )
            except ProcessInterrupted:
                raise Stopped from None
            steps.append(Step(0, raw_output("osd-bench", result, started), []))
            try:
                osd_bench.parse(result.stdout, osd)  # a bench result, or why there is none
            except ParseError as err:
                return steps, WorkloadOutcome(name, error=str(err)), (t0, time.monotonic())
            figures.append(parse_loose(result.stdout))
            written = int(summed(figures)["bytes_written"])
            size = next_bench(total, bs, written, time.monotonic() - t0, bound)
        window = (t0, time.monotonic())
        r = replace(osd_bench.from_data(summed(figures), f"osd.{osd}"), workload=name)
        info = session.evidence["osds"].get(str(osd))
        if info is not None:
            info[f"bench_{label}"] = {
                "iops": r.iops,
                "bytes_per_sec": r.bw_bytes_per_s,
                "bytes": r.io_bytes,
                "benches": len(figures),
            }
        return steps, WorkloadOutcome(name, (r,)), window


def next_bench(total: int, bs: int, written: int, elapsed: float, bound: float | None) -> int:
    """Bytes an OSD's next bench writes, once it has written ``written`` of ``total`` in
    ``elapsed`` seconds since its phase began: with a time ``bound``, a quarter first (whole
    blocks of ``bs``), then the rest at once if the whole, at the rate shown by then, ends
    within the bound, else none; without one, the whole at once."""
    rest = total - written
    if rest <= 0:
        return 0
    if bound is None:
        return rest
    if written <= 0:
        return min(total, max(bs, total // 4 // bs * bs))
    return rest if elapsed * total / written <= bound else 0


def summed(figures: list[dict[str, Any]]) -> dict[str, Any]:
    """Several ``osd bench`` results of one OSD as one: its bytes over its time (the OSD's
    own ``elapsed_sec``, summed), in the JSON the bench prints."""
    figures = [f.get("osd_bench_results", f) for f in figures]  # Crimson nests them
    if len(figures) == 1:
        return figures[0]
    written = sum(int(f["bytes_written"]) for f in figures)
    # releases before Mimic print no elapsed_sec: their time is their bytes over their rate
    elapsed = sum(
        float(f.get("elapsed_sec") or int(f["bytes_written"]) / float(f["bytes_per_sec"]))
        for f in figures
    )
    bs = int(figures[0]["blocksize"])
    return {
        "bytes_written": written,
        "blocksize": bs,
        "elapsed_sec": elapsed,
        "bytes_per_sec": written / elapsed if elapsed > 0 else 0.0,
        "iops": written / bs / elapsed if elapsed > 0 else 0.0,
    }
