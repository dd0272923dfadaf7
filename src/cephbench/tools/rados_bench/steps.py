"""The ``rados`` suite: rados bench write (its objects kept), seq and rand reads of them, then
the objects removed. Each mode is one invocation, its output parsed into the same result rows
fio produces, with the raw output and the per-second table kept."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from cephbench.ceph.commands import rados_argv
from cephbench.ceph.objects import remove_bench_objects
from cephbench.errors import ParseError
from cephbench.model import WorkloadOutcome
from cephbench.resources.shield import recorded
from cephbench.targets.cluster import CephTarget
from cephbench.tools.base import RunContext, Step, raw_output, timed
from cephbench.tools.rados_bench import driver as rados_bench

DEFAULT_CONCURRENT = 16
DEFAULT_OBJECT_SIZE = 4 << 20


def _pool(ctx: RunContext) -> str:
    """The pool of the run's ``rados:`` target, set when its session started."""
    target = ctx.target
    assert isinstance(target, CephTarget) and target.pool is not None, (
        "a rados target's session sets its pool"
    )
    return target.pool


@contextmanager
def bench_objects(ctx: RunContext, run_name: str) -> Iterator[None]:
    """The objects ``rados bench write --no-cleanup`` leaves: recorded first, always removed."""
    pool = _pool(ctx)
    with recorded(
        ctx.resources, "rados_objects", f"{pool}/{run_name}", {"conn": ctx.conn.to_json()}
    ):
        try:
            yield
        finally:
            remove_bench_objects(ctx.conn, pool, run_name)


def rados_steps(ctx: RunContext, repeat: int) -> Iterator[Step]:
    """write (objects kept), seq, rand; then the objects are removed."""
    options, pool = ctx.plan.options, _pool(ctx)
    concurrent = int(options.get("concurrent") or DEFAULT_CONCURRENT)
    size = int(options.get("object_size") or DEFAULT_OBJECT_SIZE)
    run_name = str(options.get("run_name") or f"cephbench-{ctx.run_id}-{repeat}")
    seconds = max(1, int(ctx.plan.runtime or 60))
    with bench_objects(ctx, run_name):
        for mode in rados_bench.MODES:
            ctx.before_each()
            args = rados_bench.argv(
                pool, mode, seconds, concurrent=concurrent, object_size=size, run_name=run_name
            )
            result, started, t0, t1 = timed(
                rados_argv(ctx.conn, *args), ctx.conn.env, seconds * 3 + 120
            )
            raw = raw_output("rados-bench", result, started)
            try:
                if result.returncode != 0:
                    raise ParseError(f"rados bench {mode} failed: {result.last_error_line()}")
                out = rados_bench.parse(result.stdout, mode)
            except ParseError as e:
                yield Step(repeat, raw, [WorkloadOutcome(mode, error=str(e))], [(t0, t1)])
                if mode == "write":
                    return  # nothing to read back
                continue
            points = (
                []
                if not out.series
                else [
                    (mode, "bw_bytes_per_s", [[p[0], p[1]] for p in out.series]),
                    (mode, "lat_mean_us", [[p[0], p[2] * 1e6] for p in out.series]),
                ]
            )
            result_row = rados_bench.to_result(out, repeat, concurrent)
            yield Step(
                repeat, raw, [WorkloadOutcome(mode, (result_row,))], [(t0, t1)], points=points
            )
