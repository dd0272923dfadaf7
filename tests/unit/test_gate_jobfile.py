"""A user's job file: its stonewall groups gated in one fio process, with fio's own meaning;
run by real fio in tests/fio/test_gate_jobfile.py."""

from __future__ import annotations

import pytest

from cephbench.planning.plan import make_plan
from cephbench.tools.fio.chain import links_of, refusal
from cephbench.tools.fio.jobfile import parse_jobfile, phase_of, phases
from cephbench.tools.plan import Overrides


def test_phases_follow_fios_stonewall():
    jf = parse_jobfile("[global]\nstonewall\n[a]\n[b]\n[c]\nstonewall=0\n[d]\nnew_group\n")
    assert [[j.name for j in p] for p in phases(jf)] == [["a"], ["b", "c"], ["d"]]
    jf = parse_jobfile("[a]\nnumjobs=3\n[b]\nwait_for_previous\n[c]\nnumjobs=2\n[d]\nstonewall\n")
    assert phase_of(jf) == {"a": 0, "b": 1, "c": 1, "d": 2}
    assert [(link.name, link.numjobs) for link in links_of(jf)] == [("a", 3), ("b", 3), ("d", 1)]


@pytest.mark.parametrize(
    "option, why",
    [
        ("startdelay=1", "startdelay"),
        ("wait_for=a", "wait_for"),
        ("thread", "thread"),
        ("exitall", "exitall"),
        ("exitall_on_error", "exitall_on_error"),
        ("ss=iops:1%", "steadystate"),
        ("steadystate=iops:1%", "steadystate"),
        ("ioscheduler=none", "ioscheduler"),
        ("create_serialize=0", "create_serialize=0"),
    ],
)
def test_files_the_gate_cannot_keep_the_meaning_of_run_as_written(tmp_path, option, why):
    job = tmp_path / "mine.fio"
    job.write_text(f"[a]\nrw=read\nsize=1m\n[b]\nrw=read\nstonewall\n{option}\n")
    plan = make_plan(str(job), Overrides())
    assert plan.as_written.startswith(f"b sets {why}")
    assert refusal(plan.jobfile) == plan.as_written
    assert [b.chained for b in plan.batches({"filename": "/x"})] == [False]


def test_harmless_values_and_single_groups_are_not_refused(tmp_path):
    job = tmp_path / "mine.fio"
    job.write_text("[global]\nthread=0\nstartdelay=0\nsize=1m\n[a]\nrw=read\n[b]\nstonewall\n")
    plan = make_plan(str(job), Overrides())
    assert plan.as_written is None and [b.chained for b in plan.batches({})] == [True]
    job.write_text("[global]\nthread\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\n")
    plan = make_plan(str(job), Overrides())
    assert plan.as_written is None and [b.chained for b in plan.batches({})] == [False]


def test_too_many_jobs_at_once_run_as_written(tmp_path):
    job = tmp_path / "mine.fio"
    job.write_text("[global]\nsize=1m\nnumjobs=40\n[a]\nrw=read\n[b]\nstonewall\n")
    plan = make_plan(str(job), Overrides())
    assert "more than 64 jobs" in plan.as_written
    assert [b.chained for b in plan.batches({})] == [False]


def test_one_process_per_group_when_each_must_run_alone(tmp_path):
    job = tmp_path / "mine.fio"
    job.write_text("[global]\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\n[c]\nstonewall\n")
    batches = make_plan(str(job), Overrides()).batches({}, one_per_workload=True)
    assert [([j.name for j in b.jobfile.jobs], b.chained) for b in batches] == [
        (["a", "b"], False),
        (["c"], False),
    ]
