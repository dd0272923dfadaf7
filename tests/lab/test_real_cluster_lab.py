"""RBD runs on a lab set up like a real cluster: cephx, ``mon_allow_pool_delete=false``, reached
through ``--conf``/``--id``/``--keyring`` (not as "the lab"), and a client with ``profile rbd``
caps on one pool only (it may not create pools).

- A pool cephbench creates but may not delete: the run completes, everything else is removed,
  and it says the pool was left and how to remove it (which `cleanup` then does).
- A client that may not create pools is told so up front (nothing made, no run stored), and
  runs on the existing pool it names.
- An existing image is used as it is: not prefilled, not resized, not removed.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephbench.lab import LabInfo, ceph_json, down, up
from cephbench.store import Store
from tests.lab.conftest import as_a_shell, spec

SHORT = ("--runtime", "1", "--size", "16m", "--pg-num", "8")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabInfo]:
    """One OSD, pool deletion forbidden, pool ``userpool`` (an RBD pool), and client.bench
    allowed RBD on it only (keyring beside the lab)."""
    lab_dir = tmp_path_factory.mktemp("real") / "lab"
    try:
        info = as_a_shell(
            up(
                spec(dir=lab_dir, osds=1, conf_set={"mon_allow_pool_delete": "false"}), timeout=180
            ).info
        )
        _ceph(info, "osd", "pool", "create", "userpool", "8", "8")
        _ceph(info, "osd", "pool", "application", "enable", "userpool", "rbd")
        _tool(info, "rbd", "pool", "init", "userpool")
        keyring = _ceph(
            info,
            "auth",
            "get-or-create",
            "client.bench",
            "mon",
            "profile rbd",
            "osd",
            "profile rbd pool=userpool",
            "mgr",
            "profile rbd pool=userpool",
        ).stdout
        (lab_dir.parent / "bench.keyring").write_text(keyring)
        yield info
    finally:
        down(lab_dir, purge=True)


def _tool(lab: LabInfo, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(argv), env={**os.environ, **lab.env}, capture_output=True, text=True, check=True
    )


def _ceph(lab: LabInfo, *args: str) -> subprocess.CompletedProcess:
    return _tool(lab, "ceph", *args)


def _admin(lab: LabInfo) -> tuple[str, ...]:
    return ("--conf", str(lab.conf_path), "--keyring", str(lab.keyring_path))


def _bench(lab: LabInfo) -> tuple[str, ...]:
    return (
        "--conf",
        str(lab.conf_path),
        "--id",
        "bench",
        "--keyring",
        str(Path(lab.dir).parent / "bench.keyring"),
    )


@pytest.fixture
def outside(monkeypatch, tmp_path):
    """No lab to fall back on: every connection comes from the options."""
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(tmp_path / "no-lab"))


def _images(lab: LabInfo, pool: str) -> list[str]:
    return json.loads(_tool(lab, "rbd", "ls", pool, "--format", "json").stdout)


def test_pool_it_may_not_delete_is_left_said_so_and_cleanup_removes_it(
    invoke, invoke_json, cluster, outside, db
):
    result = invoke("run", "quick", "--target", "rbd:cbnew/img", *_admin(cluster), *SHORT, expect=1)
    assert (
        "pool cbnew (created by cephbench, run-1) was left: the cluster forbids deleting pools"
        in result.stderr
    )
    assert "mon_allow_pool_delete true; cephbench cleanup" in result.stderr
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and len(run["results"]) == 4  # the benchmark is intact
    assert _images(cluster, "cbnew") == []  # the image went; only the pool could not
    with Store(db) as s:
        assert [(r.kind, r.name) for r in s.open_resources()] == [("ceph_pool", "cbnew")]
    _ceph(cluster, "tell", "mon.*", "config", "set", "mon_allow_pool_delete", "true")
    try:
        assert "removed ceph_pool cbnew" in invoke("cleanup").stdout
    finally:
        _ceph(cluster, "tell", "mon.*", "config", "set", "mon_allow_pool_delete", "false")
    assert "cbnew" not in ceph_json(cluster, "osd", "pool", "ls")
    with Store(db) as s:
        assert s.open_resources() == []


def test_client_without_pool_create_caps_is_told_up_front(invoke, cluster, outside, db):
    pools_before = ceph_json(cluster, "osd", "pool", "ls")
    result = invoke(
        "run", "quick", "--target", "rbd:cbmissing/img", *_bench(cluster), *SHORT, expect=1
    )
    assert "client.bench may not create pools, and pool cbmissing does not exist" in result.stderr
    assert "name a pool that exists" in result.stderr
    assert ceph_json(cluster, "osd", "pool", "ls") == pools_before
    with Store(db) as s:
        assert s.runs() == [] and s.open_resources() == []


def test_client_without_pool_create_caps_runs_on_the_pool_it_names(
    invoke, invoke_json, cluster, outside, db
):
    invoke("run", "quick", "--target", "rbd:userpool/cbimg", *_bench(cluster), *SHORT)
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and all(r["iops"] > 0 for r in run["results"])
    assert run["prefill"]["argv"][1] == "--name=prefill"  # a new image is prefilled
    assert "cbimg" not in _images(cluster, "userpool") and "userpool" in ceph_json(
        cluster, "osd", "pool", "ls"
    )
    with Store(db) as s:
        assert s.open_resources() == []


def test_existing_image_is_used_as_it_is(invoke, invoke_json, cluster, outside, db):
    _tool(cluster, "rbd", "create", "userpool/mine", "--size", "32M")
    try:
        invoke(
            "run",
            "quick",
            "--target",
            "rbd:userpool/mine",
            *_bench(cluster),
            "--size",
            "16m",
            "--runtime",
            "1",
        )
        run = invoke_json("show", "last")
        assert run["status"] == "complete" and "prefill" not in run
        info = json.loads(_tool(cluster, "rbd", "info", "userpool/mine", "--format", "json").stdout)
        assert info["size"] == 32 << 20  # not resized to --size
        with Store(db) as s:
            assert [r["kind"] for r in s.conn.execute("SELECT kind FROM resources")] == ["dir"]
    finally:
        _tool(cluster, "rbd", "rm", "--no-progress", "userpool/mine")
