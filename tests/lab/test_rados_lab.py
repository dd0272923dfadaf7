"""The rados and osd suites on the real lab: a created pool is removed, an existing one is
left as it was (without benchmark objects), one row per OSD; the cluster record is kept."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from cephbench.lab import ceph_json
from cephbench.lab.lab_pools import wait_pool_clean
from cephbench.store import Store


@pytest.fixture
def in_lab(lab, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    return lab


def _sh(lab, *argv):
    return subprocess.run(
        argv, env={**os.environ, **lab.env}, capture_output=True, text=True, check=True
    )


def test_rados_suite_on_a_fresh_pool(invoke, invoke_json, in_lab, db):
    invoke("run", "rados", "--runtime", "1", "--concurrent-ios", "4", "--object-size", "1M")
    run = invoke_json("show", "last")
    assert run["status"] == "complete" and run["target"] == "rados:lab"
    rows = {r["workload"]: r for r in run["results"]}
    assert list(rows) == ["write", "seq", "rand"]
    assert [(r["op"], r["rw"]) for r in rows.values()] == [
        ("write", "write"),
        ("read", "seq"),
        ("read", "rand"),
    ]
    assert all(
        r["bw_bytes_per_s"] > 0 and r["iodepth"] == 4 and r["bs"] == 1 << 20 for r in rows.values()
    )
    assert "iops_stddev" in rows["write"]["metrics"]
    pool = run["cluster"]["pool"]["name"]
    assert pool.startswith(f"cb-{run['id']}-") and run["cluster"]["osds"] == 3
    assert pool not in ceph_json(in_lab, "osd", "pool", "ls")
    with Store(db) as s:
        assert s.open_resources() == []
        assert {x.metric for x in s.series(run["id"])} >= {
            "health",
            "bw_bytes_per_s",
            "lat_mean_us",
        }
        fp, stored_pool = s.fingerprint(run["id"])
        assert stored_pool == run["cluster"]["pool"]["name"] and set(fp) >= {
            "versions",
            "osd_metadata",
            "config",
            "df",
        }
    table = invoke("show", "last", "--cluster", "--format", "md").stdout
    version = in_lab.tools.version()
    assert version is not None
    assert f"| Ceph version | {version.version}" in table and "failure domain osd" in table


def test_existing_pool_is_kept_and_left_without_bench_objects(invoke, invoke_json, in_lab):
    _sh(in_lab, "ceph", "osd", "pool", "create", "userbench", "8", "8")
    try:
        _sh(in_lab, "ceph", "osd", "pool", "application", "enable", "userbench", "rados")
        _sh(in_lab, "rados", "-p", "userbench", "put", "keepme", "/etc/hostname")
        wait_pool_clean(in_lab, "userbench", 8)
        invoke(
            "run", "rados", "--target", "rados:userbench", "--runtime", "1", "--concurrent-ios", "4"
        )
        assert invoke_json("show", "last")["status"] == "complete"
        assert "userbench" in ceph_json(in_lab, "osd", "pool", "ls")
        assert _sh(in_lab, "rados", "-p", "userbench", "ls").stdout.split() == ["keepme"]
    finally:
        _sh(
            in_lab,
            "ceph",
            "osd",
            "pool",
            "rm",
            "userbench",
            "userbench",
            "--yes-i-really-really-mean-it",
        )


def test_osd_suite_one_row_per_osd(invoke, invoke_json, in_lab):
    invoke("run", "osd", "--size", "16M", "--bs", "4M")
    run = invoke_json("show", "last")
    assert [r["workload"] for r in run["results"]] == ["osd.0", "osd.1", "osd.2"]
    assert all(
        r["io_bytes"] == 16 << 20 and r["bs"] == 4 << 20 and r["iops"] > 0 for r in run["results"]
    )
    assert set(run["environment"]["osds"]["0"]) >= {"host", "device_class", "model"}
    table = invoke("show", "last", "--format", "md").stdout
    assert "| Ratio to median |" in table and "| osd.2" in table


def test_rados_suite_needs_a_rados_target(invoke, in_lab, tmp_path):
    result = invoke("run", "rados", "--target", f"file:{tmp_path}", expect=2)
    assert "runs on a Ceph cluster" in result.output


def test_connection_options_reach_the_lab_and_a_wrong_id_fails_clearly(invoke, invoke_json, in_lab):
    conf, keyring = str(in_lab.conf_path), str(in_lab.keyring_path)
    invoke("run", "osd", "--size", "4M", "--conf", conf, "--id", "admin", "--keyring", keyring)
    assert invoke_json("show", "last")["params"]["connection"]["conf"] == conf
    result = invoke(
        "run",
        "osd",
        "--conf",
        conf,
        "--id",
        "nobody",
        "--keyring",
        keyring,
        "--connect-timeout",
        "3",
        expect=1,
    )
    assert "Error:" in result.output and "Traceback" not in result.output
    assert json.loads(invoke("runs", "--format", "json").stdout)["runs"][-1]["status"] != "running"
