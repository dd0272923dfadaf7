"""`cephbench ab` on the shared 3-host lab: a real `ceph config` change applied for side B,
rounds in the stored A B B A order, the value restored and verified afterwards, also after
Ctrl-C (SIGINT) and, after SIGKILL, by `cephbench cleanup`; an invalid key or value fails
before any round. Each round is a one-second fio run on a file: the change lives in the
lab's config database, which is what these tests are about."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path

import pytest

from cephbench.lab import ceph_json
from tests.contract import validate
from tests.helpers import CEPHBENCH, cb, wait_for

pytestmark = pytest.mark.lab

CHANGE = "ceph config set client rbd_cache false"
TINY = """name: tiny
description: one 4k random read for a second
global: {ioengine: psync, time_based: true, runtime: 1, size: 4m}
workloads:
  - {name: rand_rd, rw: randread, bs: 4k, iodepth: 1, numjobs: 1}
"""


@pytest.fixture
def tiny(tmp_path: Path, bench_dir: Path) -> list[str]:
    suite = tmp_path / "tiny.yaml"
    suite.write_text(TINY)
    return [str(suite), "--target", f"file:{bench_dir}"]


def client_cache(lab3) -> str | None:
    """The client section's own rbd_cache entry in the config database (None: none)."""
    dump = ceph_json(lab3, "config", "dump")
    return next(
        (e["value"] for e in dump if e["section"] == "client" and e["name"] == "rbd_cache"), None
    )


def test_ab_applies_b_alternates_in_the_stored_order_and_restores(lab3, db, tiny, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    assert client_cache(lab3) is None
    doc = validate(
        json.loads(
            cb(
                db,
                "ab",
                *tiny,
                "--b",
                CHANGE,
                "--b-label",
                "nocache",
                "--rounds",
                "4",
                "--format",
                "json",
            ).stdout
        )
    )
    assert doc["order"] == "ABBA" and [r["side"] for r in doc["rounds"]] == list("ABBA")
    labels = [
        json.loads(cb(db, "show", str(r["run_id"]), "--format", "json").stdout)["label"]
        for r in doc["rounds"]
    ]
    assert labels == ["A", "nocache", "nocache", "A"]
    assert doc["changes"] == {"a": [], "b": [CHANGE]}
    assert doc["applied"] == [
        {"setting": "config client rbd_cache", "original": "true", "times_applied": 2}
    ]  # tried once before the rounds, then for rounds 2-3
    assert doc["reverted"] == [
        {"setting": "config client rbd_cache", "value": "true", "verified": True}
    ]
    (row,) = [r for r in doc["rows"] if r["metric"] == "iops"]
    assert row["blocks"] == 2 and [p["side"] for p in row["points"]] == list("ABBA")
    assert doc["summary"].startswith("nocache")
    assert client_cache(lab3) is None  # restored: no entry of its own, as before


def test_an_invalid_key_or_value_fails_before_any_round(lab3, db, tiny, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    for change, message in (
        ("ceph config set client rbd_cahce false", "Ceph has no option named rbd_cahce"),
        ("ceph config set osd osd_op_num_shards eight", "osd_op_num_shards is of type int"),
        ("ceph osd pool set no-such-pool size 2", "there is no pool no-such-pool"),
    ):
        out = cb(db, "ab", *tiny, "--b", change, expect=2)
        assert message in out.output and "Traceback" not in out.output
    assert json.loads(cb(db, "runs", "--format", "json").stdout)["runs"] == []


def _start(db: Path, lab3, tiny: list[str]) -> subprocess.Popen:
    env = {**os.environ, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab3.dir)}
    return subprocess.Popen(
        [*CEPHBENCH, "ab", *tiny, "--b", CHANGE, "--rounds", "4"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _during_b(db: Path, proc: subprocess.Popen, lab3) -> None:
    """Wait until round 1 (A) is stored and B's setting is in effect for round 2."""

    def rounds() -> int:
        assert proc.poll() is None, proc.communicate()
        try:
            row = sqlite3.connect(db).execute("SELECT rounds FROM ab_experiments").fetchone()
        except sqlite3.OperationalError:
            return 0
        return len(json.loads(row[0])) if row else 0

    wait_for(lambda: rounds() >= 1, "round 1 stored")
    wait_for(lambda: client_cache(lab3) == "false", "side B's rbd_cache false applied")


def test_ctrl_c_during_the_rounds_restores_the_setting(lab3, db, tiny):
    proc = _start(db, lab3, tiny)
    _during_b(db, proc, lab3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert client_cache(lab3) is None
    (status,) = sqlite3.connect(db).execute("SELECT status FROM ab_experiments").fetchone()
    assert status == "aborted"
    assert (
        sqlite3.connect(db)
        .execute("SELECT COUNT(*) FROM resources WHERE removed_at IS NULL")
        .fetchone()[0]
        == 0
    )


def test_cleanup_restores_the_setting_of_a_killed_experiment(lab3, db, tiny):
    proc = _start(db, lab3, tiny)
    _during_b(db, proc, lab3)
    proc.kill()
    proc.communicate(timeout=60)
    assert client_cache(lab3) == "false"  # nothing ran to put it back
    out = cb(db, "cleanup").stdout
    assert "removed ab_setting config client rbd_cache" in out
    assert client_cache(lab3) is None
