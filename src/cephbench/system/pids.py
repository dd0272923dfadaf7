"""Is a process still there: the two questions cephbench asks of a pid.

``exists`` is for pids recorded by another cephbench (perhaps another user's): is it still
there at all. ``running`` is for processes cephbench stops: a zombie has stopped, even if
its parent has not reaped it yet.
"""

from __future__ import annotations

import os
from pathlib import Path


def exists(pid: int) -> bool:
    """True while ``pid`` exists (also when it belongs to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (or dead) waiting for its parent."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] not in (b"Z", b"X")
