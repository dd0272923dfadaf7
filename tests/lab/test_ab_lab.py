"""`cephbench ab` on the shared 3-host lab: side B makes a real `ceph config` change and a
sysctl change on every host (`--hosts lab`, over ssh), and on success also a setting of a pool
cephbench created; rounds run in the stored A B B A
order; both are restored and verified afterwards (each host its own value), also after Ctrl-C
(SIGINT) and, after SIGKILL, by `cephbench cleanup` (which marks the experiment aborted); an
invalid key or value, or a value a host's kernel refuses, fails before any round. Each round
is a 0.3 s fio run on a file: the changes live in the lab's config database and the hosts'
kernels, which is what these tests are about. Host values are read with `ip netns exec`,
not through cephbench's own ssh."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from cephbench.lab import ceph_json, ensure_pool
from cephbench.lab.paths import Layout
from cephbench.lab.state import load
from tests.contract import validate
from tests.helpers import CEPHBENCH, invoke, wait_for

CHANGE = "ceph config set client rbd_cache false"
SYSCTL, VALUE = "net.core.somaxconn", "2048"
POOL = "cb-ab"
B = ["--b", CHANGE, "--b", f"sysctl {SYSCTL}={VALUE}", "--hosts", "lab"]
TINY = """name: tiny
description: one 4k random read for 0.3 s
global: {ioengine: psync, time_based: true, runtime: 300ms, size: 4m}
workloads:
  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 1, numjobs: 1}
"""


@pytest.fixture
def tiny(tmp_path: Path, bench_dir: Path) -> list[str]:
    suite = tmp_path / "tiny.yaml"
    suite.write_text(TINY)
    return [str(suite), "--target", f"file:{bench_dir}"]


@pytest.fixture
def hosts(lab3, monkeypatch) -> dict[str, str]:
    """Each host namespace's own somaxconn before the test (and checked different from B's)."""
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    found = somaxconn(lab3)
    assert len(found) == 3 and VALUE not in found.values()
    assert client_cache(lab3) is None
    return found


def somaxconn(lab3) -> dict[str, str]:
    state = load(Layout(lab3.dir))
    assert state is not None
    return {
        ns: subprocess.run(
            ["ip", "netns", "exec", ns, "cat", f"/proc/sys/{SYSCTL.replace('.', '/')}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for ns in state.namespaces
    }


def client_cache(lab3) -> str | None:
    """The client section's own rbd_cache entry in the config database (None: none)."""
    dump = ceph_json(lab3, "config", "dump")
    return next(
        (e["value"] for e in dump if e["section"] == "client" and e["name"] == "rbd_cache"), None
    )


