"""Picking runs: `runs` lists the latest 20 and counts them all; the filters and paging are
SQL (store/query.py); `compare` and `report` take the same filters; views for sqlite3; shell
completion of run ids, labels and suites."""

from __future__ import annotations

import functools
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cephbench.store import Store
from cephbench.store.query import RunFilter, count, page, parse_since, run_ids
from tests import helpers
from tests.contract import validate
from tests.helpers import store_run

DAY = "2024-05-{:02d}T03:00:00+00:00"


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """25 runs: odd ones labelled nightly on May 1-25, even ones manual; run 7 failed;
    runs 21-25 of suite `standard` on rbd:lab. Shared by the module's tests: they only read."""
    db = tmp_path_factory.mktemp("query") / "results.db"
    for day in range(1, 26):
        store_run(
            db,
            "nightly" if day % 2 else "manual",
            [[1000 + day, 2000, 3000, 4000]],
            started_at=DAY.format(day),
            suite="standard" if day > 20 else "quick",
            target="rbd:lab" if day > 20 else "file:/mnt/bench",
        )
    with Store(db) as s:
        s.finish_run(7, "failed", "fio exited 1")
    return db


@pytest.fixture
def invoke(filled: Path):
    """A command on the shared store."""
    return functools.partial(helpers.invoke, db=filled)


def _listed(invoke, *args: str) -> tuple[list[int], str]:
    doc = validate(json.loads(invoke("runs", *args, "--format", "json").stdout))
    return [r["id"] for r in doc["runs"]], doc["total"]


def test_runs_shows_the_latest_20_oldest_first_and_counts_them_all(filled, invoke):
    result = invoke("runs")
    assert "│ 25 │" in result.stdout and "│  6 │" in result.stdout and "│  5 │" not in result.stdout
    assert result.stdout.index("│  6 │") < result.stdout.index("│ 25 │")
    assert "Showing 20 of 25 runs (the latest); --all or --last N for more, --offset 20" in (
        result.stderr
    )
    assert _listed(invoke) == (list(range(6, 26)), 25)
    assert _listed(invoke, "--all") == (list(range(1, 26)), 25)
    assert "25 runs." in invoke("runs", "--all").stderr


def test_last_and_offset_page_back(filled, invoke):
    assert _listed(invoke, "--last", "5") == ([21, 22, 23, 24, 25], 25)
    assert _listed(invoke, "--last", "5", "--offset", "5") == ([16, 17, 18, 19, 20], 25)
    assert _listed(invoke, "--last", "5", "--offset", "23") == ([1, 2], 25)
    line = invoke("runs", "--last", "5", "--offset", "5").stderr
    assert "Showing 5 of 25 runs (skipping the latest 5); " in line and "--offset 10" in line
    assert "are past --offset 30" in invoke("runs", "--offset", "30").stderr


def test_filters_combine(filled, invoke):
    assert _listed(invoke, "--label", "nightly", "--all") == (list(range(1, 26, 2)), 13)
    assert _listed(invoke, "--label", "night*", "--last", "2") == ([23, 25], 13)
    assert _listed(invoke, "--suite", "standard") == ([21, 22, 23, 24, 25], 5)
    assert _listed(invoke, "--target", "rbd:*", "--label", "manual") == ([22, 24], 2)
    assert _listed(invoke, "--status", "failed") == ([7], 1)
    assert _listed(invoke, "--status", "failed", "--status", "complete", "--all")[1] == 25
    assert _listed(invoke, "--since", "2024-05-24") == ([24, 25], 2)
    assert _listed(invoke, "--since", "2024-05-24T05:00+02:00") == ([24, 25], 2)
    assert _listed(invoke, "--label", "nope") == ([], 0)
    assert "No runs matching label nope in" in invoke("runs", "--label", "nope").stderr


def test_bad_filters_are_one_clear_line(filled, invoke):
    bad = invoke("runs", "--since", "yesterday", expect=2)
    assert "Error: 'yesterday' is neither a date nor an age" in bad.output
    assert "Traceback" not in bad.output
    both = invoke("runs", "--all", "--last", "3", expect=2)
    assert "--all and --last both say how many runs" in both.output


def test_since_reads_dates_times_and_ages():
    now = datetime(2024, 6, 30, 12, 0, tzinfo=UTC)
    assert parse_since("30d", now) == "2024-05-31T12:00:00+00:00"
    assert parse_since("12h", now) == "2024-06-30T00:00:00+00:00"
    assert parse_since("2w", now) == "2024-06-16T12:00:00+00:00"
    assert parse_since("90m", now) == "2024-06-30T10:30:00+00:00"
    assert parse_since("2024-05-01") == "2024-05-01T00:00:00+00:00"
    assert parse_since("2024-05-01T10:00:00+02:00") == "2024-05-01T08:00:00+00:00"


