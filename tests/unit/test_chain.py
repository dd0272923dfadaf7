"""Chained workloads: one fio process, and still strictly one workload after another; the
gates and batches here, real fio runs in tests/fio/test_chain.py."""

from __future__ import annotations

import fcntl
import os

import pytest

from cephbench.planning.plan import make_plan
from cephbench.tools.fio.chain import Chain, links_of
from cephbench.tools.fio.jobfile import parse_jobfile
from cephbench.tools.plan import Overrides
from tests.helpers import wait_for


def test_stonewalls_become_gates_and_reporting_groups_stay(tmp_path):
    jobfile = parse_jobfile(
        "[global]\ngroup_reporting\n[a]\nrw=read\nstonewall\n[b]\nrw=write\nstonewall\n"
    )
    chained = Chain(links_of(jobfile), tmp_path).jobfile(jobfile)
    assert chained.global_.has("group_reporting")
    assert not any(j.has("stonewall") for j in chained.jobs)
    assert [j.has("new_group") for j in chained.jobs] == [False, True]
    assert not chained.jobs[0].has("exec_prerun")
    assert chained.jobs[1].get("exec_prerun") == "flock --shared gate.1 true"
    assert chained.jobs[0].get("exec_postrun") == "echo 0 | tee -a events"


def test_a_gate_opens_only_when_every_clone_reported(tmp_path):
    jobfile = parse_jobfile("[a]\nrw=read\nnumjobs=2\n[b]\nrw=read\nstonewall\n")
    with Chain(links_of(jobfile), tmp_path) as chain:
        events = tmp_path / "events"
        events.write_text("0\n")
        wait_for(lambda: chain.events_seen == 1, "the first clone's report to be read")
        assert chain.current == 0 and _locked(tmp_path / "gate.1")
        with events.open("a") as f:
            f.write("0\n")
        _until(lambda: chain.current == 1)
        assert not _locked(tmp_path / "gate.1")


def _locked(path) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _until(predicate) -> None:
    wait_for(predicate, "the chain to follow", timeout=5.0, poll=0.01)


def test_suites_and_job_files_of_several_groups_are_chained(tmp_path):
    suite = make_plan("quick", Overrides())
    job = tmp_path / "mine.fio"
    job.write_text("[a]\nrw=read\nstonewall\n[b]\nrw=write\nstonewall\n")
    alone = tmp_path / "alone.fio"
    alone.write_text("[a]\nrw=read\n[b]\nrw=write\n")
    target = {"filename": "/x"}
    assert [b.chained for b in suite.batches(target)] == [True]
    assert [b.chained for b in make_plan(str(job), Overrides()).batches(target)] == [True]
    assert [b.chained for b in make_plan(str(alone), Overrides()).batches(target)] == [False]


@pytest.mark.parametrize("iodepth, expected_batches", [(256, 1), (65536, 4)])
def test_batches_bound_buffer_memory(iodepth, expected_batches):
    plan = make_plan("standard", Overrides(iodepth=iodepth, bs="1M"))
    batches = plan.batches({"filename": "/x"})
    assert len(batches) == expected_batches
    assert [j.name for b in batches for j in b.jobfile.jobs] == [
        "seq_wr",
        "seq_rd",
        "rand_rd",
        "rand_wr",
    ]


def test_a_new_chain_in_the_same_directory_starts_closed(tmp_path):
    jobfile = parse_jobfile("[a]\nrw=read\n[b]\nrw=read\nstonewall\n")
    with Chain(links_of(jobfile), tmp_path):
        (tmp_path / "events").write_text("0\n")
        _until(lambda: not _locked(tmp_path / "gate.1"))
    with Chain(links_of(jobfile), tmp_path) as again:
        wait_for(lambda: again.polls >= 2, "the new chain to read its events")
        assert again.current == 0 and _locked(tmp_path / "gate.1")
