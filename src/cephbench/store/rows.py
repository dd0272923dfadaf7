"""Results and runs to and from their rows: the one place that knows the tables' columns."""

from __future__ import annotations

import json
import sqlite3

from cephbench.model import RESULT_FIELDS, Result, StoredRun

RESULT_COLUMNS = tuple(f for f in RESULT_FIELDS if f not in ("workload", "repeat"))
"""The results table's figures: every field of a Result but the two its workload row holds."""


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
    )
