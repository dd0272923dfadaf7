"""`cephbench compare`: fixed stored runs against REFERENCE tables, JSON, the CI gate (real fio
runs end to end: tests/fio/test_compare.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cephbench.analysis.compare import compare, regressions
from cephbench.report.markdown import comparison_markdown
from cephbench.store import Store
from tests.helpers import DATA, ENV, store_run

REFERENCE = DATA / "compare"


def check_reference(name: str, text: str) -> None:
    """Compare with tests/data/compare/NAME; CEPHBENCH_REGEN=1 rewrites the reference."""
    path = REFERENCE / name
    if os.environ.get("CEPHBENCH_REGEN"):
        path.write_text(text)
    assert text == path.read_text()


def two_single_runs(db: Path) -> tuple[int, int]:
    a = store_run(db, "Attempt #2", [[1428.0, 2870.0, 30210.0, 12000.0]])
    b = store_run(
        db,
        "Attempt #3",
        [[2280.0, 2850.0, 29000.0, 13100.0]],
        env={**ENV, "kernel": "6.5.0-0.deb12.4-amd64"},
    )
    return a, b


def test_two_runs_without_repeats_match_the_reference(db, invoke):
    a, b = two_single_runs(db)
    out = invoke("compare", str(a), str(b), "--format", "md").stdout
    check_reference("two_runs.md", out)
    assert "| seq_wr | 1428 | 2280 | +59.66% |" in out
    assert "1 sample per run: significance unknown" in out
    assert "| kernel | 6.1.0-18-amd64 | 6.5.0-0.deb12.4-amd64 |" in out


def test_repeats_get_intervals_and_verdicts(db, invoke):
    base = [[1000, 2000, 30000, 12000], [1010, 1990, 30500, 12100], [990, 2010, 29500, 11900]]
    tuned = [[1500, 2000, 30100, 12000], [1510, 2020, 29600, 12050], [1490, 1980, 30400, 11950]]
    a = store_run(db, "initial", base)
    b = store_run(db, "tuned", tuned)
    out = invoke("compare", str(a), str(b), "--format", "md").stdout
    check_reference("repeats.md", out)
    cmp = _compare(db, a, b)
    iops = {r.workload: r for r in cmp.rows if r.metric.key == "iops"}
    assert iops["seq_wr"].diffs[str(b)].significant is True
    assert iops["seq_wr"].verdict(str(b)) == "better"
    assert iops["seq_rd"].diffs[str(b)].significant is False
    assert "| seq_rd | 2000 ± 25 | 2000 ± 50 | ~+0.00% [" in out
    lat = {r.workload: r for r in cmp.rows if r.metric.key == "lat_mean_us"}
    assert lat["seq_wr"].verdict(str(b)) == "better"  # lower latency is the improvement


def test_same_label_runs_are_pooled_as_repeats(db, invoke_json):
    ids = [
        store_run(db, "A", [[1000, 2000, 30000, 12000]]),
        store_run(db, "A", [[1020, 2010, 30100, 12100]]),
        store_run(db, "B", [[1200, 2000, 30050, 12000]]),
        store_run(db, "B", [[1210, 2010, 30010, 12050]]),
    ]
    data = invoke_json("compare", *map(str, ids))
    assert data["baseline"] == ids[0] and data["runs"] == ids
    assert [c["runs"] for c in data["columns"]] == [ids[:2], ids[2:]]
    row = data["rows"][0]
    assert (row["workload"], row["op"], row["metric"]) == ("seq_wr", "write", "iops")
    assert row["values"] == {str(ids[0]): 1010.0, str(ids[2]): 1205.0}
    assert row["n"] == {str(ids[0]): 2, str(ids[2]): 2}
    assert row["pct_diff"] == {str(ids[2]): 19.31}
    assert row["significant"][str(ids[2])] in (True, False)


def test_json_without_repeats_has_null_significance(db, invoke_json):
    a, b = two_single_runs(db)
    data = invoke_json("compare", str(a), str(b))
    row = data["rows"][0]
    assert row == {
        **row,
        "values": {str(a): 1428.0, str(b): 2280.0},
        "pct_diff": {str(b): 59.66},
        "significant": {str(b): None},
        "ci95": {str(a): None, str(b): None},
    }
    assert {
        "path": "kernel",
        "kind": "context",
        "default": [],
        "values": {str(a): "6.1.0-18-amd64", str(b): "6.5.0-0.deb12.4-amd64"},
    } in data["env_diff"]


def test_overall_table_across_runs_and_missing_workloads(db, invoke):
    ids = [
        store_run(db, None, [[1000, 2000, 30000, 12000]]),
        store_run(db, "tuned", [[1100, 2100, 33000, 11000]], skip=("rand_wr",)),
        store_run(
            db, "tuned again", [[1050, 1900, 31000, 12500]], flags={"rand_rd": ("no_latency",)}
        ),
    ]
    out = invoke("compare", *map(str, ids), "--format", "md").stdout
    check_reference("overall.md", out)
    assert (
        f"| Workload | #{ids[0]} | tuned | tuned again | tuned vs #{ids[0]} (%) | tuned again vs #{ids[0]} (%) |"
        in out
    )
    assert "rand_wr (write) is only in #" in out
    assert "| rand_rd [1] |" in out and "[1] no latency recorded" in out


def test_gate_fails_only_on_significant_regressions(db, invoke):
    base = [[1000, 2000, 30000, 12000], [1010, 1990, 30500, 12100], [990, 2010, 29500, 11900]]
    worse = [[800, 2000, 30100, 12000], [810, 2020, 29600, 12050], [790, 1980, 30400, 11950]]
    same = [[1005, 1995, 30100, 12000], [995, 2010, 29900, 12050], [1000, 1990, 30000, 11950]]
    a, b, c = store_run(db, "a", base), store_run(db, "b", worse), store_run(db, "c", same)
    r = invoke("compare", str(a), str(b), "--fail-on-regression", "5%", expect=3)
    assert "REGRESSION b vs a: seq_wr (write) IOPS -20.00% (significant)" in r.stderr
    invoke("compare", str(a), str(c), "--fail-on-regression", "5%", expect=0)
    invoke("compare", str(a), str(b), "--fail-on-regression", "30", expect=0)


def test_gate_without_repeats_counts_the_threshold_and_says_so(db, invoke):
    a, b = two_single_runs(db)
    r = invoke("compare", str(b), str(a), "--fail-on-regression", "5%", expect=3)
    assert "seq_wr (write) IOPS -37.37% (1 sample: significance unknown)" in r.stderr


def test_bad_input_is_one_line(db, invoke):
    a, _ = two_single_runs(db)
    for args, msg in (
        (["compare", str(a)], "nothing to compare"),
        (["compare", str(a), "99"], "no run 99"),
        (["compare", str(a), str(a)], "a run is given twice"),
        (["compare", str(a), "2", "--fail-on-regression", "lots"], "not a percentage"),
    ):
        r = invoke(*args, expect=None)
        assert r.exit_code in (1, 2) and msg in r.stderr and "Traceback" not in r.output


def test_latency_none_is_never_zero(db):
    a = store_run(db, "a", [[1000, 2000, 30000, 12000]], flags={"seq_wr": ("no_latency",)})
    b = store_run(db, "b", [[1000, 2000, 30000, 12000]])
    cmp = _compare(db, a, b)
    row = next(r for r in cmp.rows if r.workload == "seq_wr" and r.metric.key == "lat_mean_us")
    assert row.cells[str(a)].summary is None and row.diffs[str(b)].pct is None
    assert regressions(cmp, 0.0) == []
    assert "| seq_wr [1] | n/a |" in comparison_markdown(cmp)


def _compare(db: Path, *ids: int):
    with Store(db) as s:
        return compare([s.get_run(i) for i in ids])


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def test_env_diff_is_generic_and_covers_the_cluster(db):
    from cephbench.analysis.envdiff import env_diff

    a = store_run(db, "a", [[1000, 2000, 30000, 12000]])
    b = store_run(db, "b", [[1000, 2000, 30000, 12000]], env={**ENV, "tools": {"fio": "fio-3.35"}})
    config = [{"section": "osd", "name": "osd_op_num_shards", "value": "2"}]
    clusters = {
        a: {"osds": 3, "pool": {"size": 3, "pg_num": 32}, "config": config},
        b: {
            "osds": 3,
            "pool": {"size": 2, "pg_num": 32},
            "config": [*config, {"section": "global", "name": "ms_crc_data", "value": "false"}],
        },
    }
    with Store(db) as s:
        runs = [s.get_run(a), s.get_run(b)]
    diffs = {d.path: d.values for d in env_diff(runs, clusters)}
    assert diffs == {
        "tools.fio": {a: "fio-3.33", b: "fio-3.35"},
        "cluster.pool.size": {a: 3, b: 2},
        "global ms_crc_data": {a: None, b: "false"},
    }
    md = comparison_markdown(compare(runs, clusters=clusters))
    assert "| global ms_crc_data | (default) | false |" in md
