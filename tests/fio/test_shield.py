"""Ctrl-C (a real SIGINT to this process) inside a shielded block waits for the block's end,
while a child started meanwhile runs; and a stopped child's whole process group is gone
before the helper returns."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from cephbench.errors import Interrupted
from cephbench.resources.shield import deferred_interrupts
from cephbench.system.pids import running
from cephbench.system.process import ProcessInterrupted, run
from tests.unit import test_shield

ctrl_c_raises = test_shield.ctrl_c_raises  # the pure tests' autouse fixture


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


GRANDCHILD = """
import os, signal, sys, time
signal.signal(signal.SIGINT, lambda *a: (time.sleep(1.0), os._exit(0)))
open(sys.argv[1], "w").write(str(os.getpid()))
while True:
    time.sleep(0.05)
"""


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
