"""Ctrl-C, SIGTERM and SIGKILL: finished workloads survive, nothing is left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.contract import validate
from tests.helpers import (
    CEPHBENCH,
    alive,
    chain_events,
    children,
    descendants,
    needs_fio,
    wait_for,
)
from tests.helpers import cephbench_cli as _show


def _start(db: Path, bench_dir: Path) -> subprocess.Popen:
    tmp = bench_dir.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    return subprocess.Popen(
        [
            *CEPHBENCH,
            "run",
            "quick",
            "--target",
            f"file:{bench_dir}",
            "--runtime",
            "2",
            "--size",
            "16m",
        ],
        env={**os.environ, "CEPHBENCH_DB": str(db), "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@needs_fio
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_keeps_finished_workloads_and_cleans_up(db, bench_dir, sig):
    proc = _start(db, bench_dir)
    (fio_pid, *_) = wait_for(lambda: children(proc.pid), "fio to start")
    wait_for(lambda: 0 in chain_events(bench_dir.parent / "tmp"), "seq_wr to finish")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Interrupted: run 1 stopped during workload " in err and "Traceback" not in err
    assert "  Kept: " in err and "stored as run 1 (status aborted)" in err
    assert not alive(fio_pid)
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
    wait_for(lambda: children(proc.pid), "fio to start")
    wait_for(lambda: list(bench_dir.iterdir()), "fio to create its data file")
    # the chained jobs are forked and waiting at their gates: fio and its four job processes
    fio_processes = wait_for(
        lambda: d if len(d := descendants(proc.pid)) >= 5 else None, "fio's job processes to start"
    )
    proc.kill()
    proc.communicate(timeout=30)
    wait_for(lambda: not any(alive(p) for p in fio_processes), "every fio process to stop")
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
