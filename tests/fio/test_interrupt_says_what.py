"""A real `cephbench run` on a file target stopped by a real SIGINT says what it stopped (which
workload of how many), what it kept (as which run, status aborted) and what it removed (the
run's work directory and data file); `show` of the aborted run says why it has no (or few)
figures. The stage is reached by waiting on what the run leaves (its data file, fio's chain
events), never on the clock. Stages a file target passes too fast to catch (preparing it,
cleaning up) and what a clean-up could not remove: tests/unit/test_interrupt_says_what.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from tests.contract import validate
from tests.helpers import CEPHBENCH, chain_events, children, needs_fio, wait_for
from tests.helpers import cephbench_cli as _cli

QUICK = ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]


def _start(db: Path, bench_dir: Path) -> tuple[subprocess.Popen, Path]:
    tmp = bench_dir.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    argv = ["run", "quick", "--target", f"file:{bench_dir}", "--runtime", "2", "--size", "16m"]
    proc = subprocess.Popen(
        [*CEPHBENCH, *argv],
        env={**os.environ, "CEPHBENCH_DB": str(db), "TMPDIR": str(tmp)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return proc, tmp


def _stop(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    return err


def _words(text: str) -> str:
    """``text`` with its line breaks and table wrapping gone."""
    return " ".join(text.split())


def _said(err: str) -> list[str]:
    """The lines of the Ctrl-C message (after whatever the run printed before it)."""
    return err[err.index("Interrupted:") :].splitlines()


@needs_fio
def test_ctrl_c_in_the_first_workload_says_nothing_was_kept_and_show_says_why(db, bench_dir):
    proc, tmp = _start(db, bench_dir)
    wait_for(lambda: children(proc.pid), "fio to start")
    wait_for(lambda: list(bench_dir.iterdir()), "fio to create its data file")
    assert not chain_events(tmp), "seq_wr (2 s) finished before the data file was seen"
    err = _stop(proc)
    lines = _said(err)
    assert lines[0] == "Interrupted: run 1 stopped during workload 1 of 4 (seq_wr).", err
    assert lines[1] == "  Kept: nothing finished, so no figures; run 1 is stored as aborted."
    assert lines[2].startswith(f"  Removed: dir {tmp}/cephbench-run-1-")
    assert lines[2].endswith(f", file {bench_dir}/cephbench-1.dat.")
    assert len(lines) == 3, err  # nothing left: no "Not removed" line
    assert list(bench_dir.iterdir()) == [] and list(tmp.iterdir()) == []

    reason = "aborted during workload 1 of 4 (seq_wr): interrupted; nothing finished, so no figures"
    run = validate(json.loads(_cli(db, "show", "last", "--format", "json").stdout))
    assert (run["status"], run["error"], run["results"]) == ("aborted", reason, [])
    assert f"No results: {reason}" in _words(_cli(db, "show", "last").stdout)


@needs_fio
def test_ctrl_c_in_a_later_workload_names_it_and_what_was_kept(db, bench_dir):
    proc, tmp = _start(db, bench_dir)
    wait_for(lambda: 0 in chain_events(tmp), "seq_wr to finish")
    err = _stop(proc)
    run = validate(json.loads(_cli(db, "show", "last", "--format", "json").stdout))
    kept = len(run["results"])
    assert [r["workload"] for r in run["results"]] == QUICK[:kept] and 1 <= kept < 4, err
    stage = f"during workload {kept + 1} of 4 ({QUICK[kept]})"
    figures = "1 workload's figures" if kept == 1 else f"{kept} workloads' figures"
    lines = _said(err)
    assert lines[0] == f"Interrupted: run 1 stopped {stage}.", err
    assert lines[1] == f"  Kept: {figures}, stored as run 1 (status aborted)."
    assert lines[2].startswith(f"  Removed: dir {tmp}/cephbench-run-1-")
    assert lines[2].endswith(f", file {bench_dir}/cephbench-1.dat.")
    assert run["status"] == "aborted"
    assert run["error"] == f"aborted {stage}: interrupted; {figures} kept"
    shown = _cli(db, "show", "last")
    assert f"Run 1 aborted {stage}: interrupted; {figures} kept." in _words(shown.stderr)
