"""Ctrl-C and SIGTERM as cephbench takes them: a KeyboardInterrupt, and counted.

The count is for the one place Python loses an interrupt. A signal that arrives while a
subprocess is being forked runs its handler inside the ``os.fork`` hooks of the parent
(``logging`` registers one), and an exception raised there is printed as "Exception ignored"
and dropped: the Ctrl-C never reaches the code it was meant to stop. :mod:`process` compares
the count before and after it starts a child, and raises the interrupt itself when one came
and did not get through.
"""

from __future__ import annotations

import signal
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_count = 0


def _interrupt(signum: int, _frame: object) -> None:
    global _count
    _count += 1
    raise KeyboardInterrupt


def install() -> None:
    """Make SIGINT and SIGTERM raise KeyboardInterrupt (and be counted). SIGINT is set
    explicitly: a shell starts background jobs with it ignored, and ``kill -INT`` must still
    stop a run cleanly."""
    for s in SIGNALS:
        signal.signal(s, _interrupt)


def count() -> int:
    """How many interrupts have arrived so far."""
    return _count


def raise_if_lost(before: int) -> None:
    """Raise KeyboardInterrupt if an interrupt arrived since ``count()`` was ``before``. Call
    it where the interrupt cannot already have been raised: after a call that returned
    normally. Only the main thread, where signal handlers run, acts on it."""
    if _count != before and threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt
