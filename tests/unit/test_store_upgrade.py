"""Upgrading stores written by older cephbench versions, and migrations that fail.

The stores under tests/data/store/ were written by the cephbench of that commit (README.md
there): every row they hold must read back the same after the upgrade, and an upgrade that
fails part-way must leave the file exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from cephbench.errors import StoreError
from cephbench.model import Series
from cephbench.store import Store, schema

DATA = Path(__file__).parents[1] / "data" / "store"
V1, V4 = DATA / "v1-938ed99.db", DATA / "v4-7c90a07.db"
KEPT = ("runs", "outputs", "workloads", "results", "cluster_fingerprints", "resources")
"""Tables no migration after the store's version rewrites: their rows must stay as they are."""


def _copy(src: Path, db: Path) -> Path:
    shutil.copyfile(src, db)
    return db


def _raw(db: Path):
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    return conn


def _tables(conn) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _rows(conn, table: str, columns: list[str] | None = None) -> list[tuple]:
    cols = ", ".join(columns) if columns else "*"
    return [tuple(r) for r in conn.execute(f"SELECT {cols} FROM {table} ORDER BY rowid")]


def _columns(conn, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]


def _state(db: Path) -> tuple[str, list[str], int]:
    """The file's bytes (hash), its SQL dump and user_version: 'as it was' means all three."""
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    conn = sqlite3.connect(db)
    try:
        return digest, list(conn.iterdump()), conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _schema(db: Path) -> set[tuple]:
    conn = sqlite3.connect(db)
    try:
        return set(conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    finally:
        conn.close()


def test_fixtures_are_what_the_old_versions_wrote():
    for path, version, tables in (
        (V1, 1, {"runs", "outputs", "workloads", "results"}),
        (V4, 4, {"runs", "series", "timeseries", "resources"}),
    ):
        conn = _raw(path)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        assert tables <= _tables(conn)
    assert "resources" not in _tables(_raw(V1))  # the first 0001_initial.sql had none


def test_a_store_of_the_first_schema_is_upgraded_with_every_row(db, invoke_json):
    _copy(V1, db)
    before = _raw(db)
    old = {
        t: (_columns(before, t), _rows(before, t))
        for t in ("runs", "outputs", "workloads", "results")
    }
    n_results = len(old["results"][1])
    before.close()

    with Store(db) as store:
        runs = store.runs()
        got = [store.get_run(r.id) for r in runs]
        outputs = [o for r in runs for o in store.outputs(r.id)]
        assert store.open_resources() == []  # the resource log exists now (0006)
        rid = store.add_resource(runs[0].id, "file", "/nonexistent/x")
        store.resource_removed(rid)

    after = _raw(db)
    assert after.execute("PRAGMA user_version").fetchone()[0] == schema.latest_version()
    for table, (columns, rows) in old.items():
        assert _rows(after, table, columns) == rows, table  # every old column of every row
    defaults = after.execute(
        "SELECT COUNT(*) FROM results WHERE metrics = '{}'"
        " AND rwmixread IS NULL AND clat_mean_us IS NULL"
        " AND slat_mean_us IS NULL"
    ).fetchone()[0]
    assert defaults == n_results

    assert [r.label for r in runs] == ["first schema", None]
    assert [len(r.results) for r in got] == [8, 2] and sum(len(r.results) for r in got) == n_results
    by_id = {row["id"]: row for row in after.execute("SELECT * FROM results")}
    stored = [
        (r.workload, r.repeat, r.op, r.iops, r.lat_mean_us, r.lat_p99_us)
        for run in got
        for r in run.results
    ]
    workload = {w["id"]: w for w in after.execute("SELECT * FROM workloads")}
    raw = [
        (
            workload[x["workload_id"]]["name"],
            workload[x["workload_id"]]["repeat"],
            x["op"],
            x["iops"],
            x["lat_mean_us"],
            x["lat_p99_us"],
        )
        for x in by_id.values()
    ]
    assert sorted(stored, key=str) == sorted(raw, key=str)
    assert all(o["stdout"].lstrip().startswith("{") for o in outputs)  # fio's JSON, decompressed
    shown = invoke_json("show", "1")
    assert [r["workload"] for r in shown["results"][:4]] == [
        "seq_wr",
        "seq_rd",
        "rand_rd",
        "rand_wr",
    ]


def _old_series(db: Path) -> tuple[list[tuple], list[dict]]:
    """The v4 store's two tables, read as cephbench 7c90a07 read them."""
    conn = _raw(db)
    compact = []
    for r in conn.execute("SELECT * FROM timeseries ORDER BY id"):
        data = np.frombuffer(zlib.decompress(r["data_z"]), dtype="<f8")
        compact.append(
            (
                r["run_id"],
                r["repeat"],
                r["workload"],
                r["op"],
                r["metric"],
                data[: r["n"]],
                data[r["n"] :],
            )
        )
    points = [
        {**dict(r), "points": json.loads(r["points"])}
        for r in conn.execute("SELECT * FROM series ORDER BY id")
    ]
    conn.close()
    return compact, points


def test_a_schema_4_store_gets_one_series_table_with_every_point(db, invoke_json):
    _copy(V4, db)
    compact, points = _old_series(db)
    before = _raw(db)
    columns = {t: _columns(before, t) for t in KEPT}  # later migrations may add columns
    kept = {t: _rows(before, t, columns[t]) for t in KEPT}
    before.close()
    assert {p["name"] for p in points} == {"bw_bytes_per_s", "lat_avg_us", "health", "drop_caches"}
    assert len(compact) == 12 and len(points) == 11

    with Store(db) as store:
        got = {run_id: store.series(run_id) for run_id in (1, 2)}
        health = store.series(1, "health")
        drops = store.series(2, "drop_caches")

    after = _raw(db)
    assert {"series", "timeseries"} & _tables(after) == {"series"}
    assert {t: _rows(after, t, columns[t]) for t in KEPT} == kept
    # fio's float64 rows first (as they were read before), then the JSON points, in their order
    expected = [*((c[0], c[1:]) for c in compact), *((p["run_id"], p) for p in points)]
    actual = [(run_id, s) for run_id in (1, 2) for s in got[run_id]]
    assert len(actual) == len(expected) == 23
    for (run_id, old), (new_run, new) in zip(
        sorted(expected, key=lambda e: e[0]), sorted(actual, key=lambda a: a[0]), strict=True
    ):
        assert run_id == new_run
        if isinstance(old, tuple):  # from timeseries: the same bytes
            assert (new.repeat, new.workload, new.op, new.metric) == old[:4]
            assert np.array_equal(new.t_s, old[4]) and np.array_equal(new.values, old[5])
            continue
        ts, vs = [p[0] for p in old["points"]], [p[1] for p in old["points"]]
        if old["name"] in ("health", "drop_caches"):  # records: exactly what was written
            assert (new.workload, new.op, new.metric) == ("", "", old["name"])
            assert new.t_s == tuple(ts) and new.values == tuple(vs)
        else:  # rados bench's table: float64, every value exactly, named as the reports read it
            assert (new.workload, new.op) == (old["workload"], "")
            assert new.metric == {"lat_avg_us": "lat_mean_us"}.get(old["name"], old["name"])
            assert new.t_s.tolist() == ts and new.values.tolist() == vs
    old_health = next(p["points"] for p in points if p["name"] == "health")
    assert len(health) == 1 and len(old_health) == 10
    assert invoke_json("show", "1")["health_samples"] == old_health
    assert [v for s in drops for v in s.values] == [
        p["points"][0][1] for p in points if p["name"] == "drop_caches"
    ]


@pytest.mark.parametrize("old", [V1, V4], ids=["v1", "v4"])
def test_an_upgraded_store_has_the_schema_of_a_new_one(tmp_path, old):
    Store(tmp_path / "new.db").close()
    Store(_copy(old, tmp_path / "old.db")).close()
    assert _schema(tmp_path / "old.db") == _schema(tmp_path / "new.db")


def test_upgrading_and_reading_health_does_not_import_numpy(db):
    _copy(V4, db)
    code = (
        "import sys; from cephbench.store import Store; s = Store(sys.argv[1]);"
        " h = s.series(1, 'health'); assert len(h[0].values) == 10;"
        " print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def _shipped_plus(tmp_path: Path, **files: str) -> Path:
    """The shipped migrations and test-only ones after them, in a directory of their own."""
    directory = tmp_path / "migrations"
    shutil.copytree(schema.MIGRATIONS, directory, ignore=shutil.ignore_patterns("__pycache__"))
    for name, text in files.items():
        (directory / name.replace("__", ".")).write_text(text)
    return directory


def test_a_migration_failing_part_way_leaves_the_store_as_it_was(tmp_path, db, monkeypatch):
    _copy(V1, db)
    as_it_was = _state(db)
    broken = (
        "DELETE FROM results;\nCREATE TABLE scratch (x INTEGER);\n"
        "INSERT INTO no_such_table VALUES (1);\n"
    )
    directory = _shipped_plus(tmp_path, **{"0099_broken__sql": broken})
    monkeypatch.setattr(schema, "MIGRATIONS", directory)
    with pytest.raises(StoreError) as e:
        Store(db)
    # 0002..0006 were applied before 0099 failed: they are undone too
    assert "from schema version 1 to 99: migration 0099_broken failed: no such table" in str(
        e.value
    )
    assert "unchanged (still version 1)" in e.value.hint
    assert _state(db) == as_it_was
    monkeypatch.undo()
    with Store(db) as store:  # and the shipped migrations still upgrade it
        assert len(store.get_run(1).results) == 8


def test_a_python_migration_failing_part_way_leaves_the_store_as_it_was(tmp_path, db, monkeypatch):
    _copy(V4, db)
    as_it_was = _state(db)
    step = (
        "def upgrade(conn):\n    conn.execute('DELETE FROM runs')\n"
        "    raise RuntimeError('the conversion met a value it cannot store')\n"
    )
    monkeypatch.setattr(schema, "MIGRATIONS", _shipped_plus(tmp_path, **{"0099_convert__py": step}))
    with pytest.raises(StoreError, match="0099_convert failed: the conversion met a value"):
        Store(db)
    assert _state(db) == as_it_was


def test_the_shipped_0005_failing_on_a_bad_row_leaves_the_store_as_it_was(db):
    _copy(V4, db)
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO series (run_id, repeat, workload, name, points)"
        " VALUES (2, 0, '', 'x', 'not json')"
    )
    conn.commit()
    conn.close()
    as_it_was = _state(db)
    with pytest.raises(StoreError, match=r"version 4 .* migration 0005_one_timeseries failed"):
        Store(db)
    assert _state(db) == as_it_was


def test_python_migrations_run_in_order_with_their_sql(tmp_path):
    directory = tmp_path / "m"
    directory.mkdir()
    (directory / "0001_first.sql").write_text(
        "CREATE TABLE t (x INTEGER);\nINSERT INTO t VALUES (3);\n"
    )
    (directory / "0002_double.sql").write_text("INSERT INTO t SELECT twice(x) FROM t;\n")
    (directory / "0002_double.py").write_text(
        "def twice(x):\n    return 2 * x\n\nFUNCTIONS = {'twice': twice}\n\n"
        "def upgrade(conn):\n    conn.execute('INSERT INTO t SELECT MAX(x) + 1 FROM t')\n"
    )
    (directory / "0003_python_only.py").write_text(
        "def upgrade(conn):\n    conn.execute('UPDATE t SET x = -x')\n"
    )
    assert [(m.version, m.name, bool(m.sql), bool(m.py)) for m in schema.migrations(directory)] == [
        (1, "0001_first", True, False),
        (2, "0002_double", True, True),
        (3, "0003_python_only", False, True),
    ]
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    assert schema.migrate(conn, "x.db", directory) == 3
    assert [r[0] for r in conn.execute("SELECT x FROM t ORDER BY rowid")] == [-3, -6, -7]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    assert schema.migrate(conn, "x.db", directory) == 3  # up to date: nothing runs again
    assert [r[0] for r in conn.execute("SELECT x FROM t ORDER BY rowid")] == [-3, -6, -7]


def test_one_number_for_two_migrations_is_refused(tmp_path):
    (tmp_path / "0001_a.sql").write_text("SELECT 1;")
    (tmp_path / "0001_b.sql").write_text("SELECT 1;")
    with pytest.raises(RuntimeError, match="two migrations numbered 1"):
        schema.migrations(tmp_path)


def test_series_of_numbers_and_of_records_round_trip(db):
    t = np.array([0.5, 1.0, 1.5])
    records = [
        {"flags": [], "health": "HEALTH_OK"},
        {"flags": ["osd_down"], "health": "HEALTH_WARN"},
    ]
    with Store(db) as store:
        run_id = store.start_run(label=None, suite="s", target="t", environment={}, params={})
        store.add_series(
            run_id,
            [
                Series(0, "w", "read", "iops", t, np.array([10.0, 0.0, 12.5])),
                Series(1, "w", "", "bw_bytes_per_s", [1, 2], [4096, 8192]),
                Series(0, "", "", "health", [0.1, 2.0], records),
            ],
        )
        with pytest.raises(ValueError, match="3 times, 2 values"):
            store.add_series(run_id, [Series(0, "w", "read", "iops", t, [1.0, 2.0])])
        iops, bw, health = store.series(run_id)
        (only,) = store.series(run_id, "health")
        assert (only.metric, only.t_s, only.values) == ("health", health.t_s, health.values)
    assert iops.t_s.tolist() == [0.5, 1.0, 1.5] and iops.values.tolist() == [10.0, 0.0, 12.5]
    assert bw.values.dtype == np.float64 and bw.values.tolist() == [4096.0, 8192.0]
    assert health.t_s == (0.1, 2.0) and health.values == tuple(records)
    conn = sqlite3.connect(db)
    encodings = [r[0] for r in conn.execute("SELECT encoding FROM series ORDER BY id")]
    assert encodings == ["f8", "f8", "json"]  # the refused series left no row
