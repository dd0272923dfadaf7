"""What cephbench runs inside a pod, run here with this machine's sh and real fio: the job
file written through stdin, fio started detached and waited for, SIGINT passed on (fio still
reports), and the start gate (its wait in the shell's integer arithmetic, and what it prints
into JOB.prerun.txt, never into fio's JSON)."""

from __future__ import annotations

import json
import subprocess
import time

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


def test_fio_runs_detached_gated_and_reports(tmp_path):
    run = tmp_path / "run"
    run.mkdir()  # the pod's emptyDir
    (run / "w.prerun.txt").write_text("1.5\n7\n")  # an earlier workload's: emptied
    job = f"[global]\nfilename={tmp_path}/data\nsize=4m\nbs=4k\n[w]\nrw=randwrite\n"
    at = time.time() + 1.0
    text = with_pod_start_gate(parse_jobfile(job), at).render()
    sh(pods._WRITE, f"{run}/w1.fio", f"{run}/w.prerun.txt", stdin=text)
    assert (run / "w1.fio").read_text() == text
    assert (run / "w.prerun.txt").read_text() == ""
    sh(pods._START, str(run), "w1", "fio", "--output-format=json+", "w1.fio")  # returns at once
    assert sh(pods._WAIT, str(run), "w1").strip() == "0"
    out = sh(pods._READ, f"{run}/w1.out")
    [job_outcome] = fio_parse.parse(out)
    assert job_outcome.results and job_outcome.results[0].total_ios == 1024
    gone, came = gate_times(sh(pods._READ, f"{run}/w.prerun.txt"))
    assert len(gone) == 1 and len(came) == 1
    assert gone[0] >= at and came[0] <= gone[0]
    assert json.loads(out[out.index("{") :])["jobs"][0]["jobname"] == "w"  # nothing else in it


def test_sigint_reaches_fio_which_still_reports(tmp_path):
    """(A background job of a non-interactive sh ignores SIGINT; fio sets its own handler.)"""
    run = tmp_path / "run"
    run.mkdir()
    job = f"[long]\nfilename={tmp_path}/data\nsize=4m\nrw=randread\ntime_based=1\nruntime=60\n"
    sh(pods._WRITE, f"{run}/p.fio", stdin=job)
    sh(pods._START, str(run), "p", "fio", "--output-format=json+", "p.fio")
    wait_for(lambda: (run / "p.pid").exists(), "fio's pid")
    wait_for(lambda: (tmp_path / "data").exists(), "fio to lay out its file")
    sh(pods._SIGNAL, "INT", str(run), "p")
    sh(pods._WAIT, str(run), "p")
    [outcome] = fio_parse.parse(sh(pods._READ, f"{run}/p.out"))  # its report, at once
    assert outcome.message == "fio: terminating on signal 2"
    assert sh(pods._READ, f"{run}/nothing-here") == ""
