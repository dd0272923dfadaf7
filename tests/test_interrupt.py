"""Ctrl-C, SIGTERM and SIGKILL: finished workloads survive, nothing is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cephbench.planning.plan import Overrides, make_plan
from cephbench.tools.fio import parse
from cephbench.tools.fio.steps import _finished
from tests.conftest import FIO_DATA, needs_fio
from tests.contract import validate

CEPHBENCH = [sys.executable, "-c", "from cephbench.cli import main; main()"]


def test_only_groups_that_ran_to_their_end_are_kept():
    """fio's own report of a run stopped by SIGINT 3 s into four 1 s groups."""
    jobs = parse((FIO_DATA / "groups4_interrupted.json").read_text())
    plan = make_plan(str(FIO_DATA / "groups4.fio"), Overrides())
    assert [j.name for j in _finished(jobs, plan.jobfile)] == ["seq_wr", "seq_rd"]


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def _wait_for(predicate, what: str, limit: float = 60.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    pytest.fail(f"gave up waiting for {what}")


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def _start(db: Path, bench_dir: Path) -> subprocess.Popen:
    tmp = bench_dir.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.Popen(
        [*CEPHBENCH, "run", "quick", "--target", f"file:{bench_dir}", "--runtime", "2", "--size", "16m"],
        env={**os.environ, "CEPHBENCH_DB": str(db), "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _show(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CEPHBENCH, *args], env={**os.environ, "CEPHBENCH_DB": str(db)},
                          capture_output=True, text=True)


@needs_fio
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_finished_workloads_and_cleans_up(db, bench_dir, sig):
    proc = _start(db, bench_dir)
    (fio_pid, *_) = _wait_for(lambda: _children(proc.pid), "fio to start")
    time.sleep(3)  # seq_wr (2 s) is done, seq_rd is running
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "finished workload(s) kept" in err and "Traceback" not in err
    assert not _alive(fio_pid)
    assert list(bench_dir.iterdir()) == []
    assert list((bench_dir.parent / "tmp").iterdir()) == []  # the run's work directory too
    run = validate(json.loads(_show(db, "show", "last", "--format", "json").stdout))
    assert run["status"] == "aborted"
    names = [r["workload"] for r in run["results"]]
    assert names == ["seq_wr", "seq_rd", "rand_rd", "rand_wr"][: len(names)]
    assert all(r["runtime_s"] >= 1.98 for r in run["results"])


@needs_fio
def test_sigkill_stops_fio_and_the_next_command_says_so(db, bench_dir):
    proc = _start(db, bench_dir)
    _wait_for(lambda: _children(proc.pid), "fio to start")
    _wait_for(lambda: list(bench_dir.iterdir()), "fio to create its data file")
    time.sleep(1)  # the chained jobs are forked and waiting at their gates
    fio_processes = _descendants(proc.pid)
    assert len(fio_processes) >= 3
    proc.kill()
    proc.communicate(timeout=30)
    _wait_for(lambda: not any(_alive(p) for p in fio_processes), "every fio process to stop")
    listing = _show(db, "runs", "--format", "json")
    assert "was interrupted" in listing.stderr and "cephbench cleanup" in listing.stderr
    assert validate(json.loads(listing.stdout))["runs"][0]["status"] == "aborted"
    assert list(bench_dir.iterdir())  # the data file is still there...
    assert list((bench_dir.parent / "tmp").iterdir())  # and the run's work directory
    cleaned = _show(db, "cleanup")
    assert "removed file" in cleaned.stdout and "removed dir" in cleaned.stdout
    assert list(bench_dir.iterdir()) == []  # ...until cleanup removes them
    assert list((bench_dir.parent / "tmp").iterdir()) == []
    assert "Nothing to clean up" in _show(db, "cleanup").stdout
