"""Time series in the store: one table, one row per ``Series``.

A series of numbers (fio's logs, rados bench's per-second table) is stored as a zlib-compressed
little-endian float64 array ``[t_0 .. t_n-1, v_0 .. v_n-1]`` (encoding ``f8``) and read back as
numpy arrays. A series whose values are records (health samples, page cache drops: JSON
objects) is stored as zlib-compressed JSON ``[[t, value], ...]`` (encoding ``json``) and read
back as tuples, exactly as written. numpy is imported only to write or read an ``f8`` series, so
commands that never touch one start without it.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable
from numbers import Real
from typing import Any

from cephbench.model import Series


def insert(conn: sqlite3.Connection, run_id: int, series: Iterable[Series]) -> None:
    for s in series:
        n, encoding, data = _encode(s)
        conn.execute(
            "INSERT INTO series (run_id, repeat, workload, op, metric, n, encoding, data_z)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (run_id, s.repeat, s.workload, s.op, s.metric, n, encoding, zlib.compress(data)),
        )


def select(conn: sqlite3.Connection, run_id: int, metric: str | None = None) -> list[Series]:
    """The run's series in the order they were stored; only ``metric``'s when given."""
    sql = "SELECT * FROM series WHERE run_id = ?"
    args: list[int | str] = [run_id]
    if metric is not None:
        sql, args = sql + " AND metric = ?", [*args, metric]
    return [_decode(r) for r in conn.execute(sql + " ORDER BY id", args)]


def _encode(s: Series) -> tuple[int, str, bytes]:
    if len(s.t_s) != len(s.values):
        raise ValueError(
            f"series {s.workload}/{s.metric}: {len(s.t_s)} times, {len(s.values)} values"
        )
    if hasattr(s.values, "dtype") or all(_number(v) for v in s.values):
        import numpy as np

        t, v = np.asarray(s.t_s, dtype="<f8"), np.asarray(s.values, dtype="<f8")
        if t.ndim != 1 or v.ndim != 1:
            raise ValueError(f"series {s.workload}/{s.metric}: times and values must be flat")
        return len(t), "f8", np.concatenate([t, v]).tobytes()
    points = [[float(t), v] for t, v in zip(s.t_s, s.values, strict=True)]
    return len(points), "json", json.dumps(points).encode()


def _number(v) -> bool:
    return isinstance(v, Real) and not isinstance(v, bool)


def _decode(r: sqlite3.Row) -> Series:
    data, n = zlib.decompress(r["data_z"]), r["n"]
    t_s: Any  # as Series keeps them: tuples (json) or numpy arrays (f8)
    values: Any
    if r["encoding"] == "json":
        points = json.loads(data)
        t_s, values = tuple(p[0] for p in points), tuple(p[1] for p in points)
    else:
        import numpy as np

        flat = np.frombuffer(data, dtype="<f8")
        t_s, values = flat[:n], flat[n:]
    return Series(r["repeat"], r["workload"], r["op"], r["metric"], t_s, values)
