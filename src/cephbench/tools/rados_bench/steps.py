"""The ``rados`` and ``osd`` suites: each step one tool invocation, its output parsed into
the same result rows fio produces, with the raw output and any time series kept."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from cephbench.ceph.commands import ceph, ceph_json, rados_argv
from cephbench.ceph.connection import Connection
from cephbench.ceph.objects import remove_bench_objects
from cephbench.errors import Interrupted, ParseError
from cephbench.store import RawOutput, ResourceLog, WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted, ProcessResult, run
from cephbench.tools.osd_bench import driver as osd_bench
from cephbench.tools.rados_bench import driver as rados_bench

DEFAULT_CONCURRENT = 16
DEFAULT_OBJECT_SIZE = 4 << 20


@dataclass(frozen=True)
class Step:
    """What one tool invocation left: raw output, workloads, per-second series, its window."""

    raw: RawOutput
    outcomes: list[WorkloadOutcome]
    windows: list[tuple[float, float]]
    series: list[tuple[str, str, list[list[float]]]] = field(default_factory=list)
    """(workload, name, [[seconds, value], ...])"""


@dataclass(frozen=True)
class StepContext:
    conn: Connection
    run_id: int
    repeat: int
    resources: ResourceLog
    pool: str | None
    options: dict
    runtime: float | None
    before_each: Callable[[], None] = lambda: None
    """Called before each workload (``--drop-caches``)."""


class StepInterrupted(Interrupted):
    """Ctrl-C during a step; ``step`` is what it left (stored before the run stops)."""

    def __init__(self, step: Step | None):
        super().__init__("interrupted")
        self.step = step


def _raw(tool: str, result: ProcessResult, started: str) -> RawOutput:
    return RawOutput(tool, result.argv, None, result.stdout, result.stderr, result.returncode,
                     started, result.seconds)


def _timed(argv: list[str], conn: Connection, timeout: float) -> tuple[ProcessResult, str, float, float]:
    started, t0 = now(), time.monotonic()
    try:
        result = run(argv, env=conn.env, timeout=timeout)
    except ProcessInterrupted:
        raise StepInterrupted(None) from None
    return result, started, t0, time.monotonic()


@contextmanager
def bench_objects(ctx: StepContext, run_name: str) -> Iterator[None]:
    """The objects ``rados bench write --no-cleanup`` leaves: recorded first, always removed."""
    rid = ctx.resources.add("rados_objects", f"{ctx.pool}/{run_name}", {"conn": ctx.conn.to_json()})
    try:
        yield
    finally:
        remove_bench_objects(ctx.conn, ctx.pool, run_name)
        ctx.resources.removed(rid)


def rados_steps(ctx: StepContext) -> Iterator[Step]:
    """write (objects kept), seq, rand; then the objects are removed."""
    concurrent = int(ctx.options.get("concurrent") or DEFAULT_CONCURRENT)
    size = int(ctx.options.get("object_size") or DEFAULT_OBJECT_SIZE)
    run_name = str(ctx.options.get("run_name") or f"cephbench-{ctx.run_id}-{ctx.repeat}")
    seconds = max(1, int(ctx.runtime or 60))
    with bench_objects(ctx, run_name):
        for mode in rados_bench.MODES:
            ctx.before_each()
            args = rados_bench.argv(ctx.pool, mode, seconds, concurrent=concurrent,
                                    object_size=size, run_name=run_name)
            result, started, t0, t1 = _timed(rados_argv(ctx.conn, *args), ctx.conn, seconds * 3 + 120)
            raw = _raw("rados-bench", result, started)
            try:
                if result.returncode != 0:
                    raise ParseError(f"rados bench {mode} failed: {result.last_error_line()}")
                out = rados_bench.parse(result.stdout, mode)
            except ParseError as e:
                yield Step(raw, [WorkloadOutcome(mode, error=str(e))], [(t0, t1)])
                if mode == "write":
                    return  # nothing to read back
                continue
            series = [] if not out.series else [(mode, "bw_bytes_per_s", [[p[0], p[1]] for p in out.series]),
                      (mode, "lat_avg_us", [[p[0], p[2] * 1e6] for p in out.series])]
            yield Step(raw, [WorkloadOutcome(mode, (rados_bench.to_result(out, ctx.repeat, concurrent),))],
                       [(t0, t1)], series)


def osd_steps(ctx: StepContext) -> Iterator[Step]:
    """``ceph tell osd.N bench`` for every up OSD, one at a time (they would share disks)."""
    total = int(ctx.options.get("total_bytes") or osd_bench.DEFAULT_BYTES)
    bs = int(ctx.options.get("bs") or osd_bench.DEFAULT_BS)
    for osd in osd_bench.up_osds(ceph_json(ctx.conn, "osd", "dump")):
        ctx.before_each()
        started, t0 = now(), time.monotonic()
        try:
            result = ceph(ctx.conn, *osd_bench.argv(osd, total, bs), timeout=max(600, ctx.conn.timeout),
                          check=False)
        except ProcessInterrupted:
            raise StepInterrupted(None) from None
        raw, name = _raw("osd-bench", result, started), f"osd.{osd}"
        try:
            if result.returncode != 0:
                raise ParseError(f"ceph tell {name} bench failed: {result.last_error_line()}")
            outcome = WorkloadOutcome(name, (osd_bench.parse(result.stdout, osd, ctx.repeat),))
        except ParseError as e:
            outcome = WorkloadOutcome(name, error=str(e))
        yield Step(raw, [outcome], [(t0, time.monotonic())])


def osd_details(conn: Connection) -> dict[str, dict]:
    """Host, device class and model of every OSD (kept in the run's environment)."""
    return osd_bench.osd_info(ceph_json(conn, "osd", "metadata") or [], ceph_json(conn, "osd", "tree") or {})
