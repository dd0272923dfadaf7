"""What cephbench runs inside a pod, run here with this machine's sh and real fio: the job
file written through stdin and fio started detached in the same call, waited for, its files
read back in one call, SIGINT passed on (fio still reports), and the start gate (its wait in
the shell's integer arithmetic, and what it prints into JOB.prerun.txt, never into fio's
JSON)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

from cephbench.kube import pods
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.fio.jobfile import parse_jobfile
from cephbench.tools.fio.pods import gate_times, with_pod_start_gate
from tests.helpers import needs_fio, wait_for

pytestmark = needs_fio


def sh(script: str, *args: str, stdin: str | None = None) -> str:
    return subprocess.run(
        ["sh", "-c", script, "sh", *args], input=stdin, capture_output=True, text=True,
        check=True, timeout=60,
    ).stdout  # fmt: skip


MARK = "#cb-file-test"


def read(run, *names: str) -> dict[str, str]:
    return pods.split_files(sh(pods._FILES, MARK, str(run), "", *names), MARK)


def catches_sigint(pid_file) -> bool:
    """Whether the process in ``pid_file`` has a handler for SIGINT (``SigCgt`` in its status)."""
    try:
        pid = int(pid_file.read_text())
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, ValueError):
        return False
    caught = next(ln.split()[1] for ln in status.splitlines() if ln.startswith("SigCgt:"))
    return bool(int(caught, 16) & (1 << (signal.SIGINT - 1)))


def test_fio_runs_detached_gated_and_reports(tmp_path):
    run = tmp_path / "run"
    run.mkdir()  # the pod's emptyDir
    (run / "w.prerun.txt").write_text("1.5\n7\n")  # an earlier workload's: emptied
    job = f"[global]\nfilename={tmp_path}/data\nsize=4m\nbs=4k\n[w]\nrw=randwrite\n"
    at = time.time() + 1.0
    text = with_pod_start_gate(parse_jobfile(job), at).render()
    fio = ["fio", "--output-format=json+", "w1.fio"]
    sh(
        pods._LAUNCH, f"{run}/w1.fio", "1", f"{run}/w.prerun.txt", str(run), "w1", *fio, stdin=text
    )  # fmt: skip  (returns at once)
    assert (run / "w1.fio").read_text() == text
    assert sh(pods._WAIT, str(run), "w1").strip() == "0"
    files = read(run, "w1.out", "w.prerun.txt")
    out = files["w1.out"]
    [job_outcome] = fio_parse.parse(out)
    assert job_outcome.results and job_outcome.results[0].total_ios == 1024
    gone, came = gate_times(files["w.prerun.txt"])
    assert len(gone) == 1 and len(came) == 1  # the earlier workload's times were emptied
    assert gone[0] >= at and came[0] <= gone[0]
    assert json.loads(out[out.index("{") :])["jobs"][0]["jobname"] == "w"  # nothing else in it


def test_sigint_reaches_fio_which_still_reports(tmp_path):
    """(A background job of a non-interactive sh ignores SIGINT; fio sets its own handler.)"""
    run = tmp_path / "run"
    run.mkdir()
    job = f"[long]\nfilename={tmp_path}/data\nsize=4m\nrw=randread\ntime_based=1\nruntime=60\n"
    sh(pods._LAUNCH, f"{run}/p.fio", "0", str(run), "p", "fio", "--output-format=json+", "p.fio",
       stdin=job)  # fmt: skip
    try:
        # until fio handles SIGINT: before that the signal is ignored (as the background job of
        # a non-interactive sh), and fio would run its 60 s (on a loaded machine it did)
        wait_for(lambda: catches_sigint(run / "p.pid"), "fio's SIGINT handler")
        wait_for(lambda: (tmp_path / "data").exists(), "fio to lay out its file")
        sh(pods._SIGNAL, "INT", str(run), "p")
        sh(pods._WAIT, str(run), "p")
    finally:  # however the test ends, no fio of its own is left running
        sh(pods._SIGNAL, "KILL", str(run), "p")
    [outcome] = fio_parse.parse(read(run, "p.out")["p.out"])  # its report, at once
    assert outcome.message == "fio: terminating on signal 2"
    assert read(run, "nothing-here") == {"nothing-here": ""}
