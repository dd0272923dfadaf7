"""The store: migrations, versions, transactions, and runs a crash left behind."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from cephbench.errors import StoreError
from cephbench.model import RawOutput, Result, WorkloadOutcome
from cephbench.store import Store
from cephbench.store.schema import latest_version


def _result(name="w", op="read", iops=100.0):
    return Result(
        workload=name,
        repeat=0,
        op=op,
        iops=iops,
        lat_p99_us=None,
        percentiles=((50.0, 1.5), (99.0, 3.0)),
        flags=("no_latency",),
    )


def test_round_trip(db):
    with Store(db) as s:
        run_id = s.start_run(
            label="a", suite="s", target="file:/x", environment={"k": 1}, params={}
        )
        s.record_batch(
            run_id,
            0,
            RawOutput("fio", ["fio", "x"], "[j]\n", "out", "", 0, "t", 1.0),
            [
                WorkloadOutcome("w", (_result(), _result(op="write"))),
                WorkloadOutcome("bad", error="fio error: boom"),
            ],
        )
        s.finish_run(run_id, "failed", "1 workload(s) failed")
        run = s.get_run("last")
    assert run.status == "failed" and run.environment == {"k": 1}
    assert [r.op for r in run.results] == ["read", "write"]
    assert run.results[0] == _result()
    assert run.failures[0].error == "fio error: boom"
    with Store(db) as s:
        assert s.outputs(run_id)[0]["stdout"] == "out"


def test_user_version_is_latest(db):
    Store(db).close()
    assert sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0] == latest_version()


def test_newer_schema_is_refused(db):
    Store(db).close()
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this cephbench"):
        Store(db)


def test_not_a_database(tmp_path):
    path = tmp_path / "junk.db"
    path.write_text("this is not sqlite" * 100)
    with pytest.raises(StoreError):
        Store(path)


def test_failed_batch_leaves_nothing(db):
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="s", target="t", environment={}, params={})
        dup = WorkloadOutcome("w", (_result(),))
        with pytest.raises(sqlite3.IntegrityError):
            s.record_batch(run_id, 0, None, [dup, dup])  # same workload twice: refused
        assert s.conn.execute("SELECT COUNT(*) FROM workloads").fetchone()[0] == 0


def test_run_of_a_dead_process_is_marked_aborted(db):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="s", target="t", environment={}, params={})
        s.conn.execute("UPDATE runs SET pid = ? WHERE id = ?", (int(dead), run_id))
        s.add_resource(run_id, "file", "/nonexistent/cephbench-1.dat")
    with Store(db) as s:
        notes = s.recover_interrupted()
        assert s.get_run(run_id).status == "aborted"
        assert any("interrupted" in n for n in notes) and any("cleanup" in n for n in notes)
        assert s.recover_interrupted() == []  # said once


def test_live_run_is_left_alone(db):
    with Store(db) as s:
        run_id = s.start_run(label=None, suite="s", target="t", environment={}, params={})
        assert s.conn.execute("SELECT pid FROM runs").fetchone()[0] == os.getpid()
        s.add_resource(run_id, "file", "/nonexistent/cephbench-1.dat")  # in use, not left
        assert s.recover_interrupted() == []
        assert s.get_run(run_id).status == "running"
