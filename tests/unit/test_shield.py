"""Ctrl-C (a real SIGINT to this process) inside a shielded block waits for the block's end;
and a stopped child's whole process group is gone before the helper returns."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from cephbench.errors import Interrupted
from cephbench.resources.shield import deferred_interrupts, shielded_exit
from cephbench.system.pids import running
from cephbench.system.process import ProcessInterrupted, run


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt here, as `cephbench`'s main makes it: a test run
    started in the background (``make test &``, nohup) inherits SIGINT ignored, and Python
    then leaves it ignored."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.fio  # starts real processes
def test_ctrl_c_in_a_shielded_block_is_raised_after_it():
    done = []
    with pytest.raises(Interrupted), deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        with deferred_interrupts():  # nested: the outermost block raises
            os.kill(os.getpid(), signal.SIGTERM)
        run(["true"], timeout=10)  # a child started meanwhile runs to its end
        done.append(True)
    assert done == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


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


GRANDCHILD = """
import os, signal, sys, time
signal.signal(signal.SIGINT, lambda *a: (time.sleep(1.0), os._exit(0)))
open(sys.argv[1], "w").write(str(os.getpid()))
while True:
    time.sleep(0.05)
"""


@pytest.mark.fio  # starts real processes
def test_a_stopped_childs_whole_process_group_is_gone(tmp_path: Path):
    """The child exits at once on SIGINT; its own child takes a second: `run` waits for it."""
    ready = tmp_path / "grandchild.pid"
    script = f"{sys.executable} -c '{GRANDCHILD}' {ready} & exec sleep 60"

    def interrupt_when_ready() -> None:
        while not ready.exists() or not ready.read_text():
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt_when_ready, daemon=True).start()
    with pytest.raises(ProcessInterrupted) as stopped:
        run(["sh", "-c", script], timeout=60, interrupt_signal=signal.SIGINT, grace=10)
    grandchild = int(ready.read_text())
    assert not running(grandchild)
    assert stopped.value.result.seconds >= 1.0  # it waited for the grandchild's second
