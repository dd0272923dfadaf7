"""What tests share beyond fixtures: waiting on a condition (never on the clock), the
processes a command started, and the cephbench CLI as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
CEPHBENCH = [sys.executable, "-c", "from cephbench.cli import main; main()"]


def wait_for(predicate: Callable[[], T], what: str, timeout: float = 60.0, poll: float = 0.05) -> T:
    """``predicate()``'s first truthy value; fails the test naming ``what`` after ``timeout``
    seconds. The timeout only bounds a hang: tests wait on the condition, not on the clock."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"gave up after {timeout:g} s waiting for {what}"
        time.sleep(poll)
    return value


def children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def chain_events(tmp: Path) -> list[int]:
    """Workloads finished so far by the chained fio processes of runs whose TMPDIR is ``tmp``:
    one entry per clone's ``exec_postrun`` (see tools/fio/chain.py)."""
    done = []
    for events in tmp.glob("cephbench-run-*/*/events"):
        try:
            done += [int(x) for x in events.read_text().split()]
        except (OSError, ValueError):
            continue
    return done


def cephbench_cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CEPHBENCH, *args], env={**os.environ, "CEPHBENCH_DB": str(db)},
                          capture_output=True, text=True)
