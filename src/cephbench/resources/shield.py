"""Steps a Ctrl-C must not cut in two: record-then-begin, create-then-tag, undo-then-mark, the
whole clean-up.

Inside :func:`deferred_interrupts`, SIGINT and SIGTERM are noted instead of raising; when the
outermost such block ends, a noted signal becomes :class:`Interrupted` (unless an exception is
already on its way out, which stops the run anyway). Every step inside has a timeout, so the
wait is bounded; SIGKILL still stops cephbench at once (``cephbench cleanup`` then finishes).
Signal handlers belong to the main thread: elsewhere the block runs unshielded.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from cephbench.errors import Interrupted
from cephbench.system.interrupts import SIGNALS

if TYPE_CHECKING:
    from cephbench.store import ResourceLog

_held: list[int] | None = None
"""Signals noted while a shielded block runs; None when none runs."""

T = TypeVar("T")


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Run the block to its end; a Ctrl-C or SIGTERM that came meanwhile is raised after it."""
    global _held
    if _held is not None or threading.current_thread() is not threading.main_thread():
        yield  # nested: the outermost block decides
        return
    held: list[int] = []
    previous = {s: signal.signal(s, lambda signum, _frame: held.append(signum)) for s in SIGNALS}
    _held = held
    try:
        yield
    finally:
        _held = None
        for s, handler in previous.items():
            signal.signal(s, handler)
    if held:
        raise Interrupted("interrupted")


class shielded_exit(AbstractContextManager):
    """``cm`` entered as usual, its exit (the clean-up) run under :func:`deferred_interrupts`."""

    def __init__(self, cm: AbstractContextManager[T]):
        self.cm = cm

    def __enter__(self) -> Any:
        return self.cm.__enter__()

    def __exit__(self, *exc: Any) -> bool | None:
        with deferred_interrupts():
            return self.cm.__exit__(*exc)


@contextmanager
def recorded(
    resources: ResourceLog, kind: str, name: str, detail: dict[str, Any] | None = None
) -> Iterator[int]:
    """``kind``/``name`` recorded in ``resources`` for the block (its id yielded), marked
    removed after it: the block's own ``finally`` undoes the thing first.

    The record and the block's start are one step. A Ctrl-C that came while the record was
    written (an fsync, so milliseconds) is raised once the block's ``finally`` is armed, not
    between the two, where it left the record open with nothing to undo it."""
    rid = None
    try:
        with deferred_interrupts():
            rid = resources.add(kind, name, detail)
        yield rid
    finally:
        if rid is not None:
            resources.removed(rid)
