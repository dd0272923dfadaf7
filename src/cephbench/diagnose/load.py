"""The known load: fio's rbd engine, 4k random writes and reads at QD1 and QD32 on the
diagnosis' own image, with every OSD's perf counters read before and after (and around the
QD1 writes alone, for the latency budget); then ``ceph tell osd.N bench`` at 4 MiB and 4 KiB.

fio runs with the librbd cache off (``CEPH_ARGS=--rbd_cache=false``, this process only):
a writeback cache acknowledges QD1 writes from memory and floods the OSDs afterwards, which
hides the cluster's own latency. The client's cache settings are read and reported.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

from cephbench.diagnose import counters, evidence
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted, run, which
from cephbench.tools.base import Step, Stopped, raw_output
from cephbench.tools.fio.parse import parse
from cephbench.tools.osd_bench import driver as osd_bench

WORKLOADS = (
    ("write-4k-qd1", "randwrite", 1),
    ("write-4k-qd32", "randwrite", 32),
    ("read-4k-qd1", "randread", 1),
    ("read-4k-qd32", "randread", 32),
)


def _dumps(session: Session, into: list[dict[str, dict]]) -> Iterator[Step]:
    """Every OSD's ``perf dump``, in one ``ceph tell osd.*``."""
    step, dumps = session.tell_all("perf", "dump")
    yield step
    into.append(dumps)


class ClientLoad(Probe):
    name = "load"

    def run(self, session: Session) -> Iterator[Step]:
        e, fio_target = session.evidence, session.ctx.fio_target
        got: list[dict[str, dict]] = []
        yield from _dumps(session, got)
        workloads: dict[str, dict] = {}
        for name, rw, qd in WORKLOADS:
            step, result = self._fio(session, name, rw, qd, fio_target.options)
            yield session.measured(step)
            workloads[name] = result
            if name == "write-4k-qd1":
                yield from _dumps(session, got)
                step, hists = session.tell_all("dump_historic_ops")
                yield step
                for osd, hist in hists.items():
                    summary = evidence.historic_writes(hist or {})
                    if summary and osd in e["osds"]:
                        e["osds"][osd]["historic_qd1_write"] = summary
        yield from _dumps(session, got)
        before, qd1_after, after = got
        for osd, info in e["osds"].items():
            if osd in before and osd in after:
                info["load"] = counters.window(before[osd], after[osd])
            if osd in before and osd in qd1_after:
                info["qd1_write"] = counters.window(before[osd], qd1_after[osd])
        e["client"]["workloads"] = workloads

    def _fio(
        self, session: Session, name: str, rw: str, qd: int, target: dict[str, str]
    ) -> tuple[Step, dict]:
        argv = [
            which("fio"),
            f"--name={name}",
            *(f"--{k}={v}" for k, v in target.items()),
            f"--rw={rw}",
            "--bs=4k",
            f"--iodepth={qd}",
            f"--runtime={int(session.options.fio_seconds * 1000)}ms",
            "--time_based",
            "--output-format=json",
        ]
        env = {**session.ctx.fio_target.env, "CEPH_ARGS": "--rbd_cache=false"}
        started, t0 = now(), time.monotonic()
        try:
            result = run(argv, env=env, timeout=session.options.fio_seconds + 120)
        except ProcessInterrupted:
            raise Stopped from None
        window = (t0, time.monotonic())
        raw = raw_output("fio", result, started)
        figures: dict = {}
        try:
            jobs = parse(result.stdout, 0, result.stderr)
            outcome = jobs[0].outcome() if jobs else WorkloadOutcome(name, error="no fio job")
        except ParseError as err:
            outcome = WorkloadOutcome(name, error=str(err))
        if outcome.results:
            r = outcome.results[0]
            figures = {"iops": r.iops, "lat_mean_us": r.lat_mean_us, "lat_p99_us": r.lat_p99_us}
        else:
            figures = {"error": outcome.error}
        return Step(0, raw, [outcome], [window]), figures


class OsdBenchProbe(Probe):
    """``ceph tell osd.N bench`` at 4 MiB and 4 KiB on every OSD, one at a time (skipped with
    ``--no-osd-bench``: it writes into the OSDs)."""

    name = "osd-bench"

    def run(self, session: Session) -> Iterator[Step]:
        if not session.options.osd_bench:
            session.evidence.setdefault("not_checked", []).append(
                "osd bench: skipped (--no-osd-bench)"
            )
            return
        for label, total, bs in (
            ("4m", session.options.bench_large_bytes, 4 << 20),
            ("4k", session.options.bench_small_bytes, 4096),
        ):
            for osd in session.osds:
                yield session.measured(self._one(session, osd, label, total, bs))

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
