"""signal_until_gone: what the lab's daemons and sshd stop with (real processes, no lab)."""

from __future__ import annotations

import signal
import subprocess
import sys

from cephbench.lab.daemons import signal_until_gone

_STUBBORN = (
    "import signal,sys,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\nwhile True: time.sleep(1)\n"
)


def test_term_then_kill_until_every_process_is_gone():
    polite = subprocess.Popen(["sleep", "600"])
    stubborn = subprocess.Popen([sys.executable, "-c", _STUBBORN], stdout=subprocess.PIPE)
    try:
        assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
        procs = {p.pid: p for p in (polite, stubborn)}
        left = signal_until_gone(procs, lambda pid: procs[pid].poll() is None, grace=0.5)
        assert left == []
        assert polite.returncode == -signal.SIGTERM
        assert stubborn.returncode == -signal.SIGKILL  # it ignored SIGTERM
    finally:
        for p in (polite, stubborn):
            p.kill()
            p.wait()


def test_what_outlives_the_kill_wait_is_returned():
    proc = subprocess.Popen(["sleep", "600"])
    try:
        left = signal_until_gone([proc.pid], lambda pid: True, grace=0, kill_wait=0)
        assert left == [proc.pid]  # "alive" never says gone: reported, not hidden
    finally:
        proc.kill()
        proc.wait()
