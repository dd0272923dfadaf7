"""Ctrl-C (a real SIGINT to this process) in a shielded block: an exception leaving the block
wins, and the whole clean-up runs (with child processes: tests/fio/test_shield.py)."""

from __future__ import annotations

import os
import signal

import pytest

from cephbench.errors import Interrupted
from cephbench.resources.shield import deferred_interrupts, shielded_exit


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt here, as `cephbench`'s main makes it: a test run
    started in the background (``make test &``, nohup) inherits SIGINT ignored, and Python
    then leaves it ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_an_exception_leaving_the_block_wins_over_a_held_ctrl_c():
    with pytest.raises(ValueError), deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        raise ValueError("boom")


def test_shielded_exit_runs_the_whole_cleanup():
    steps = []

    class Cleanup:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("cleaned")

    with pytest.raises(Interrupted), shielded_exit(Cleanup()):
        steps.append("body")
    assert steps == ["body", "cleaned"]
