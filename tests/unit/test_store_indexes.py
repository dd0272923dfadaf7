"""The store's queries stay instant on a store of years: every SELECT `runs` and `show` run
(as they run it, traced on a real store) is answered through an index, never by reading a
whole table of results, workloads or outputs (EXPLAIN QUERY PLAN says which)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cephbench.store import Store
from tests.helpers import FIO_DATA, invoke


@pytest.fixture
def stored(invoke, db: Path) -> Path:
    for sample in ("groups4.json", "randrw_70.txt", "numjobs4.json"):
        invoke("import", str(FIO_DATA / sample))
    return db


def _selects(db: Path, *args: str) -> list[str]:
    """Every SELECT ``cephbench ARGS`` runs on the store at ``db``, from opening it (as every
    command does) to the end of the command's own body."""
    seen: list[str] = []
    connect = sqlite3.connect

    def traced(*a, **k):
        conn = connect(*a, **k)
        conn.set_trace_callback(seen.append)
        return conn

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sqlite3, "connect", traced)
        invoke(*args, db=db)
    return [s for s in seen if s.lstrip().upper().startswith("SELECT")]


def _plans(db: Path, statements: list[str]) -> dict[str, list[str]]:
    conn = sqlite3.connect(db)
    try:
        return {s: [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {s}")] for s in statements}
    finally:
        conn.close()


def test_the_indexes_the_queries_need_exist(stored):
    conn = sqlite3.connect(stored)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    conn.close()
    assert {"runs_status", "outputs_run", "resources_run", "series_run"} <= names
    # the UNIQUE constraints' indexes serve these lookups; the copies are gone
    assert not {"workloads_run", "results_workload"} & names


@pytest.mark.parametrize("ref", ["last", "2"])
def test_show_reads_one_run_through_indexes(stored, ref):
    plans = _plans(stored, _selects(stored, "show", ref, "--format", "json"))
    assert any("FROM results" in s for s in plans)  # the traced SQL is show's own
    scans = {s: p for s, p in plans.items() if any(step.startswith("SCAN") for step in p)}
    assert scans == {}


def test_runs_reads_no_results_and_opens_without_a_scan(stored):
    plans = _plans(stored, _selects(stored, "runs", "--format", "json"))
    steps = [step for p in plans.values() for step in p]
    assert "SEARCH runs USING INDEX runs_status (status=? AND host=?)" in steps
    scans = {step for step in steps if step.startswith("SCAN")}
    # a listing of runs reads runs (counting them through an index), and nothing per run
    assert {step.split()[1] for step in scans} <= {"runs"}


def test_cleanup_finds_the_running_runs_through_the_index(stored):
    with Store(stored) as store:
        seen: list[str] = []
        store.conn.set_trace_callback(seen.append)
        assert store.runs("running") == []
    (plan,) = _plans(stored, seen).values()
    assert plan[0] == "SEARCH runs USING INDEX runs_status (status=?)"
