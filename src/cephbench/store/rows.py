"""Results and runs to and from their rows: the one place that knows the tables' columns."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import replace

from cephbench.model import RESULT_FIELDS, Result, StoredRun

RESULT_COLUMNS = tuple(f for f in RESULT_FIELDS if f not in ("workload", "repeat", "clients"))
"""The results table's figures: every field of a Result but the two its workload row holds
and its clients (rows of their own, with their ``host``)."""


def insert_results(conn: sqlite3.Connection, workload_id: int, results: Iterable[Result]) -> None:
    """A workload's results; each client's of a run from many clients as a row with its host."""
    sql = (
        f"INSERT INTO results (workload_id, {', '.join(RESULT_COLUMNS)})"
        f" VALUES (?{', ?' * len(RESULT_COLUMNS)})"
    )
    for r in results:
        conn.execute(sql, (workload_id, *result_row(r)))
        for c in r.clients:
            conn.execute(sql, (workload_id, *result_row(c)))


def workload_results(conn: sqlite3.Connection, workload: sqlite3.Row) -> list[Result]:
    """A workload's results as stored, each client's (a row with a host) under the aggregate
    of its direction."""
    rows = conn.execute(
        "SELECT * FROM results WHERE workload_id = ? ORDER BY op, id", (workload["id"],)
    ).fetchall()
    name, repeat = workload["name"], workload["repeat"]
    clients: dict[str, list[Result]] = {}
    for row in rows:
        if row["host"] is not None:
            clients.setdefault(row["op"], []).append(result_from_row(name, repeat, row))
    return [
        replace(r, clients=tuple(clients.get(r.op, ()))) if r.op in clients else r
        for row in rows
        if row["host"] is None
        for r in (result_from_row(name, repeat, row),)
    ]


def result_row(r: Result) -> tuple:
    values = {c: getattr(r, c) for c in RESULT_COLUMNS}
    values["percentiles"] = json.dumps([list(p) for p in r.percentiles])
    values["flags"] = json.dumps(list(r.flags))
    values["metrics"] = json.dumps(dict(r.metrics))
    return tuple(values[c] for c in RESULT_COLUMNS)


def result_from_row(workload: str, repeat: int, row: sqlite3.Row) -> Result:
    values = {c: row[c] for c in RESULT_COLUMNS}
    values["percentiles"] = tuple(tuple(p) for p in json.loads(values["percentiles"]))
    values["flags"] = tuple(json.loads(values["flags"]))
    values["metrics"] = tuple(sorted(json.loads(values["metrics"] or "{}").items()))
    return Result(workload=workload, repeat=repeat, **values)


def run_from_row(row: sqlite3.Row) -> StoredRun:
    return StoredRun(
        id=row["id"],
        label=row["label"],
        suite=row["suite"],
        target=row["target"],
        status=row["status"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        environment=json.loads(row["environment"]),
        params=json.loads(row["params"]),
        error=row["error"],
        imported_at=row["imported_at"],
    )
