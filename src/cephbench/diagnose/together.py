"""Independent ``ceph`` commands run at once: each ``ceph`` process spends most of its half
second starting Python and reaching the monitors, so seven of them side by side take about
as long as one. Ctrl-C waits for the commands under way (each has its own timeout) and then
stops the diagnosis."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

from cephbench.tools.base import Stopped

T = TypeVar("T")


def together(calls: list[Callable[[], T]]) -> list[T]:
    """Every call's result, in order; the first error raised after all of them ended."""
    if len(calls) <= 1:
        return [c() for c in calls]
    pool = ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="diagnose")
    futures = [pool.submit(c) for c in calls]
    try:
        while wait(futures, timeout=0.2).not_done:
            pass
    except KeyboardInterrupt:
        wait(futures)
        pool.shutdown()
        raise Stopped from None
    pool.shutdown()
    return [f.result() for f in futures]