def open_resources(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM resources WHERE removed_at IS NULL").fetchone()[0]


def open_records(db: Path) -> list[tuple]:
    """The records still open (kind, name, detail): what a failure says it left."""
    with sqlite3.connect(db) as conn:
        query = "SELECT kind, name, detail FROM resources WHERE removed_at IS NULL"
        return conn.execute(query).fetchall()


def experiment_status(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT status FROM ab_experiments").fetchone()[0]


def noscrub(lab3) -> bool:
    return ceph_json(lab3, "osd", "pool", "get", POOL, "noscrub")["noscrub"]


def test_ab_applies_b_alternates_in_the_stored_order_and_restores(lab3, db, tiny, hosts):
    ensure_pool(lab3, POOL, pg_num=8)  # a pool cephbench created (recorded in the lab)
    assert noscrub(lab3) is False
    pool = f"ceph osd pool set {POOL} noscrub true"
    doc = validate(
        json.loads(
            invoke(
                "ab",
                *tiny,
                *B,
                "--b",
                pool,
                "--b-label",
                "nocache",
                "--rounds",
                "4",
                "--format",
                "json",
                db=db,
            ).stdout
        )
    )
    assert doc["order"] == "ABBA" and [r["side"] for r in doc["rounds"]] == list("ABBA")
    labels = [
        json.loads(invoke("show", str(r["run_id"]), "--format", "json", db=db).stdout)["label"]
        for r in doc["rounds"]
    ]
    assert labels == ["A", "nocache", "nocache", "A"]
    assert doc["changes"] == {"a": [], "b": [CHANGE, f"sysctl {SYSCTL}={VALUE}", pool]}
    original = " ".join(set(hosts.values())) if len(set(hosts.values())) == 1 else None
    assert doc["applied"] == [
        {"setting": "config client rbd_cache", "original": "true", "times_applied": 2},
        {"setting": f"sysctl {SYSCTL}", "original": original, "times_applied": 2},
        {"setting": f"pool {POOL} noscrub", "original": "false", "times_applied": 2},
    ]  # tried once before the rounds, then for rounds 2-3
    assert doc["reverted"] == [
        {"setting": "config client rbd_cache", "value": "true", "verified": True},
        {"setting": f"sysctl {SYSCTL}", "value": original, "verified": True},
        {"setting": f"pool {POOL} noscrub", "value": "false", "verified": True},
    ]
    (row,) = [r for r in doc["rows"] if r["metric"] == "iops"]
    assert row["blocks"] == 2 and [p["side"] for p in row["points"]] == list("ABBA")
    assert doc["summary"].startswith("nocache")
    assert client_cache(lab3) is None  # restored: no entry of its own, as before
    assert somaxconn(lab3) == hosts  # every host its own value back
    assert noscrub(lab3) is False
    assert open_resources(db) == 0


def test_an_invalid_change_fails_before_any_round(lab3, db, tiny, hosts):
    lab = ["--hosts", "lab"]
    for change, extra, message in (
        ("ceph config set client rbd_cahce false", [], "Ceph has no option named rbd_cahce"),
        ("ceph config set osd osd_op_num_shards eight", [], "osd_op_num_shards is of type int"),
        ("ceph osd pool set no-such-pool size 2", [], "there is no pool no-such-pool"),
        (CHANGE, lab, "--hosts is for sysctl changes, and no side makes one"),
        ("sysctl net.core.no_such=1", lab, "host host0 has no sysctl net.core.no_such"),
        (f"sysctl {SYSCTL}=many", lab, f"{SYSCTL} takes 1 integer(s)"),
    ):
        out = invoke("ab", *tiny, "--b", change, *extra, db=db, expect=2)
        assert message in out.output and "Traceback" not in out.output
    # A value each host's kernel refuses: found when B is tried, before any round; the ceph
    # change B made first is put back, and the experiment is stored as failed.
    out = invoke(
        "ab", *tiny, "--b", CHANGE, "--b", f"sysctl {SYSCTL}=-1", "--hosts", "lab", db=db, expect=1
    )
    assert f"setting sysctl {SYSCTL} = -1 on host host" in out.output, out.output
    assert "Traceback" not in out.output
    assert json.loads(invoke("runs", "--format", "json", db=db).stdout)["runs"] == []
    assert experiment_status(db) == "failed" and open_resources(db) == 0
    assert client_cache(lab3) is None and somaxconn(lab3) == hosts


def _start(db: Path, lab3, tiny: list[str]) -> subprocess.Popen:
    env = {**os.environ, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab3.dir)}
    return subprocess.Popen(
        [*CEPHBENCH, "ab", *tiny, *B, "--rounds", "4"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _during_b(db: Path, proc: subprocess.Popen, lab3) -> None:
    """Wait until round 1 (A) is stored and B's settings are in effect for round 2: the
    config entry, and the sysctl on every host."""

    def rounds() -> int:
        assert proc.poll() is None, proc.communicate()
        try:
            with sqlite3.connect(db) as conn:
                row = conn.execute("SELECT rounds FROM ab_experiments").fetchone()
        except sqlite3.OperationalError:
            return 0
        return len(json.loads(row[0])) if row else 0

    wait_for(lambda: rounds() >= 1, "round 1 stored")
    wait_for(lambda: client_cache(lab3) == "false", "side B's rbd_cache false applied")
    wait_for(lambda: set(somaxconn(lab3).values()) == {VALUE}, "side B's sysctl on every host")


def test_ctrl_c_during_the_rounds_restores_the_settings(lab3, db, tiny, hosts):
    proc = _start(db, lab3, tiny)
    _during_b(db, proc, lab3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert client_cache(lab3) is None and somaxconn(lab3) == hosts
    assert experiment_status(db) == "aborted" and open_resources(db) == 0, (
        open_records(db),
        err,
    )


def test_cleanup_restores_the_settings_of_a_killed_experiment(lab3, db, tiny, hosts):
    proc = _start(db, lab3, tiny)
    _during_b(db, proc, lab3)
    proc.kill()
    proc.communicate(timeout=60)
    assert client_cache(lab3) == "false"  # nothing ran to put it back
    assert experiment_status(db) == "running"
    out = invoke("cleanup", db=db)
    assert "A/B experiment 1 was interrupted; marked aborted" in out.output
    assert "removed ab_setting config client rbd_cache" in out.output
    for host in ("host0", "host1", "host2"):
        assert f"removed ab_host_sysctl {host}:{SYSCTL}" in out.output
    assert client_cache(lab3) is None and somaxconn(lab3) == hosts
    assert experiment_status(db) == "aborted" and open_resources(db) == 0
