"""`--format csv` on show, runs and compare: one row per result (per workload, direction and
configuration for compare), units in the column names, every figure the JSON's own."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from cephbench.report.spreadsheet import RESULT_COLUMNS
from tests.helpers import FIO_DATA, store_run

JSON_KEY = dict(RESULT_COLUMNS)


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _cell(value) -> str:
    """A JSON value as the CSV writes it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(value)
    return str(value)


def _same_as_json(row: dict[str, str], result: dict) -> None:
    for column, key in RESULT_COLUMNS:
        assert row[column] == _cell(result.get(key)), column
    for name, value in result.get("metrics", {}).items():
        assert float(row[name]) == value


@pytest.fixture
def imported(db: Path, invoke) -> int:
    """A real fio 3.33 JSON (clat, slat, lat and percentiles), through `cephbench import`."""
    invoke("import", str(FIO_DATA / "concurrent.json"))
    return 1


def test_show_csv_is_the_json_figures_one_row_per_result(imported, invoke, invoke_json):
    doc = invoke_json("show", "1")
    rows = _rows(invoke("show", "1", "--format", "csv").stdout)
    assert len(rows) == len(doc["results"]) >= 2
    assert list(rows[0])[:8] == ["run_id", "label", "suite", "target", "status", "started_at",
                                 "workload", "repeat"]  # fmt: skip
    for col in ("iops", "bw_bytes_per_s", "lat_mean_us", "lat_p99_us", "bs_bytes", "runtime_s"):
        assert col in rows[0]
    for row, result in zip(rows, doc["results"], strict=True):
        assert row["run_id"] == "1" and row["started_at"] == doc["started_at"]
        _same_as_json(row, result)
    assert any(r["clat_mean_us"] and r["slat_mean_us"] and r["lat_p99_us"] for r in rows)


def test_runs_csv_covers_the_listed_runs(db, invoke, invoke_json):
    for i in range(3):
        store_run(db, f"r{i}", [[100.5 + i, 200, 300, 400], [101, 201, 301, 401]])
    rows = _rows(invoke("runs", "--last", "2", "--format", "csv").stdout)
    assert sorted({r["run_id"] for r in rows}) == ["2", "3"]
    assert len(rows) == 2 * 2 * 4  # runs x repeats x workloads
    for run_id in ("2", "3"):
        doc = invoke_json("show", run_id)
        mine = [r for r in rows if r["run_id"] == run_id]
        for row, result in zip(mine, doc["results"], strict=True):
            _same_as_json(row, result)
    assert rows[0]["label"] == "r1"


def test_csv_keeps_a_tools_own_figures_as_columns(db, invoke, invoke_json):
    invoke("import", str(Path(FIO_DATA).parent.parent / "rados-bench" / "0.47.2" / "write-60s.txt"))
    doc = invoke_json("show", "last")
    rows = _rows(invoke("show", "last", "--format", "csv").stdout)
    metrics = doc["results"][0]["metrics"]
    assert metrics and set(metrics) <= set(rows[0])
    _same_as_json(rows[0], doc["results"][0])


def test_compare_csv_is_the_comparison_json(db, invoke, invoke_json):
    for label, base in (("a", 1000), ("a", 1010), ("b", 1200), ("b", 1190)):
        store_run(db, label, [[base, base * 2, base * 3, base * 4]])
    doc = invoke_json("compare", "1", "2", "3", "4")
    rows = _rows(invoke("compare", "1", "2", "3", "4", "--format", "csv").stdout)
    assert len(rows) == 4 * 2  # workloads x configurations
    assert {r["configuration"] for r in rows} == {"a", "b"}
    header = list(rows[0])
    for metric in ("iops", "bw_bytes_per_s", "lat_mean_us", "lat_p99_us"):
        assert f"{metric}_ci95_low" in header and f"{metric}_pct_diff" in header
    for row in doc["rows"]:
        for col in doc["columns"]:
            line = next(
                r
                for r in rows
                if (r["workload"], r["op"], r["configuration"])
                == (row["workload"], row["op"], col["name"])
            )
            m, key = row["metric"], col["key"]
            assert line["run_ids"] == " ".join(map(str, col["runs"]))
            assert line[m] == _cell(row["values"][key])
            assert line[f"{m}_n"] == str(row["n"][key])
            ci = row["ci95"][key]
            assert [line[f"{m}_ci95_low"], line[f"{m}_ci95_high"]] == [str(ci[0]), str(ci[1])]
            assert line[f"{m}_pct_diff"] == _cell(row["pct_diff"].get(key))
            assert line[f"{m}_significant"] == _cell(row["significant"].get(key))
            assert line["baseline"] == ("true" if key == str(doc["baseline"]) else "false")


def test_show_cluster_has_no_csv(imported, invoke):
    result = invoke("show", "1", "--cluster", "--format", "csv", expect=2)
    assert "Error: --cluster has no CSV form" in result.output
