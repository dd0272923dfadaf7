"""Time series in the store: one row per series, its points a zlib-compressed little-endian
float64 array ``[t_0 .. t_n-1, v_0 .. v_n-1]``. numpy is imported here only, so commands
that never touch a time series start without it."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable

import numpy as np

from cephbench.model import Series

JSON_SERIES = {"bw_bytes_per_s": "bw_bytes_per_s", "lat_avg_us": "lat_mean_us", "iops": "iops"}
"""Names of per-workload series in the JSON ``series`` table (rados bench's per-second
table, kept that way by the Ceph drivers) -> the metric they are."""


def insert(conn: sqlite3.Connection, run_id: int, series: Iterable[Series]) -> None:
    for s in series:
        t, v = np.asarray(s.t_s, dtype="<f8"), np.asarray(s.values, dtype="<f8")
        if t.shape != v.shape or t.ndim != 1:
            raise ValueError(f"series {s.workload}/{s.metric}: times and values differ in shape")
        conn.execute(
            "INSERT INTO timeseries (run_id, repeat, workload, op, metric, n, data_z) VALUES (?,?,?,?,?,?,?)",
            (run_id, s.repeat, s.workload, s.op, s.metric, len(t), zlib.compress(np.concatenate([t, v]).tobytes())),
        )


def select(conn: sqlite3.Connection, run_id: int, json_series: list[dict]) -> list[Series]:
    """The compressed rows of a run, then its per-workload JSON series (``Store.series``)."""
    out = []
    for r in conn.execute("SELECT * FROM timeseries WHERE run_id = ? ORDER BY id", (run_id,)):
        data = np.frombuffer(zlib.decompress(r["data_z"]), dtype="<f8")
        out.append(Series(r["repeat"], r["workload"], r["op"], r["metric"], data[:r["n"]], data[r["n"]:]))
    for s in json_series:
        if s["workload"] and s["name"] in JSON_SERIES and s["points"]:
            points = np.asarray(s["points"], dtype=float)
            out.append(Series(s["repeat"], s["workload"], "", JSON_SERIES[s["name"]], points[:, 0], points[:, 1]))
    return out
