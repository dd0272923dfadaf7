"""Running things on many hosts at once: at most ``DEFAULT_FANOUT`` calls together, results in
order, a Ctrl-C that stops what the calls wait on before it stops them."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from cephbench.hosts.ssh import DEFAULT_FANOUT
from cephbench.tools.base import Stopped

T = TypeVar("T")
PROBE_TIMEOUT = 30.0
"""Seconds a probe (``ip``, ``ss``, ``ping``) may take on a host."""


def together(
    calls: list[Callable[[], T]], on_interrupt: Callable[[], None] = lambda: None
) -> list[T]:
    """Every call at once (at most DEFAULT_FANOUT), results in order; the first error raised
    once all have ended. Ctrl-C runs ``on_interrupt`` (stop the servers, so that clients
    end), waits for the calls, then raises Stopped."""
    if not calls:
        return []
    pool = ThreadPoolExecutor(max_workers=min(DEFAULT_FANOUT, len(calls)))
    futures: list[Future[T]] = [pool.submit(c) for c in calls]
    try:
        while not all(f.done() for f in futures):
            wait(futures, timeout=0.2, return_when=FIRST_EXCEPTION)
    except KeyboardInterrupt:
        on_interrupt()
        pool.shutdown(wait=True, cancel_futures=True)
        raise Stopped from None
    pool.shutdown(wait=True)
    for f in futures:
        if (e := f.exception()) is not None:
            raise e
    return [f.result() for f in futures]


def bind(fn: Callable[..., T], *args: object) -> Callable[[], T]:
    return lambda: fn(*args)
