"""Set-up on many hosts at once while the resource log is written from one thread.

Each remote resource is recorded before it is made (the resource log), and the log's SQLite
connection belongs to the thread that opened it. Work on several hosts at once (threads,
one per host) therefore hands its log calls to that thread: :func:`on_hosts` runs ``fn`` for
every host in worker threads, and meanwhile makes every log call they ask for itself, in
the order asked, the worker waiting for its answer. Each host's outcome is kept, failures
too, so that what the others made can still be undone.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar, cast

from cephbench.store import ResourceLog

if TYPE_CHECKING:
    from cephbench.hosts.inventory import Host

T = TypeVar("T")
POLL = 0.02


class _Relay:
    """A stand-in for the resource log in a worker thread: every method call is made by the
    owning thread (at once, when that is the caller)."""

    def __init__(self, log: ResourceLog) -> None:
        self._log = log
        self._owner = threading.get_ident()
        self.calls: queue.Queue[tuple[Callable[..., Any], tuple, dict, Future]] = queue.Queue()

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._log, name)
        if not callable(target):
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            if threading.get_ident() == self._owner:
                return target(*args, **kwargs)
            answer: Future = Future()
            self.calls.put((target, args, kwargs, answer))
            return answer.result()

        return call

    def serve(self, until: Callable[[], bool]) -> None:
        """Make the calls the workers ask for until ``until()`` and none is waiting."""
        while True:
            try:
                target, args, kwargs, answer = self.calls.get(timeout=POLL)
            except queue.Empty:
                if until():
                    return
                continue
            try:
                answer.set_result(target(*args, **kwargs))
            except BaseException as e:  # the worker raises it
                answer.set_exception(e)


def on_hosts(
    hosts: Sequence[Host], log: ResourceLog, fn: Callable[[Host, ResourceLog], T], fanout: int
) -> dict[str, T | BaseException]:
    """``fn(host, log)`` on every host at once (at most ``fanout``), the log calls made from
    this thread; each host's result, or the exception it raised."""
    relay = _Relay(log)
    shared = cast(ResourceLog, relay)
    with ThreadPoolExecutor(max_workers=max(1, min(fanout, len(hosts)))) as pool:
        futures = {h.name: pool.submit(fn, h, shared) for h in hosts}
        relay.serve(lambda: all(f.done() for f in futures.values()))
    out: dict[str, T | BaseException] = {}
    for name, fut in futures.items():
        err = fut.exception()
        out[name] = err if err is not None else fut.result()
    return out
