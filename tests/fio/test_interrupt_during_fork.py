"""A Ctrl-C that arrives while a subprocess is being forked still stops cephbench.

Python runs a signal's handler inside the parent's ``os.fork`` hooks when the signal comes
then, and drops what the handler raises ("Exception ignored in ... _releaseLock"): an A/B
experiment sent SIGINT at that moment ran to its end and exited 0. The hook below sends the
SIGINT at exactly that moment, once; :mod:`cephbench.system.process` must raise it anyway,
after stopping the child it started."""

from __future__ import annotations

import os
import signal

import pytest

from cephbench.system import interrupts
from cephbench.system.process import ProcessInterrupted, run

_armed: list[bool] = []


def _interrupt_once() -> None:
    if _armed:
        _armed.clear()
        os.kill(os.getpid(), signal.SIGINT)


os.register_at_fork(after_in_parent=_interrupt_once)  # cannot be removed: a one-shot


@pytest.fixture
def installed():
    before = {s: signal.getsignal(s) for s in interrupts.SIGNALS}
    interrupts.install()
    yield
    for s, handler in before.items():
        signal.signal(s, handler)


# the "Exception ignored" Python prints for the dropped KeyboardInterrupt: the case itself
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_python_drops_in_a_fork_hook_still_stops_the_run(installed):
    _armed.append(True)
    count = interrupts.count()
    with pytest.raises(ProcessInterrupted):
        # preexec_fn (die_with_parent) is what makes subprocess run the fork hooks
        run(["sleep", "30"], die_with_parent=True, grace=5)
    assert not _armed and interrupts.count() == count + 1


def test_without_an_interrupt_the_run_ends_as_usual(installed):
    assert run(["true"], die_with_parent=True).returncode == 0
