"""RBD targets on the real lab: fresh pool and image made and removed; the user's kept."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest

from cephbench.lab import ceph_json
from cephbench.store import Store

SHORT = ("--runtime", "1", "--size", "64m")


@pytest.fixture
def in_lab(lab, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    return lab


def _ceph(lab, *args):
    return subprocess.run(
        ["ceph", *args], env={**os.environ, **lab.env}, capture_output=True, text=True, check=True
    )


def test_default_target_is_a_fresh_image_in_a_fresh_pool(invoke, invoke_json, in_lab, db):
    invoke("run", "quick", *SHORT)
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["target"] == "rbd:lab"
    assert [r["workload"] for r in run["results"]] == ["seq_wr", "seq_rd", "rand_rd", "rand_wr"]
    assert all(r["iops"] > 0 for r in run["results"])
    pool = run["cluster"]["pool"]["name"]
    assert pool.startswith(f"cb-{run['id']}-") and pool not in ceph_json(
        in_lab, "osd", "pool", "ls"
    )
    with Store(db) as s:
        assert s.open_resources() == []
        (first, *_) = [o for o in s.outputs(run["id"]) if o["tool"] == "fio"]
        assert "ioengine=rbd" in first["input_text"] and f"pool={pool}" in first["input_text"]


def test_existing_pool_and_image_are_used_and_left_alone(invoke, invoke_json, in_lab, db):
    _ceph(in_lab, "osd", "pool", "create", "userpool", "8", "8")
    try:
        subprocess.run(
            ["rbd", "pool", "init", "userpool"], env={**os.environ, **in_lab.env}, check=True
        )
        subprocess.run(
            ["rbd", "create", "userpool/mine", "--size", "64M"],
            env={**os.environ, **in_lab.env},
            check=True,
        )
        # the quick suite's own size (256 MiB) does not fit the user's 64 MiB image: said
        # before anything runs, where fio would fail every I/O past its end
        out = invoke("run", "quick", "--target", "rbd:userpool/mine", "--runtime", "1", expect=1)
        assert (
            "image userpool/mine is 64m, less than the workloads' size 256m" in out.output
            and "give --size 64m or less" in out.output
        ), out.output
        if db.exists():  # nothing stored: the run never began
            with sqlite3.connect(db) as conn:
                assert conn.execute("SELECT count(*) FROM runs").fetchone() == (0,)
        invoke("run", "quick", "--target", "rbd:userpool/mine", *SHORT)
        assert invoke_json("show", "last")["status"] == "complete"
        images = json.loads(
            subprocess.run(
                ["rbd", "ls", "userpool", "--format", "json"],
                env={**os.environ, **in_lab.env},
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        assert images == ["mine"]
        assert "userpool" in ceph_json(in_lab, "osd", "pool", "ls")
    finally:
        _ceph(in_lab, "osd", "pool", "rm", "userpool", "userpool", "--yes-i-really-really-mean-it")


def test_missing_pool_and_image_are_created_tagged_and_removed(invoke, invoke_json, in_lab, db):
    invoke(
        "run",
        "quick",
        "--target",
        "rbd:newpool/img",
        "--pool-size",
        "2",
        "--pg-num",
        "8",
        "--no-prefill",
        *SHORT,
    )
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and "prefill" not in run
    assert run["cluster"]["pool"] == {
        **run["cluster"]["pool"],
        "name": "newpool",
        "size": 2,
        "pg_num": 8,
    }
    assert "newpool" not in ceph_json(in_lab, "osd", "pool", "ls")
    with Store(db) as s:
        kinds = [r["kind"] for r in s.conn.execute("SELECT kind FROM resources ORDER BY id")]
        assert kinds == ["dir", "ceph_pool", "rbd_image"] and s.open_resources() == []


def test_prefill_is_recorded_and_shown(invoke, invoke_json, in_lab):
    result = invoke("run", "quick", *SHORT)
    assert "Prefill: the new RBD image was written once (64m" in result.stderr
    argv = invoke_json("show", "last")["prefill"]["argv"]
    assert next(a for a in argv if a.startswith("--")) == "--name=prefill"  # fio's first
