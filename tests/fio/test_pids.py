"""system.pids: a zombie has stopped running but still exists; a gone pid is neither."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cephbench.system.pids import exists, running
from tests.helpers import wait_for


def test_a_zombie_exists_but_no_longer_runs_and_a_reaped_pid_is_gone():
    proc = subprocess.Popen(["sleep", "600"])
    try:
        assert running(proc.pid) and exists(proc.pid)
        proc.kill()  # not reaped yet: a zombie until wait()
        wait_for(lambda: not running(proc.pid), "the killed sleep to become a zombie")
        assert exists(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert not running(proc.pid) and not exists(proc.pid)


def test_this_process_runs_and_a_pid_beyond_pid_max_does_not():
    assert running(os.getpid()) and exists(os.getpid())
    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    assert not running(gone) and not exists(gone)
