"""A child started from a thread other than the main one is stopped when cephbench exits.

A run's first reading of the pool (``execution/served.py``) runs in a thread of its own while
the run sets up; a Ctrl-C then ended cephbench and left that thread's ``ceph osd dump``
running in its own session. With the lab taken down after, it waited for its monitor for
good, and the release tier's ``lab down`` found it (CI, Tentacle, Ctrl-C while mounted).
Here the thread's child is a ``sleep`` that writes its pid first; the program ends without
joining the thread, as cephbench's exit after a Ctrl-C does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import alive, wait_for

PROGRAM = """
import os, sys, threading, time
from cephbench.system.process import run
pid_file = sys.argv[1]
child = ["sh", "-c", f"echo $$ > {pid_file}.new; mv {pid_file}.new {pid_file}; exec sleep 60"]
threading.Thread(target=run, args=(child,), daemon=True).start()
while not os.path.exists(pid_file):
    time.sleep(0.01)
raise KeyboardInterrupt  # the main thread's Ctrl-C, the thread's child still running
"""


def test_a_threads_child_is_stopped_when_the_program_exits(tmp_path: Path):
    pid_file = tmp_path / "pid"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(pid_file)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")},
    )
    assert "KeyboardInterrupt" in done.stderr, done.stderr
    pid = int(pid_file.read_text())
    wait_for(lambda: not alive(pid), f"the thread's child (pid {pid}) to be stopped", timeout=10)
