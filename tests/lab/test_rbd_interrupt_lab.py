"""Ctrl-C at every stage of an RBD run on the real lab (connecting, pool, image, prefill, each
workload, the clean-up itself): the run is "aborted" and nothing is ever left: no pool, image,
watcher, blocklist entry, noscrub flag, process or work directory. And `cleanup` finishes a
pool a killed run created but never tagged, while never deleting an untagged pool it did not
create."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from cephbench.ceph.connection import Connection
from cephbench.ceph.pools import pool_ids
from cephbench.lab import ceph_json
from cephbench.store import ResourceLog, Store
from tests.interrupt_lab import Run, blocklist, leftovers, start

ARGS = ("quick", "--runtime", "1", "--size", "16m", "--pg-num", "8", "--quiesce")

STAGES = {
    "connecting": lambda r: r.child("ceph"),
    "pool recorded": lambda r: r.resource("ceph_pool"),
    "pool being created": lambda r: r.child("ceph", "pool", "create", "cb-"),
    "pool being tagged": lambda r: r.child("ceph", "application"),
    "image": lambda r: r.resource("rbd_image"),
    "prefill": lambda r: r.child("fio", "--name=prefill"),
    "workload 1": lambda r: r.child("fio", "job.fio"),
    "workload 2": lambda r: r.events() >= 1,
    "workload 3": lambda r: r.events() >= 2,
    "workload 4": lambda r: r.events() >= 3,
    "clean-up: image": lambda r: r.child("rbd", "rm"),
    "clean-up: pool": lambda r: r.child("ceph", "pool", "rm"),
}
CLI_STAGES = {"connecting", "pool being created", "pool being tagged", "clean-up: pool"}
"""Stages seen as a ``ceph`` process: a run sends its commands over one librados connection,
a few ms each, so these run with ``CEPHBENCH_CEPH_CLI=1`` to be caught in the middle; "pool
recorded" is Ctrl-C as the pool is being created over the connection."""


@pytest.fixture
def in_lab(lab, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    return lab


def _interrupt(run: Run, stage: str) -> str:
    run.wait_for(lambda: STAGES[stage](run))
    run.proc.send_signal(signal.SIGINT)
    _out, err = run.proc.communicate(timeout=180)
    return err


@pytest.mark.parametrize("stage", list(STAGES))
def test_ctrl_c_at_each_stage_leaves_nothing(in_lab, db, stage):
    before = blocklist(in_lab)
    cli = {"CEPHBENCH_CEPH_CLI": "1"} if stage in CLI_STAGES else {}
    run = start(db, in_lab, *ARGS, env=cli)
    try:
        err = _interrupt(run, stage)
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    assert run.proc.returncode == 130, err
    assert "Traceback" not in err
    with Store(db) as s:
        runs = s.runs()
    if stage == "connecting":
        assert all(r.status == "aborted" for r in runs)  # usually none: stopped before it began
    else:
        assert [r.status for r in runs] == ["aborted"], err
    assert leftovers(in_lab, run, before) == []


def _ceph(lab, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["ceph", *args], env={**os.environ, **lab.env}, capture_output=True, text=True, check=True
    )


def _record_pool(db, lab, name: str) -> tuple[int, int]:
    """What a run records before creating pool ``name``: (run id, resource id)."""
    conn = Connection(conf=str(lab.conf_path), keyring=str(lab.keyring_path), lab_dir=str(lab.dir))
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="quick", target="rbd:lab", environment={}, params={})
        rid = ResourceLog(s, run_id).add(
            "ceph_pool",
            name,
            {"conn": conn.to_json(), "tag": f"run-{run_id}", "pool_max": pool_ids(conn)[0]},
        )
        s.finish_run(run_id, "aborted", "killed")
    return run_id, rid


def test_cleanup_removes_a_recorded_pool_killed_before_its_tag(invoke, in_lab, db):
    """Killed between `osd pool create` and tagging: the pool is untagged, yet ours."""
    _run_id, _rid = _record_pool(db, in_lab, "cb-untagged")
    _ceph(in_lab, "osd", "pool", "create", "cb-untagged", "8", "8")  # what the killed run got done
    out = invoke("cleanup").stdout
    assert "removed ceph_pool cb-untagged" in out
    assert "cb-untagged" not in ceph_json(in_lab, "osd", "pool", "ls")
    with Store(db) as s:
        assert s.open_resources() == []


def test_cleanup_never_deletes_an_untagged_pool_that_existed_before(invoke, in_lab, db):
    """A pool of the recorded name that was there before the record is the user's."""
    _ceph(in_lab, "osd", "pool", "create", "cb-users", "8", "8")
    try:
        _record_pool(db, in_lab, "cb-users")
        result = invoke("cleanup", expect=1)
        assert "not tagged as created by cephbench" in result.stderr
        assert "cb-users" in ceph_json(in_lab, "osd", "pool", "ls")
    finally:
        _ceph(in_lab, "osd", "pool", "rm", "cb-users", "cb-users", "--yes-i-really-really-mean-it")
