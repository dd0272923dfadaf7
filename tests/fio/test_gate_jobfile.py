"""A user's job file run by real fio: its stonewall groups gated in one fio process, with
fio's own meaning.

Order is proved from fio's per-I/O latency logs; figures and reporting groups are compared
with fio's own run of the same file, as written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from cephbench.execution.runner import execute
from cephbench.planning.plan import make_plan
from cephbench.store import Store
from cephbench.targets import parse_target
from cephbench.tools.fio import command as fio_command
from cephbench.tools.fio import parse as fio_parse
from cephbench.tools.plan import Overrides
from tests.helpers import chain_events, needs_fio, wait_for

# a and b (two clones) run together; c (size-based) and d (its own reporting group, through
# new_group) run together after them; e after those. Each I/O is logged (no log_avg_msec).
GROUPS = """
[global]
ioengine=null
bs=4k
size=16m
rate_iops=1000
time_based
runtime=600ms
write_lat_log={logs}/lat
log_unix_epoch=1
[a]
rw=randread
[b]
rw=randwrite
numjobs=2
[c]
stonewall
rw=read
time_based=0
size=1m
[d]
new_group
rw=write
exec_postrun=sh -c 'sleep 0.3 && date +%s%3N > {marks}/d.post'
[e]
stonewall
rw=randread
exec_prerun=sh -c 'date +%s%3N > {marks}/e.pre'
exec_postrun=sh -c 'date +%s%3N > {marks}/e.post'
"""


def _span(path) -> tuple[int, int]:
    """First and last completion time (unix ms) of a per-I/O fio latency log."""
    stamps = [int(line.split(",")[0]) for line in path.read_text().splitlines() if line.strip()]
    return min(stamps), max(stamps)


def _mark(path) -> int:
    return int(path.read_text().strip())


def _together(spans: list[tuple[int, int]]) -> bool:
    return max(s for s, _ in spans) < min(e for _, e in spans)


def _as_written(text: str, where) -> dict[str, fio_parse.JobOutcome]:
    """fio's own run of the file, in its own directory."""
    where.mkdir()
    result = fio_command.run_jobfile(text, where, timeout=120)
    assert result.returncode == 0, result.stderr
    return {o.name: o for o in fio_parse.parse(result.stdout)}


def _run(tmp_path, text: str):
    """The file through cephbench: (stored results by workload, fio's report of that run)."""
    job = tmp_path / "mine.fio"
    job.write_text(text)
    (tmp_path / "bench").mkdir()
    with Store(tmp_path / "results.db") as store:
        outcome = execute(
            store, make_plan(str(job), Overrides()), parse_target(f"file:{tmp_path / 'bench'}")
        )
        run = store.get_run(outcome.run_id)
        (output,) = store.outputs(outcome.run_id)
    assert run.status == "complete"
    return {r.workload: r for r in run.results}, output