def test_the_query_reads_only_the_page(filled):
    """The page comes from SQL: LIMIT/OFFSET on the index of ids, a COUNT for the total."""
    with Store(filled) as s:
        f = RunFilter(label="nightly", last=3, offset=1)
        traced: list[str] = []
        s.conn.set_trace_callback(traced.append)
        found = page(s.conn, f)
        s.conn.set_trace_callback(None)
        assert [r.id for r in found.runs] == [19, 21, 23] and found.total == 13
        assert any("LIMIT" in q and "OFFSET" in q for q in traced)
        assert any("COUNT(*)" in q for q in traced)
        plan = " ".join(
            str(tuple(r))
            for r in s.conn.execute("EXPLAIN QUERY PLAN SELECT id FROM runs ORDER BY id DESC")
        )
        assert "TEMP B-TREE" not in plan  # ids ordered by the primary key, never sorted
        assert count(s.conn, RunFilter(status=("failed",))) == 1
        assert run_ids(s.conn, RunFilter(suite="standard", last=2)) == [24, 25]


def test_compare_and_report_pick_runs_by_filter(filled, invoke, tmp_path):
    picked = invoke("compare", "2", "--label", "nightly", "--last", "3", "--format", "json")
    doc = validate(json.loads(picked.stdout))
    assert doc["runs"] == [2, 21, 23, 25]  # the RUN given first (the baseline), then the picked
    assert [c["name"] for c in doc["columns"]] == ["manual", "nightly"]
    explicit = validate(json.loads(invoke("compare", "3", "4", "--format", "json").stdout))
    assert explicit["runs"] == [3, 4]
    none = invoke("compare", "--label", "nope", expect=2)
    assert "no stored run matches label nope" in none.output
    which = invoke("compare", expect=2)
    assert "which runs? give run ids, or pick them by filter" in which.output
    report = invoke("report", "--label", "nope", "-o", str(tmp_path / "r.html"), expect=2)
    assert "no stored run matches label nope" in report.output


def test_views_read_the_store_with_readable_names(filled):
    conn = sqlite3.connect(filled)
    conn.row_factory = sqlite3.Row
    runs = conn.execute("SELECT * FROM run_list ORDER BY run_id").fetchall()
    assert len(runs) == 25
    assert dict(runs[6]) | {"ended_at": None, "host": None} == {
        "run_id": 7,
        "label": "nightly",
        "suite": "quick",
        "target": "file:/mnt/bench",
        "status": "failed",
        "started_at": DAY.format(7),
        "ended_at": None,
        "host": None,
        "workloads_ok": 4,
        "workloads_failed": 0,
        "error": "fio exited 1",
    }
    rows = conn.execute(
        "SELECT * FROM result_list WHERE run_id = 25 ORDER BY workload, op"
    ).fetchall()
    with Store(filled) as s:
        stored = {(r.workload, r.op): r.to_json() for r in s.get_run(25).results}
    assert len(rows) == len(stored) == 4
    for row in rows:
        r = stored[(row["workload"], row["op"])]
        assert row["iops"] == r["iops"] and row["bw_bytes_per_s"] == r["bw_bytes_per_s"]
        assert row["lat_mean_us"] == r["lat_mean_us"] and row["lat_p99_us"] == r["lat_p99_us"]
        assert row["bs_bytes"] == r["bs"] and json.loads(row["flags_json"]) == r["flags"]
    assert conn.execute("SELECT COUNT(*) FROM failure_list").fetchone()[0] == 0


def _complete(db: Path, words: str, shell: str = "bash") -> list[str]:
    """What cephbench offers on TAB after ``words`` (bash: the last word is being typed)."""
    parts = words.split(" ")
    env = {
        "_CEPHBENCH_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
        "CEPHBENCH_DB": str(db),
    }
    result = helpers.invoke(env=env)
    return [ln.split(",", 1)[1] for ln in result.stdout.splitlines() if "," in ln]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_shells_script(invoke, shell):
    script = invoke("completion", shell).stdout
    assert "_CEPHBENCH_COMPLETE" in script and f"{shell}_complete" in script


def test_completion_offers_run_ids_labels_and_suites(filled):
    assert _complete(filled, "cephbench show 2") == ["25", "24", "23", "22", "21", "20", "2"]
    assert _complete(filled, "cephbench compare 3 ")[:3] == ["last", "25", "24"]
    assert _complete(filled, "cephbench runs --label n") == ["nightly"]
    assert _complete(filled, "cephbench report --label ") == ["nightly", "manual"]
    assert _complete(filled, "cephbench runs --suite s") == ["standard"]
    assert _complete(filled, "cephbench runs --target rbd") == ["rbd:lab"]
    offered = _complete(filled, "cephbench run q")
    assert "quick" in offered and "q" in offered  # a suite name, or a file starting with q
    assert "matrix" in _complete(filled, "cephbench run m")


def test_completion_without_a_store_offers_nothing_and_creates_none(tmp_path):
    missing = tmp_path / "none.db"
    assert _complete(missing, "cephbench show ") == ["last"]
    assert _complete(missing, "cephbench runs --label ") == []
    assert not missing.exists()
