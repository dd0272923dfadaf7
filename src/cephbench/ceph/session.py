"""What a run on a Ceph cluster adds around the benchmark: a health check before it, the
cluster's fingerprint, ``--quiesce``, and health samples that become validity flags."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace

from cephbench.ceph import fingerprint, health
from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.ceph.quiesce import quiesced
from cephbench.errors import CephbenchError
from cephbench.model import Result, Series, WorkloadOutcome
from cephbench.store import ResourceLog, Store


@dataclass(frozen=True)
class HealthOptions:
    allow_unhealthy: bool = False
    quiesce: bool = False
    interval: float = health.DEFAULT_INTERVAL
    """Seconds between ``ceph status`` samples during the run."""


SETTLE_SECONDS = 30.0


def preflight(conn: Connection, opts: HealthOptions, settle: float = SETTLE_SECONDS) -> dict:
    """Reach the cluster (within the connection's timeout) and refuse an unhealthy one.

    PGs that are only passing through (a pool just created: unknown, creating, peering) get
    ``settle`` seconds to become active+clean before the run is refused.
    """
    deadline = time.monotonic() + settle
    while True:
        status = ceph_json(conn, "status")
        reason = health.refuse_reason(status)
        if (
            not reason
            or opts.allow_unhealthy
            or not health.settling(status)
            or time.monotonic() > deadline
        ):
            break
        time.sleep(1.0)
    if reason and not opts.allow_unhealthy:
        raise CephbenchError(
            f"not benchmarking: {reason}",
            hint="wait for HEALTH_OK (ceph -s), or pass --allow-unhealthy",
        )
    return status


def check_beside_preflight(
    conn: Connection, opts: HealthOptions, check: Callable[[], None]
) -> dict:
    """``check()`` (the target's own: may this client create a pool?) and :func:`preflight`
    at once, as each ``ceph`` call is a process of its own; ``check``'s error comes first."""
    with ThreadPoolExecutor(1, thread_name_prefix="preflight") as pool:
        health = pool.submit(preflight, conn, opts)
        check()
        return health.result()


class CephRun:
    """The live part: the sampler, flags for a window of the run, and the cluster's
    fingerprint as collected at the start (``facts``: what tools may read instead of asking
    the cluster again)."""

    def __init__(self, sampler: health.Sampler, facts: dict | None = None):
        self.sampler = sampler
        self.facts = facts or {}

    def flag(
        self, outcomes: list[WorkloadOutcome], windows: list[tuple[float, float]]
    ) -> list[WorkloadOutcome]:
        """Each workload's results with the flags of the samples in its (start, end) window."""
        self.sampler.sample()
        out = []
        for o, (start, end) in zip(outcomes, windows, strict=True):
            extra = self.sampler.flags_between(start, end)
            out.append(replace(o, results=tuple(_with_flags(r, extra) for r in o.results)))
        return out


def _with_flags(r: Result, extra: tuple[str, ...]) -> Result:
    return replace(r, flags=tuple(dict.fromkeys((*r.flags, *extra)))) if extra else r


@contextmanager
def ceph_run(
    store: Store,
    run_id: int,
    conn: Connection,
    resources: ResourceLog,
    opts: HealthOptions,
    pool: str | None,
    ahead: Future[dict] | None = None,
) -> Iterator[CephRun]:
    """Fingerprint stored (``ahead``: the one the target began as its pool became ready),
    scrubs held off if asked, health sampled while the block runs."""
    facts = fingerprint.take(ahead) if ahead is not None else fingerprint.collect(conn)
    store.save_fingerprint(run_id, facts, pool)
    started = time.monotonic()
    with ExitStack() as stack:
        if opts.quiesce:
            stack.enter_context(quiesced(conn, resources))
        sampler = health.Sampler(conn, opts.interval)
        status = facts.get("status")
        if not opts.quiesce and isinstance(status, dict) and "health" in status:
            sampler.seed(status)  # read a moment ago: the first sample (--quiesce changes flags)
        try:
            with sampler:
                yield CephRun(sampler, facts)
        finally:
            t_s = [round(s.t - started, 3) for s in sampler.samples]
            samples = [{"flags": sorted(s.flags), **s.summary} for s in sampler.samples]
            store.add_series(run_id, [Series(0, "", "", "health", t_s, samples)])