@needs_fio
def test_groups_run_in_order_jobs_of_a_group_together_and_figures_match_fio(tmp_path):
    logs, marks = tmp_path / "logs", tmp_path / "marks"
    logs.mkdir()
    marks.mkdir()
    text = GROUPS.format(logs=logs, marks=marks)
    results, output = _run(tmp_path, text)
    assert "exec_prerun=flock --shared gate.2 true && sh -c" in output["input_text"]  # gated

    # fio numbers the logs by job in file order: a=1, b=2 and 3, c=4, d=5, e=6
    spans = {int(p.name.split(".")[1]): _span(p) for p in logs.glob("lat_lat.*.log")}
    first, second, third = [spans[1], spans[2], spans[3]], [spans[4], spans[5]], [spans[6]]
    assert _together(first) and _together(second)
    assert max(e for _, e in first) <= min(s for s, _ in second)
    assert max(e for _, e in second) <= min(s for s, _ in third)
    # the user's hooks ran, in fio's order: d's postrun (0.3 s) ended before e's gate opened
    assert max(e for _, e in second) <= _mark(marks / "d.post") <= _mark(marks / "e.pre")
    assert _mark(marks / "e.pre") <= spans[6][0] and spans[6][1] <= _mark(marks / "e.post")

    gated = {o.name: o for o in fio_parse.parse(output["stdout"])}
    for path in (*logs.iterdir(), *marks.iterdir()):
        path.unlink()
    plain = _as_written(text, tmp_path / "plain")
    assert list(gated) == list(plain) == list(results) == ["a", "b", "c", "d", "e"]
    groups = [o.groupid for o in gated.values()]
    assert groups == [o.groupid for o in plain.values()] == [0, 0, 1, 2, 3]
    for name, ours in results.items():
        theirs = plain[name].results[0]
        assert (ours.numjobs, ours.op) == (theirs.numjobs, theirs.op)
        assert ours.iops == pytest.approx(theirs.iops, rel=0.3), name  # rate-limited: ~1000
    assert results["c"].runtime_s < 0.5  # size-based: 1 MiB at 1000 IOPS, well before 600 ms


GROUP_REPORTING = """
[global]
ioengine=null
size=1m
bs=4k
group_reporting
[a]
rw=randread
numjobs=2
[b]
rw=randread
[c]
stonewall
rw=randwrite
numjobs=2
[d]
rw=read
new_group
"""


@needs_fio
def test_group_reporting_still_reports_one_aggregate_per_group(tmp_path):
    results, output = _run(tmp_path, GROUP_REPORTING)
    assert "gate.1" in output["input_text"]
    plain = _as_written(GROUP_REPORTING, tmp_path / "plain")
    gated = fio_parse.parse(output["stdout"])
    # fio names a reporting group after its first job: a is a (x2) with b, c is c (x2), d is d
    assert (
        [(o.name, o.groupid) for o in gated]
        == [(o.name, o.groupid) for o in plain.values()]
        == [("a", 0), ("c", 1), ("d", 2)]
    )
    assert list(results) == ["a", "c", "d"]
    # size-based, so exact whatever the machine's load: 256 I/Os a job, summed per group
    for name, jobs in (("a", 3), ("c", 2), ("d", 1)):
        assert results[name].total_ios == plain[name].results[0].total_ios == 256 * jobs


# a (size-based) with b, then c, then d (size-based, 4 s), then e
INTERRUPTED = """
[global]
ioengine=null
size=16m
rate_iops=1000
[a]
rw=read
size=256k
[b]
rw=write
time_based
runtime=300ms
[c]
stonewall
rw=randread
time_based
runtime=300ms
[d]
stonewall
rw=read
[e]
stonewall
rw=write
size=64k
"""


@needs_fio
def test_ctrl_c_keeps_the_groups_that_finished(tmp_path):
    job, bench, tmp = tmp_path / "mine.fio", tmp_path / "bench", tmp_path / "tmp"
    job.write_text(INTERRUPTED)
    bench.mkdir()
    tmp.mkdir()
    env = {**os.environ, "CEPHBENCH_DB": str(tmp_path / "results.db"), "TMPDIR": str(tmp)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cephbench.console import main; main()",
            "run",
            str(job),
            "--target",
            f"file:{bench}",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: 1 in chain_events(tmp) or proc.poll() is not None, "group c to finish")
    assert proc.poll() is None, "the run ended before group c finished"
    proc.send_signal(signal.SIGINT)  # d is running: c has reported, and d takes 4 s
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cephbench.console import main; main()",
            "show",
            "last",
            "--format",
            "json",
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    run = json.loads(shown.stdout)
    assert run["status"] == "aborted"
    # d did I/O but was cut short; e never started (nor ran after the gates opened at the end)
    assert [r["workload"] for r in run["results"]] == ["a", "b", "c"]
    assert list(bench.iterdir()) == [] and list(tmp.iterdir()) == []
